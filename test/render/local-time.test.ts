/**
 * Text output prints times in the local time zone and says which (issue 15: dates were UTC without saying so);
 * JSON keeps ISO-8601 UTC. The zone is switched at run time through process.env.TZ, which Bun honours.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isoTime, localDate, localMinute, zoneLabel } from "../../src/render/format.ts";
import { repo, runCli } from "../helpers/cli.ts";
import { restoreTimeZoneAfterEach } from "../helpers/time-zone.ts";

const recallHome = mkdtempSync(join(tmpdir(), "recall-local-time-"));
afterAll(() => rmSync(recallHome, { recursive: true, force: true }));
restoreTimeZoneAfterEach();

const late = Date.UTC(2026, 2, 1, 22, 30); // 2026-03-01 22:30 UTC

describe("local dates and times in text output", () => {
  test("UTC prints as UTC; other zones print their offset, and the date is the local day", () => {
    process.env.TZ = "UTC";
    expect(localMinute(late)).toBe("2026-03-01 22:30 UTC");
    expect(localDate(late)).toBe("2026-03-01");
    process.env.TZ = "Asia/Kolkata";
    expect(localMinute(late)).toBe("2026-03-02 04:00 +05:30");
    expect(localDate(late)).toBe("2026-03-02");
    process.env.TZ = "America/New_York";
    expect(localMinute(late)).toBe("2026-03-01 17:30 -05:00");
    expect(zoneLabel(Date.UTC(2026, 6, 1))).toBe("-04:00"); // daylight saving time in force then
    expect(isoTime(late)).toBe("2026-03-01T22:30:00.000Z");
  });

  test("an unknown time stays 'unknown'", () => {
    expect(localMinute(0)).toBe("unknown");
    expect(localDate(0)).toBe("unknown");
  });

  test("the CLI prints show's turn times in the caller's zone, and its JSON in UTC", () => {
    const run = (args: string[]) =>
      runCli(
        [
          ...args,
          "--claude-dir",
          `${repo}/examples/claude-code`,
          "--opencode-dir",
          `${repo}/examples/opencode`,
          "--no-reindex",
        ],
        { ...process.env, TZ: "Asia/Kolkata", RECALL_HOME: recallHome },
      );
    runCli(
      [
        "index",
        "--claude-dir",
        `${repo}/examples/claude-code`,
        "--opencode-dir",
        `${repo}/examples/opencode`,
        "--keyword-only",
      ],
      { ...process.env, RECALL_HOME: recallHome },
    );
    const text = run(["show", "23d3db6a:1"]).stdout;
    expect(text).toMatch(/── Turn 1 · \d{4}-\d\d-\d\d \d\d:\d\d \+05:30 ──/);
    const json = JSON.parse(run(["show", "23d3db6a:1", "--json"]).stdout);
    expect(json.turns[0].timestamp).toMatch(/Z$/);
  });
});
