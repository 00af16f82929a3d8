/**
 * `recall sessions --archive [URL]` (issue 30) through the real CLI against a real PostgreSQL server the test starts
 * (test/helpers/postgres.ts): the archive's sessions newest first with the local listing's filters and paging, each
 * naming who pushed it and from where; a member of another team sees nothing; no archive or a wrong password is one
 * clear line. The local listing of the same index is the reference: same filters, same sessions, same order.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";
import { isolatedEnv } from "../mcp/helpers.ts";
import { runCli } from "../helpers/cli.ts";

const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the archive listing tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-archive-listing-"));
const home = join(work, "home");
const recallHome = join(work, "recall-home");
const claude = join(work, "claude");
const idOf = (n: number) => `${String(n).padStart(8, "0")}-bbbb-4000-8000-000000000000`;
const day = (n: number) => Date.UTC(2026, 2, 1 + n, 10, 0, 0);
/** 9 sessions with turns, one a day from 2026-03-01: projects shop and api in turn, branch feature every third. */
const count = 9;
let server: PostgresServer;

interface Listed {
  archive_id: string;
  session_id: string;
  source: string;
  project: string;
  git_branch: string | null;
  ended_at: string;
  turns: number;
  team: string;
  pushed_by: string;
  machine: string;
  os_user: string;
}
interface ListingJson {
  version: number;
  archive: string;
  sessions: Listed[];
  empty_sessions_hidden: number;
  total: number;
  offset: number;
  next_offset: number | null;
}

/** Run `bun src/cli.ts …` as `user` (password in PGPASSWORD, as a member would), with a fresh settings folder. */
function recall(args: string[], password = "alice-secret") {
  const env = isolatedEnv(home, recallHome, { PGPASSWORD: password, TZ: "UTC" });
  delete env.RECALL_ARCHIVE_URL;
  const { exitCode: code, stdout, stderr } = runCli([...args], env);
  return { code, stdout, stderr };
}
const urlOf = (user: string) => server.url({ user });
const listing = (args: string[], user = "alice", password = `${user}-secret`): ListingJson => {
  const result = recall(["sessions", "--archive-url", urlOf(user), "--json", ...args], password);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as ListingJson;
};
const localIds = (args: string[]): string[] => {
  const result = recall(["sessions", "--json", "--no-reindex", "--limit", "all", ...args]);
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { sessions: Array<{ session_id: string }> }).sessions.map((s) => s.session_id);
};

describe.skipIf(skipReason !== undefined)("issue 30: recall sessions --archive", () => {
  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    for (let n = 0; n < count; n++) {
      const project = n % 2 === 0 ? "shop" : "api";
      writeClaudeSession(join(claude, `-home-u-${project}`, `${idOf(n)}.jsonl`), {
        sessionId: idOf(n),
        cwd: `/home/u/${project}`,
        gitBranch: n % 3 === 0 ? "feature" : "main",
        startMs: day(n),
        title: `session number ${n}`,
        turns: Array.from({ length: 1 + (n % 3) }, (_, t) => ({ prompt: `prompt ${t} of ${n}`, response: "done" })),
      });
    }
    // Only a summary line: a session without turns (formats.md §1.1), hidden and counted as locally.
    writeFileSync(
      join(claude, "-home-u-shop", "99999999-bbbb-4000-8000-000000000000.jsonl"),
      '{"type":"summary","summary":"Only a summary","leafUuid":"x"}\n',
    );
    const summary = await runIndex({ recallHome, roots: { "claude-code": [claude], opencode: [] } });
    expect(summary.failedUnits).toBe(0);
    server = await startPostgres();
    const admin = await openArchive(parseArchiveUrl(server.url()));
    try {
      await initArchive(admin, ["alpha", "beta"]);
    } finally {
      await admin.close();
    }
    for (const [role, team] of [
      ["alice", "alpha"],
      ["bob", "beta"],
    ] as const) {
      await server.admin(`CREATE ROLE ${role} LOGIN PASSWORD '${role}-secret'`);
      await server.admin(`GRANT recall_team_${team} TO ${role}`);
    }
    const db = openIndex(databasePath(recallHome), { readonly: true });
    const alice = await openArchive(parseArchiveUrl(server.url({ user: "alice", password: "alice-secret" })));
    try {
      const pushed = await pushToArchive(db, alice, { origin: { machine: "laptop", osUser: "alice" } });
      expect(pushed.sent).toBe(count + 1);
    } finally {
      await alice.close();
      db.close();
    }
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test("--json lists every archived session newest first, with the local fields, the origin and the archive id", () => {
    const json = listing([]);
    expect(json).toMatchObject({ version: 1, total: count, offset: 0, next_offset: null, empty_sessions_hidden: 1 });
    expect(json.archive).toBe(urlOf("alice"));
    expect(json.sessions.map((s) => s.session_id)).toEqual(localIds([]));
    expect(json.sessions[0]).toMatchObject({
      session_id: idOf(count - 1),
      source: "claude-code",
      project: "shop",
      project_path: "/home/u/shop",
      title: `session number ${count - 1}`,
      git_branch: "main",
      turns: 3,
      is_subagent: false,
      team: "alpha",
      pushed_by: "alice",
      machine: "laptop",
      os_user: "alice",
    });
    expect(json.sessions[0]!.archive_id).toMatch(/^\d+$/);
    expect(Date.parse(json.sessions[0]!.ended_at)).toBeGreaterThan(Date.parse(json.sessions[1]!.ended_at));
    // the archive id is what show --archive reads
    const shown = recall(["show", "--archive-url", urlOf("alice"), "--json", json.sessions[0]!.archive_id]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).session_id).toBe(idOf(count - 1));
  }, 60_000);

  test("each filter selects the sessions the local listing selects, in the same order", () => {
    for (const filters of [
      ["--project", "shop"],
      ["--branch", "feature"],
      ["--source", "claude-code"],
      ["--since", "2026-03-04", "--until", "2026-03-06"],
      ["--project", "api", "--branch", "main"],
    ]) {
      const json = listing(filters);
      const expected = localIds(filters);
      expect(expected.length).toBeGreaterThan(0);
      expect(json.sessions.map((s) => s.session_id)).toEqual(expected);
      expect(json.total).toBe(expected.length);
    }
    expect(listing(["--project", "nowhere"])).toMatchObject({ sessions: [], total: 0, next_offset: null });
  }, 60_000);

  test("--limit and --offset page through the whole listing; --include-empty lists the session without turns", () => {
    const all = listing([]).sessions.map((s) => s.session_id);
    const pages: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = listing(["--limit", "4", "--offset", String(offset)]);
      expect(page.offset).toBe(offset);
      expect(page.total).toBe(count);
      pages.push(...page.sessions.map((s) => s.session_id));
      offset = page.next_offset;
    }
    expect(pages).toEqual(all);
    expect(listing(["--limit", "all"]).sessions).toHaveLength(count);
    expect(listing(["--offset", "100"])).toMatchObject({ sessions: [], total: count, next_offset: null });
    const withEmpty = listing(["--include-empty", "--limit", "all"]);
    expect(withEmpty).toMatchObject({ total: count + 1, empty_sessions_hidden: 0 });
    expect(withEmpty.sessions.find((s) => s.turns === 0)?.session_id).toBe("99999999-bbbb-4000-8000-000000000000");
  }, 60_000);

  test("text output names who pushed each session and from where, and the next page keeps --archive without a password", () => {
    // `--archive <url>` (app.ts moves the URL to --archive-url)
    const result = recall(["sessions", "--archive", urlOf("alice"), "--limit", "2"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    const ids = listing([]).sessions.map((s) => s.archive_id);
    expect(lines[0]).toMatch(
      new RegExp(
        `^ *${ids[0]} +claude-code +shop +2026-03-0\\d +3 turns +session number 8 +by alice@laptop, team alpha$`,
      ),
    );
    expect(lines[1]).toContain("by alice@laptop, team alpha");
    expect(lines[2]).toBe(
      `(sessions 1–2 of ${count}; next page: recall sessions --archive ${urlOf("alice")} --limit 2 --offset 2)`,
    );
    expect(lines[3]).toBe("(1 session without any turn not listed: --include-empty lists it)");
    expect(lines[4]).toBe("(read one: recall show --archive <first column>)");
    expect(result.stdout).not.toContain("alice-secret");
  }, 60_000);

  test("a member of another team sees nothing (row-level security), and says so", () => {
    expect(listing(["--include-empty"], "bob")).toMatchObject({ sessions: [], total: 0, empty_sessions_hidden: 0 });
    const text = recall(["sessions", "--archive-url", urlOf("bob")], "bob-secret");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("No sessions in the archive");
  }, 60_000);

  test("no archive set up, or a wrong password, is one clear line on stderr", () => {
    const none = recall(["sessions", "--archive"]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("no team archive is set up");
    const wrong = recall(["sessions", "--archive-url", urlOf("alice")], "not-the-password");
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe("");
    expect(wrong.stderr).toContain("refused the login");
    expect(wrong.stderr).not.toContain("    at ");
  }, 60_000);
});
