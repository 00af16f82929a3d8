/**
 * `--since`/`--until`/`--before` take the words a query's dates are read from (issue 26: `--since yesterday` was
 * refused though the query parser knew "yesterday"), in local time, for search, sessions, export, forget and the MCP
 * tools; `forget --before DATE` reads the day as `--since` does (local midnight, a daylight-saving day is 23 h).
 * Spawns the real CLI and MCP server on Claude Code files written with the test writer, under TZ=America/New_York.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { call, connectStdio, fromSource, isolatedEnv } from "../mcp/helpers.ts";
import { runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-date-flags-"));
const timeZone = "America/New_York";
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Local midnight (in `timeZone`) starting the day `days` from today, whatever zone the test process runs in. */
function newYorkMidnight(days: number): number {
  const dateOf = (at: number) =>
    new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
  const hourOf = (at: number) =>
    Number(new Intl.DateTimeFormat("en-US", { timeZone, hour: "numeric", hourCycle: "h23" }).format(at));
  const [year, month, day] = dateOf(Date.now()).split("-").map(Number) as [number, number, number];
  const utcMidnight = Date.UTC(year, month - 1, day + days);
  // New York is 4 (EDT) or 5 (EST) hours behind UTC: the one whose local time is 00:00 of that day.
  const target = new Date(utcMidnight).toISOString().slice(0, 10);
  const at = [4, 5]
    .map((hours) => utcMidnight + hours * 3_600_000)
    .find((t) => hourOf(t) === 0 && dateOf(t) === target);
  if (at === undefined) throw new Error(`no New York midnight on ${target}`);
  return at;
}

const ids = {
  today: "aaaaaaaa-0000-4000-8000-000000000001",
  yesterday: "aaaaaaaa-0000-4000-8000-000000000002",
  lastMonth: "aaaaaaaa-0000-4000-8000-000000000003",
  // Around 8 March 2026, the day New York moves its clocks forward (23 hours long).
  beforeDst: "bbbbbbbb-0000-4000-8000-000000000001", // ends 7 Mar 23:30 EST = 8 Mar 04:30 UTC
  dstDayLate: "bbbbbbbb-0000-4000-8000-000000000002", // ends 8 Mar 23:30 EDT = 9 Mar 03:30 UTC
  afterDst: "bbbbbbbb-0000-4000-8000-000000000003", // ends 9 Mar 00:30 EDT = 9 Mar 04:30 UTC
  undated: "cccccccc-0000-4000-8000-000000000001", // its lines carry no timestamp
};
const claude = join(work, "claude");

beforeAll(() => {
  mkdirSync(join(work, "none"));
  // A one-turn session's last line is 2 s after its start.
  const session = (id: string, endMs: number) =>
    writeClaudeSession(join(claude, "-home-dev-dates", `${id}.jsonl`), {
      sessionId: id,
      cwd: "/home/dev/dates",
      startMs: endMs - 2000,
      turns: [{ prompt: `pelican migration notes ${id.slice(0, 8)}`, response: "noted" }],
    });
  session(ids.today, newYorkMidnight(0) + 2000);
  session(ids.yesterday, newYorkMidnight(-1) + 18 * 3_600_000);
  session(ids.lastMonth, newYorkMidnight(-40));
  session(ids.beforeDst, Date.parse("2026-03-08T04:30:00Z"));
  session(ids.dstDayLate, Date.parse("2026-03-09T03:30:00Z"));
  session(ids.afterDst, Date.parse("2026-03-09T04:30:00Z"));
  const undated = join(claude, "-home-dev-dates", `${ids.undated}.jsonl`);
  session(ids.undated, Date.parse("2026-01-01T00:00:00Z"));
  const lines = readFileSync(undated, "utf8").trim().split("\n");
  const withoutTime = lines.map((line) => {
    const { timestamp: _, ...record } = JSON.parse(line);
    return JSON.stringify(record);
  });
  writeFileSync(undated, `${withoutTime.join("\n")}\n`);
});

const sources = () => ["--claude-dir", claude, "--opencode-dir", join(work, "none")];

function recall(args: string[]) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: work,
    RECALL_HOME: join(work, "home"),
    TZ: timeZone,
  };
  for (const key of sourceLocationVariables) delete env[key];
  const { exitCode: code, stdout, stderr } = runCli([...args, ...sources()], env);
  return { code, stdout, stderr };
}

/** The session ids `recall sessions --json <args>` lists, sorted. */
function listed(args: string[]): string[] {
  const result = recall(["sessions", "--json", ...args]);
  expect({ args, code: result.code, stderr: result.code === 0 ? "" : result.stderr }).toEqual({
    args,
    code: 0,
    stderr: "",
  });
  return JSON.parse(result.stdout)
    .sessions.map((session: { session_id: string }) => session.session_id)
    .sort();
}

describe("date words in --since/--until (issue 26)", () => {
  test("sessions --since yesterday / --until yesterday / --since '3 days ago' read the local days the words name", () => {
    expect(listed(["--since", "yesterday"])).toEqual([ids.today, ids.yesterday]);
    expect(listed(["--until", "yesterday", "--since", "2 months ago"])).toEqual([ids.yesterday, ids.lastMonth].sort());
    expect(listed(["--since", "3 days ago"])).toEqual([ids.today, ids.yesterday]);
    expect(listed(["--since", "today"])).toEqual([ids.today]);
  });

  test("search, export and forget take the same words", () => {
    const search = recall(["search", "pelican migration", "--since", "yesterday", "--json", "--limit", "10"]);
    expect(search.code).toBe(0);
    const found = JSON.parse(search.stdout).results.map((result: { session_id: string }) => result.session_id);
    expect(found.sort()).toEqual([ids.today, ids.yesterday]);
    const exported = recall(["export", "--since", "yesterday"]);
    expect(exported.code).toBe(0);
    expect(exported.stdout.trim().split("\n")).toHaveLength(2);
    const forget = recall(["forget", "--before", "last week", "--dry-run", "--json"]);
    expect(forget.code).toBe(0);
    const doomed = JSON.parse(forget.stdout).forgotten.map((session: { session_id: string }) => session.session_id);
    expect(doomed).toContain(ids.lastMonth);
    expect(doomed).not.toContain(ids.yesterday);
  });

  test("a value that is no date is a usage error that lists the accepted forms", () => {
    for (const command of [["sessions"], ["search", "pelican"], ["export"]]) {
      const result = recall([...command, "--since", "soonish"]);
      expect({ command, code: result.code }).toEqual({ command, code: 2 });
      expect(result.stderr).toContain('recall: cannot read the date "soonish"');
      for (const form of ["2026-03-01", "7d", "yesterday", "last week", "3 days ago"])
        expect(result.stderr).toContain(form);
    }
    expect(recall(["sessions", "--since", "yesterday-ish"]).code).toBe(2);
  });

  test("the MCP tools read the same words (their server loads the date reader at start)", async () => {
    const server = await connectStdio(
      [...fromSource, "mcp", "--no-watch", ...sources()],
      isolatedEnv(work, join(work, "home"), { TZ: timeZone }),
    );
    try {
      const result = await call(server.client, "list_sessions", { since: "yesterday" });
      expect(result.isError).toBeFalsy();
      const sessions = (result.structuredContent as { results: Array<{ session_id: string }> }).results;
      expect(sessions.map((session) => session.session_id).sort()).toEqual([ids.today, ids.yesterday]);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("forget --before reads a local day, as --since does (issue 26)", () => {
  test("--before 2026-03-09 is New York's midnight starting 9 March, after the 23-hour DST day; --until ends that day", () => {
    const doomed = (before: string) =>
      JSON.parse(recall(["forget", "--before", before, "--dry-run", "--json"]).stdout)
        .forgotten.map((session: { session_id: string }) => session.session_id)
        .filter((id: string) => id.startsWith("bbbbbbbb"))
        .sort();
    expect(doomed("2026-03-08")).toEqual([ids.beforeDst]);
    expect(doomed("2026-03-09")).toEqual([ids.beforeDst, ids.dstDayLate]);
    // The same day boundaries as --since/--until: the 8th is 23 hours long, so 9 March 00:30 EDT is not in it.
    expect(listed(["--since", "2026-03-08", "--until", "2026-03-08"])).toEqual([ids.dstDayLate]);
  });

  test("a session with no date is not 'before' any date: --before leaves it, naming it by id forgets it (issue 38, item 17)", () => {
    const doomed = (args: string[]) =>
      JSON.parse(recall(["forget", ...args, "--dry-run", "--json"]).stdout).forgotten.map(
        (session: { session_id: string; ended_at: string | null }) => session.session_id,
      );
    expect(listed(["--include-empty"])).toContain(ids.undated);
    expect(doomed(["--before", "2100-01-01"])).not.toContain(ids.undated);
    expect(doomed(["--before", "2100-01-01"])).toContain(ids.lastMonth);
    expect(doomed([ids.undated])).toEqual([ids.undated]);
    // --undo --before reads the tombstones the same way
    expect(recall(["forget", ids.undated]).code).toBe(0);
    const undone = (args: string[]) =>
      JSON.parse(recall(["forget", "--undo", ...args, "--json"]).stdout).unforgotten.map(
        (session: { session_id: string }) => session.session_id,
      );
    expect(undone(["--before", "2100-01-01"])).toEqual([]);
    expect(undone([ids.undated])).toEqual([ids.undated]);
  });

  test("its help says it is a local day, not UTC", () => {
    const help = recall(["forget", "--help"]).stdout;
    expect(help).not.toContain("UTC");
    expect(help).toContain("local day");
  });
});
