/**
 * `recall sessions` pages through a history of any size (issue 26: `--limit` stopped at 1,000 and there was no
 * `--offset`, so a user with 20,000 sessions could not list them all): `--offset N`, `--limit N|all`, and in JSON
 * `total`, `offset` and `next_offset` (null on the last page). Runs the real CLI on 1,050 Claude Code sessions
 * written with the test writer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";

const work = mkdtempSync(join(tmpdir(), "recall-sessions-paging-"));
const claude = join(work, "claude");
const count = 1050;
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The id of the n-th session written; session n ends n hours after the first, so the newest is the last written. */
const idOf = (n: number) => `${String(n).padStart(8, "0")}-0000-4000-8000-000000000000`;

function recall(args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, HOME: work, RECALL_HOME: join(work, "home") };
  for (const key of sourceLocationVariables) delete env[key];
  const result = runCli([...args, "--claude-dir", claude, "--opencode-dir", join(work, "none")], env);
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

interface Listing {
  sessions: Array<{ session_id: string }>;
  total: number;
  offset: number;
  next_offset: number | null;
}

function listJson(args: string[]): Listing {
  const result = recall(["sessions", "--json", "--no-reindex", ...args]);
  expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: "" });
  return JSON.parse(result.stdout);
}

beforeAll(() => {
  mkdirSync(join(work, "none"));
  for (let n = 0; n < count; n++) {
    writeClaudeSession(join(claude, `-home-dev-p${n % 7}`, `${idOf(n)}.jsonl`), {
      sessionId: idOf(n),
      cwd: `/home/dev/p${n % 7}`,
      startMs: Date.UTC(2026, 0, 1) + n * 3_600_000,
      turns: [{ prompt: `task number ${n}`, response: "done" }],
    });
  }
  expect(recall(["index", "--keyword-only"]).code).toBe(0);
}, 120_000);

describe(`recall sessions pages through ${count} sessions (issue 26)`, () => {
  test("a script follows next_offset from 0 to null and gets every session once, newest first", () => {
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: Listing = listJson(["--limit", "400", "--offset", String(offset)]);
      expect(page).toMatchObject({ total: count, offset });
      seen.push(...page.sessions.map((session) => session.session_id));
      offset = page.next_offset;
    }
    expect(seen).toEqual(Array.from({ length: count }, (_, n) => idOf(count - 1 - n)));
  });

  test("the default page is 20 with the next offset; --limit all and a limit over 1,000 list everything", () => {
    const first = listJson([]);
    expect(first.sessions).toHaveLength(20);
    expect(first).toMatchObject({ total: count, offset: 0, next_offset: 20 });
    for (const limit of ["all", "5000"]) {
      const whole = listJson(["--limit", limit]);
      expect({ limit, listed: whole.sessions.length, next: whole.next_offset }).toEqual({
        limit,
        listed: count,
        next: null,
      });
    }
    const last = listJson(["--limit", "100", "--offset", "1000"]);
    expect(last.sessions.map((session) => session.session_id)).toEqual(
      Array.from({ length: 50 }, (_, n) => idOf(49 - n)),
    );
    expect(last.next_offset).toBeNull();
  });

  test("text output says which sessions of how many it shows and gives the next page's command", () => {
    const result = recall(["sessions", "--limit", "2", "--no-reindex"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toStartWith(idOf(count - 1));
    expect(lines[2]).toBe("(sessions 1–2 of 1,050; next page: recall sessions --limit 2 --offset 2)");
    expect(recall(["sessions", "--offset", String(count), "--no-reindex"]).stdout).toBe(
      "No sessions past the first 1,050.\n",
    );
  });

  test("--help gives the defaults, and a limit that is not a count is a usage error", () => {
    const help = recall(["sessions", "--help"]).stdout;
    expect(help).toContain("--offset");
    expect(help).toContain("a number, or all (default 20)");
    for (const bad of ["0", "-3", "2.5", "lots"]) {
      const result = recall(["sessions", "--limit", bad, "--no-reindex"]);
      expect({ bad, code: result.code }).toEqual({ bad, code: 2 });
      expect(result.stderr).toContain(`--limit must be a whole number of at least 1, or all, got ${bad}`);
    }
  });
});
