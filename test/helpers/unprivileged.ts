/**
 * Running a piece of TypeScript as an unprivileged user, for tests of "permission denied": the suite
 * runs as root, and root reads through chmod 000. `setpriv` (util-linux) drops to uid/gid 65534
 * (nobody), as runtime-notes §5 did. Tests that need it use `test.skipIf(!canDropPrivileges)` with the
 * reason in the name ("needs root + setpriv").
 */
import { chmodSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** True when the tests run as root and `setpriv` exists. */
export const canDropPrivileges: boolean = process.getuid?.() === 0 && existsSync("/usr/bin/setpriv");

/** A fresh temp folder that user nobody may enter and read (0755; mkdtemp makes 0700). */
export function makeSharedTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

/** What the child printed and how it exited. */
export interface ChildResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * Run `script` (TypeScript for `bun -e`) as user nobody; `process.argv.slice(1)` holds `args`.
 * @returns stdout, stderr and exit code (the caller parses stdout, usually one JSON line)
 */
export function runAsNobody(script: string, args: string[] = []): ChildResult {
  const result = Bun.spawnSync(
    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script, ...args],
    { env: { ...process.env, HOME: tmpdir() }, stdout: "pipe", stderr: "pipe" },
  );
  return { stdout: result.stdout.toString(), stderr: result.stderr.toString(), exitCode: result.exitCode ?? -1 };
}
