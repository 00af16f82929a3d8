import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { UsageError } from "../../src/errors.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import {
  loadDateWords,
  parseDateFilter,
  filterSql,
  parseFilterArgs,
  searchIndex,
  subagentScoreFactor,
  type SearchFilters,
  type SessionResult,
  type TurnResult,
} from "../../src/search/index.ts";

const repo = resolve(import.meta.dir, "../..");
const home = mkdtempSync(join(tmpdir(), "recall-filters-"));
let db: Database;
beforeAll(async () => {
  await runIndex({
    recallHome: home,
    roots: { "claude-code": [join(repo, "examples/claude-code")], opencode: [join(repo, "examples/opencode")] },
  });
  db = openIndex(databasePath(home), { readonly: true });
});
afterAll(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

/** A broad query that matches most example sessions, so filters have something to remove. */
const broad = "fix the error in the test and the config";
const sessions = async (filters: SearchFilters, limit = 50) =>
  (await searchIndex(db, { query: broad, level: "session", filters, limit, mode: "keyword" }))
    .results as SessionResult[];
const turns = async (filters: SearchFilters, limit = 100) =>
  (await searchIndex(db, { query: broad, level: "turn", filters, limit, mode: "keyword" })).results as TurnResult[];

describe("search filters", () => {
  test("the broad query finds sessions across several projects and both sources without filters", async () => {
    const all = await sessions({});
    expect(new Set(all.map((s) => s.project)).size).toBeGreaterThan(3);
    expect(new Set(all.map((s) => s.source))).toEqual(new Set(["claude-code", "opencode"]));
  });

  test("--project keeps only projects whose path or name contains the text, at both levels", async () => {
    const level1 = await sessions({ project: "SHOP" });
    expect(level1.length).toBeGreaterThan(1);
    for (const s of level1) expect(s.projectPath.toLowerCase()).toContain("shop");
    for (const t of await turns({ project: "shop-api" })) expect(t.project).toBe("shop-api");
  });

  test("--source, --branch and --since/--until narrow the sessions", async () => {
    for (const s of await sessions({ source: "opencode" })) expect(s.source).toBe("opencode");
    const onBranch = await sessions({ branch: "main" });
    expect(onBranch.map((s) => s.sessionId).sort()).toEqual([
      "938e69b8-d823-4d86-8dca-2ae00303666c",
      "f7dd9101-a59e-4327-a0b0-db9c860b0a97",
    ]);
    const since = parseDateFilter("2026-03-01");
    for (const s of await sessions({ since })) expect(s.endedAt).toBeGreaterThanOrEqual(since);
    const until = parseDateFilter("2026-02-10", Date.now(), true);
    const early = await sessions({ until });
    expect(early.length).toBeGreaterThan(0);
    for (const s of early) expect(s.startedAt).toBeLessThanOrEqual(until);
    for (const t of await turns({ since })) expect(t.timestamp).toBeGreaterThanOrEqual(since);
  });

  test("a turn without a recorded time passes no date filter at level 2 (the dated ones still do)", async () => {
    const copy = mkdtempSync(join(tmpdir(), "recall-filters-untimed-"));
    try {
      await runIndex({
        recallHome: copy,
        roots: { "claude-code": [join(repo, "examples/claude-code")], opencode: [join(repo, "examples/opencode")] },
      });
      const writable = openIndex(databasePath(copy));
      const search = async (filters: SearchFilters) =>
        (
          (await searchIndex(writable, { query: broad, level: "turn", filters, limit: 100, mode: "keyword" }))
            .results as TurnResult[]
        ).map((t) => `${t.sessionId}#${t.turn}`);
      try {
        const [first] = await search({});
        const [sessionId, turn] = first!.split("#");
        writable.run(
          "UPDATE turns SET timestamp = 0 WHERE number = ? AND session_rowid = (SELECT id FROM sessions WHERE session_id = ?)",
          [Number(turn), sessionId!],
        );
        const forever = Date.now() + 365 * 86_400_000;
        expect(await search({})).toContain(first!);
        expect(await search({ until: forever })).not.toContain(first!);
        expect(await search({ since: 1, until: forever })).not.toContain(first!);
        expect((await search({ until: forever })).length).toBeGreaterThan(10); // the dated turns stay
      } finally {
        writable.close();
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test("sub-agent sessions are hidden by default and down-ranked, not hidden, with includeSubagents", async () => {
    const query = "find websocket cleanup gaps";
    const hidden = (await searchIndex(db, { query, level: "session", filters: {}, mode: "keyword" }))
      .results as SessionResult[];
    expect(hidden.some((s) => s.isSubagent)).toBe(false);
    const shown = (
      await searchIndex(db, { query, level: "session", filters: { includeSubagents: true }, mode: "keyword" })
    ).results as SessionResult[];
    const subagent = shown.find((s) => s.isSubagent);
    expect(subagent?.parentSessionId).toBe("7a5e3b10-8c95-4851-9e9b-75de80faf166");
    // Keyword mode: the fused score is the keyword score, times the sub-agent factor, which is 0.85 (README): written
    // out, so a factor of 1 (no down-rank at all) fails here (issue 39: that mutation survived).
    expect(subagentScoreFactor).toBe(0.85);
    expect(subagent!.score).toBeCloseTo((subagent!.keywordScore ?? 0) * 0.85, 5);
    expect(subagent!.score).toBeLessThan(subagent!.keywordScore ?? 0);
  });

  test("dates: ISO days, ISO times, relative ages; anything else is a usage error", () => {
    const now = Date.UTC(2026, 10, 21, 12, 0, 0);
    expect(parseDateFilter("7d", now)).toBe(now - 7 * 86_400_000);
    expect(parseDateFilter("2w", now)).toBe(now - 14 * 86_400_000);
    expect(parseDateFilter("12h", now)).toBe(now - 12 * 3_600_000);
    expect(parseDateFilter("2026-03-01")).toBe(new Date(2026, 2, 1).getTime());
    expect(parseDateFilter("2026-03-01", now, true)).toBe(new Date(2026, 2, 2).getTime() - 1);
    expect(parseDateFilter("2026-03-01T10:30:00Z")).toBe(Date.UTC(2026, 2, 1, 10, 30));
    for (const bad of ["soonish", "7", "2026-13-45", "d7"]) expect(() => parseDateFilter(bad, now)).toThrow(UsageError);
  });

  test("dates in words, as a query names them, once the date reader is loaded (issue 26): the start, or the end", async () => {
    await loadDateWords();
    const now = new Date(2026, 10, 23, 15, 0).getTime(); // Monday, local time
    expect(parseDateFilter("yesterday", now)).toBe(new Date(2026, 10, 22).getTime());
    expect(parseDateFilter("yesterday", now, true)).toBe(new Date(2026, 10, 23).getTime() - 1);
    expect(parseDateFilter("last week", now)).toBe(new Date(2026, 10, 16).getTime());
    expect(parseDateFilter("3 days ago", now)).toBe(new Date(2026, 10, 20).getTime());
    for (const bad of ["yesterday-ish", "before christmas", "soon"])
      expect(() => parseDateFilter(bad, now)).toThrow(/cannot read the date/);
  });

  test("a bare date is a day in the local time zone, as text output prints it (issue 15); a daylight-saving day is 23 h", () => {
    const saved = process.env.TZ;
    try {
      process.env.TZ = "America/New_York";
      expect(parseDateFilter("2026-03-01")).toBe(Date.UTC(2026, 2, 1, 5)); // EST, UTC-5
      expect(parseDateFilter("2026-07-01")).toBe(Date.UTC(2026, 6, 1, 4)); // EDT, UTC-4
      expect(parseDateFilter("2026-03-08", Date.now(), true) - parseDateFilter("2026-03-08") + 1).toBe(23 * 3_600_000);
      expect(parseDateFilter("2026-03-01T10:30")).toBe(Date.UTC(2026, 2, 1, 15, 30)); // no offset: local
      expect(parseDateFilter("2026-03-01T10:30:00Z")).toBe(Date.UTC(2026, 2, 1, 10, 30));
      process.env.TZ = "Asia/Kolkata";
      expect(parseDateFilter("2026-03-01")).toBe(Date.UTC(2026, 1, 28, 18, 30));
      expect(() => parseDateFilter("2026-02-29")).toThrow(UsageError);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});

describe("dates that are not in the calendar, and ranges that end before they start (issue 15)", () => {
  test("a day that does not exist is a usage error, not rolled over", () => {
    expect(() => parseDateFilter("2026-02-30")).toThrow(/"2026-02-30" is not a date in the calendar/);
    expect(() => parseDateFilter("2026-13-01")).toThrow(/not a date in the calendar/);
    expect(() => parseDateFilter("2026-02-30T10:00:00Z")).toThrow(/not a date in the calendar/);
    expect(parseDateFilter("2028-02-29")).toBe(Date.UTC(2028, 1, 29));
    expect(parseDateFilter("2026-03-01T00:30:00+02:00")).toBe(Date.UTC(2026, 1, 28, 22, 30));
  });

  test("--since after --until is a usage error naming both", () => {
    expect(() => parseFilterArgs({ since: "2026-03-02", until: "2026-03-01" })).toThrow(
      "--since 2026-03-02 is after --until 2026-03-01",
    );
    expect(parseFilterArgs({ since: "2026-03-01", until: "2026-03-01" }).until).toBe(
      Date.UTC(2026, 2, 1) + 86_400_000 - 1,
    );
  });
});

describe("--project as a substring (filterSql)", () => {
  /** Project paths and names with LIKE's wildcards, its escape character, case and letters outside ASCII. */
  const projects: Array<[string, string]> = [
    ["/home/u/Shop-API", "Shop-API"],
    ["/home/u/shop_api", "shop_api"],
    ["/srv/100%", "100%"],
    ["/srv/a\\b", "a\\b"],
    ["/srv/Émile", "Émile"],
    ["/srv/émile", "émile"],
    ["/srv/KELVIN", "KELVIN"],
    ["/srv/weird_%_name", "weird_%_name"],
    ["/srv/abc", "abc"],
    ['/srv/it\'s "quoted"', 'it\'s "quoted"'],
    ["", ""],
  ];
  const memory = new Database(":memory:");
  memory.exec(
    "CREATE TABLE sessions (id INTEGER PRIMARY KEY, project_path TEXT, project_name TEXT, is_subagent INTEGER)",
  );
  for (const [path, name] of projects)
    memory.query("INSERT INTO sessions (project_path, project_name, is_subagent) VALUES (?, ?, 0)").run(path, name);
  /** What the filter means: the needle, lower-cased, inside the path or the name with their ASCII letters lower-cased. */
  const expected = (project: string) =>
    projects.flatMap(([path, name], i) => {
      const folded = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
      const needle = project.toLowerCase();
      return folded(path).includes(needle) || folded(name).includes(needle) ? [i + 1] : [];
    });
  const kept = (project: string) => {
    const filter = filterSql({ project });
    return memory
      .query<{ id: number }, Array<string | number>>(`SELECT id FROM sessions s WHERE ${filter.where} ORDER BY id`)
      .all(...filter.params)
      .map((row) => row.id);
  };

  test("wildcards, the escape character and quotes are plain text; ASCII letters match in either case, others exactly", () => {
    const needles = [
      "shop",
      "SHOP-api",
      "_",
      "%",
      "\\",
      "a\\b",
      "_%_",
      "100%",
      "émile",
      "Émile",
      "é",
      "kelvin",
      "c",
      "/",
      "'",
      'it\'s "QUOTED"',
      "'); DROP TABLE sessions; --",
    ];
    for (const needle of needles) expect({ needle, kept: kept(needle) }).toEqual({ needle, kept: expected(needle) });
    expect(kept("%")).toEqual([3, 8]); // not every session: `%` is a character here
    expect(kept("_")).toEqual([2, 8]);
    expect(kept("'")).toEqual([10]); // a quote is text too: bound as a parameter, never SQL
    expect(memory.query("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: projects.length });
  });

  test("a needle longer than SQLite's LIKE pattern limit is still answered (no 'pattern too complex')", () => {
    for (const length of [49_998, 60_000]) {
      expect(kept("a".repeat(length))).toEqual([]);
      expect(kept(`${"%".repeat(length / 2)}`)).toEqual([]);
    }
  });
});
