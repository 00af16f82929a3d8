/**
 * A full disk (issue 37: `recall index` said "unexpected error: database or disk is full … report it"). The index
 * lives on a real, small tmpfs: the run that fills it exits 1 with one line that says what to do, the sessions
 * indexed before still answer searches (whose freshness check cannot write either, and says so), and once there is room the next run indexes the rest.
 * Mounting needs root (and a kernel that lets this sandbox mount tmpfs): skipped otherwise, saying so.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diskFullError } from "../../src/errors.ts";
import { describeToolError } from "../../src/mcp/index.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-disk-full-"));
const disk = join(work, "disk");
mkdirSync(disk);
const mounted =
  process.getuid?.() === 0 && Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk]).exitCode === 0;
if (!mounted) console.warn("disk-full tests skipped: mounting a small tmpfs needs root and a kernel that allows it");
afterAll(() => {
  if (mounted) Bun.spawnSync(["umount", disk]);
  rmSync(work, { recursive: true, force: true });
});

const home = join(work, "home");
const projects = join(home, ".claude", "projects", "-work-shop");
const env: Record<string, string | undefined> = {
  ...process.env,
  HOME: home,
  RECALL_HOME: join(disk, "recall"),
  RECALL_OFFLINE: "1",
};
// Only the history under HOME: a RECALL_*_DIRS or CODEX_HOME exported in the shell must not point elsewhere.
for (const key of sourceLocationVariables) delete env[key];

function recall(args: string[]) {
  const { exitCode: code, stdout, stderr } = runCli([...args], env);
  return { code, stdout, stderr };
}

function sessionId(number: number): string {
  return `00000000-0000-4000-8000-${String(number).padStart(12, "0")}`;
}

describe.skipIf(!mounted)("a full disk under recall's folder", () => {
  test("the run that fills it exits 1 in one line; earlier sessions still answer; with room the next run ends it", () => {
    writeClaudeSession(join(projects, `${sessionId(1)}.jsonl`), {
      sessionId: sessionId(1),
      cwd: "/work/shop",
      turns: [{ prompt: "configure the quokkaplanner cron job", response: "done" }],
    });
    expect(recall(["index", "--keyword-only"]).code).toBe(0);

    for (let number = 2; number < 150; number++)
      writeClaudeSession(join(projects, `${sessionId(number)}.jsonl`), {
        sessionId: sessionId(number),
        cwd: "/work/shop",
        turns: Array.from({ length: 20 }, (_, turn) => ({
          prompt: `bulk prompt ${number} ${turn} ${"lorem ipsum dolor ".repeat(40)}`,
          response: `bulk answer ${turn} ${"sit amet consectetur ".repeat(60)}`,
        })),
      });
    const full = recall(["index", "--keyword-only"]);
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(
      /^recall: the disk is full\b.*; the index is not damaged and keeps what was written before\n/,
    );
    expect(full.stderr).toContain("hint: free some space");
    expect(full.stderr).not.toContain("unexpected error");
    expect(full.stderr.trim().split("\n")).toHaveLength(2);

    const search = recall(["search", "quokkaplanner", "--json"]);
    expect(search.code).toBe(0);
    expect(JSON.parse(search.stdout).results[0].session_id).toBe(sessionId(1));
    expect(search.stderr).toContain("the disk is full");
    expect(search.stderr).toContain("answering from the last committed index");

    expect(Bun.spawnSync(["mount", "-o", "remount,size=64m", disk]).exitCode).toBe(0);
    expect(recall(["index", "--keyword-only"]).code).toBe(0);
    const listed = JSON.parse(recall(["sessions", "--json", "--limit", "1000"]).stdout);
    expect(listed.sessions).toHaveLength(149);
  });
});

describe("a full database, without mounting anything", () => {
  /** SQLite's own SQLITE_FULL, from a database capped at 8 pages (PRAGMA max_page_count). */
  function sqliteFull(): unknown {
    const db = new Database(":memory:");
    try {
      db.run("PRAGMA max_page_count = 8");
      db.run("CREATE TABLE filler (text TEXT)");
      for (;;) db.run("INSERT INTO filler VALUES (?)", ["x".repeat(4096)]);
    } catch (error) {
      return error;
    } finally {
      db.close();
    }
  }

  test("SQLITE_FULL and ENOSPC are DISK_FULL; other errors are not", () => {
    const full = diskFullError(sqliteFull());
    expect(full?.code).toBe("DISK_FULL");
    expect(full?.exitCode).toBe(1);
    const noSpace = Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      path: "/data/recall/vectors/a.vec",
    });
    expect(diskFullError(noSpace)?.message).toBe(
      "the disk is full (writing /data/recall/vectors/a.vec); the index is not damaged and keeps what was written before",
    );
    expect(diskFullError(new Error("database is locked"))).toBeUndefined();
    expect(diskFullError(undefined)).toBeUndefined();
  });

  test("an MCP tool that meets it answers the same line and hint, not 'unexpected error'", () => {
    const line = describeToolError(sqliteFull());
    expect(line).toStartWith("the disk is full; the index is not damaged");
    expect(line).toContain("free some space");
    expect(line).not.toContain("unexpected error");
  });
});
