/**
 * Tests that switch the time zone through process.env.TZ (Bun honours it at run time, for Date too) put the caller's
 * zone back after each test, so no other test file runs in a zone it did not ask for.
 */
import { afterEach } from "bun:test";

/** Register an afterEach that restores process.env.TZ as it was when this was called. */
export function restoreTimeZoneAfterEach(): void {
  const saved = process.env.TZ;
  afterEach(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });
}
