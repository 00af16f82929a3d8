/**
 * Fresh temporary folders for a test file, removed after each test: the one copy of the make-and-clean-up lines
 * several index tests had written out each.
 */
import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A function that makes a new folder under the system temp folder, named `<prefix>XXXXXX`; every folder it made is
 * removed after each test of the file that called this (at module level).
 */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
