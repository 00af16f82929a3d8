/**
 * Issue 41: the team archive carries each session's abstract (what its agent wrote about it, and the summary `recall
 * summarize` made) and searches it in the keyword index's fourth column, as local search does. Claude Code sessions are
 * written, indexed with the real indexer and pushed to a real PostgreSQL server the test starts; one of them is then
 * compacted (a compaction summary longer than a listing shows, holding a word nothing else holds) and indexed again.
 * Before any of that, the sessions are pushed to an archive at schema version 5, as a pusher of version 5 wrote them,
 * and `archive init` brings it to version 6.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { searchIndex, type SessionResult, type TurnResult } from "../../src/search/index.ts";
import { type ArchiveConnection, openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { archiveMigrations, initArchive } from "../../src/team-archive/schema.ts";
import { searchArchive } from "../../src/team-archive/search.ts";
import { searchEverywhere } from "../../src/team-archive/everywhere.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";

const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the archive abstract tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-archive-abstracts-"));
const home = join(work, "home");
const claude = join(work, "claude");
const sessions = 12;
const idOf = (n: number) => `${String(n).padStart(8, "0")}-cccc-4000-8000-000000000000`;
const fileOf = (n: number) => join(claude, "projects", `-home-u-p${n % 2}`, `${idOf(n)}.jsonl`);
/**
 * The compacted session, and the compaction summary's text: 900 characters (quotes, backslashes and a blank line
 * among them), its only mention of "zeppelinium".
 */
const compacted = 5;
const compaction =
  `1. Primary request: move the zeppelinium build off the old runner ("ci-7", C:\\ci\\runner).\n\n${fillerText(7, 160)}`.slice(
    0,
    900,
  );

let server: PostgresServer;
const open: ArchiveConnection[] = [];
const connect = async (database: string) => {
  const connection = await openArchive(
    parseArchiveUrl(server.url({ user: "alice", password: "alice-secret", database })),
  );
  open.push(connection);
  return connection;
};
const origin = { machine: "laptop", osUser: "alice" };

/** What an answer ranked: each result's session (and turn), confidence to 4 places and mark, in order. */
const ranking = (results: ReadonlyArray<SessionResult | TurnResult>) =>
  results.map((result) => [
    result.sessionId,
    "turn" in result ? result.turn : null,
    Number(result.confidence.toFixed(4)),
    result.confident,
  ]);

/** The top 5 of `query` at `level` in the local index of `home` and in `archive` (keyword leg only). */
async function bothRankings(archive: ArchiveConnection, query: string, level: "session" | "turn" = "session") {
  const request = { query, level, filters: {}, limit: 5, mode: "keyword" as const };
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    return {
      local: ranking((await searchIndex(db, request)).results),
      archive: ranking((await searchArchive(archive, request)).results),
    };
  } finally {
    db.close();
  }
}

/** Push the local index of `home` to `archive`. */
async function push(archive: ArchiveConnection) {
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    return await pushToArchive(db, archive, { origin, team: "alpha" });
  } finally {
    db.close();
  }
}

/** Append a compaction to a session file, as Claude Code 2.x writes it: the boundary, then the summary line. */
function appendCompaction(file: string, sessionId: string, text: string) {
  const line = (record: Record<string, unknown>) =>
    `${JSON.stringify({ isSidechain: false, userType: "external", cwd: "/home/u/p1", sessionId, version: "2.1.88", gitBranch: "main", ...record })}\n`;
  appendFileSync(
    file,
    line({
      parentUuid: null,
      type: "system",
      subtype: "compact_boundary",
      uuid: "compact-boundary-1",
      timestamp: "2026-03-20T10:00:00.000Z",
      content: "Conversation compacted",
      level: "info",
    }) +
      line({
        parentUuid: "compact-boundary-1",
        type: "user",
        uuid: "compact-summary-1",
        timestamp: "2026-03-20T10:00:01.000Z",
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        message: {
          role: "user",
          content: `This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n${text}\n\nContinue the conversation from where it left off without asking the user any further questions.`,
        },
      }),
  );
}

/** The output of `recall …` as alice (password in PGPASSWORD), on the local index of `home`. */
const recallText = (args: string[]): string => {
  const run = runCli(args, { ...process.env, RECALL_HOME: home, PGPASSWORD: "alice-secret", TZ: "UTC" });
  expect(run.stderr.toString()).toBe("");
  expect(run.exitCode).toBe(0);
  return run.stdout.toString();
};
/** {@link recallText} of a `--json` command, parsed. */
const recall = (args: string[]) => JSON.parse(recallText(args));

/** Queries over the sessions' own words, the compaction's word among them. */
const queries = ["parser", "parser follow", "zeppelinium", "zeppelinium runner", "old runner build", "docker bridge"];

describe.skipIf(skipReason !== undefined)("the team archive carries and searches abstracts (issue 41)", () => {
  beforeAll(async () => {
    for (let n = 0; n < sessions; n++)
      writeClaudeSession(fileOf(n), {
        sessionId: idOf(n),
        cwd: `/home/u/p${n % 2}`,
        startMs: Date.UTC(2026, 2, 1 + n),
        turns: [
          {
            prompt:
              n === 3
                ? "the docker bridge drops packets on the old runner"
                : `${fillerText(n * 10, 10)} about the parser`,
            response: fillerText(n * 10 + 5, 25),
          },
          { prompt: `${fillerText(n * 10 + 2, 8)} follow up`, response: fillerText(n * 10 + 3, 20) },
        ],
      });
    expect((await runIndex({ recallHome: home, roots: { "claude-code": [claude], opencode: [] } })).failedUnits).toBe(
      0,
    );
    server = await startPostgres();
    await server.admin("CREATE ROLE alice LOGIN PASSWORD 'alice-secret'");
    await server.admin("CREATE DATABASE older");
    const owner = await openArchive(parseArchiveUrl(server.url({ database: "older" })));
    open.push(owner);
    // an archive at schema version 5, as recall of that version created it
    await owner.query("CREATE SCHEMA recall");
    await owner.query(
      "CREATE TABLE recall.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    for (const version of [1, 2, 3, 4, 5]) {
      await owner.query(archiveMigrations[version - 1]!);
      await owner.query("INSERT INTO recall.migrations (version) VALUES ($1)", [version]);
    }
    await owner.query("CREATE ROLE recall_team_alpha NOLOGIN");
    await owner.query("GRANT recall_member TO recall_team_alpha");
    await owner.query("INSERT INTO recall.teams (name, role) VALUES ('alpha', 'recall_team_alpha')");
    await server.admin("GRANT recall_team_alpha TO alice");
  }, 120_000);

  afterAll(async () => {
    for (const connection of open) await connection.close();
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test("an archive at schema 5 migrates to 6: its sessions rank as before, and a push sends none of them again", async () => {
    const owner = open[0]!;
    // What a pusher of version 5 wrote: these sessions have no abstract, so this push's rows, posting lists and
    // content hashes are the ones it wrote (the columns of version 6 exist only while it runs).
    const older = await connect("older");
    await owner.query(
      "ALTER TABLE recall.sessions ADD COLUMN abstract jsonb; ALTER TABLE recall.documents ADD COLUMN abstract text NOT NULL DEFAULT ''",
    );
    await owner.query("INSERT INTO recall.migrations (version) VALUES (6)");
    expect(await push(older)).toMatchObject({ sent: sessions });
    const before = [];
    for (const query of queries) before.push(await bothRankings(older, query));
    await owner.query(
      "ALTER TABLE recall.sessions DROP COLUMN abstract; ALTER TABLE recall.documents DROP COLUMN abstract",
    );
    await owner.query("DELETE FROM recall.migrations WHERE version = 6");

    expect(await initArchive(owner, [])).toMatchObject({ applied: [6], version: 6 });
    const after = [];
    for (const query of queries) after.push(await bothRankings(older, query));
    expect(after).toEqual(before);
    for (const { local, archive } of after) expect(archive).toEqual(local);
    expect(before.filter(({ local }) => local.length > 0).length).toBeGreaterThan(3);
    expect(await push(older)).toMatchObject({ sent: 0, unchanged: sessions });
  }, 120_000);

  test("a compacted session is pushed again, and found by its compaction's word as local search finds it", async () => {
    const archive = await connect("older");
    appendCompaction(fileOf(compacted), idOf(compacted), compaction);
    expect((await runIndex({ recallHome: home, roots: { "claude-code": [claude], opencode: [] } })).failedUnits).toBe(
      0,
    );
    expect(await push(archive)).toMatchObject({ sent: 1, unchanged: sessions - 1 });
    const found = await bothRankings(archive, "zeppelinium");
    expect(found.local.map(([sessionId]) => sessionId)).toEqual([idOf(compacted)]);
    expect(found.archive).toEqual(found.local);
    // --everywhere: with the session here, this machine's result; with nothing here, the archive's
    const request = {
      query: "zeppelinium runner",
      level: "session" as const,
      filters: {},
      limit: 5,
      mode: "keyword" as const,
    };
    const empty = join(work, "empty");
    await runIndex({ recallHome: empty, roots: { "claude-code": [], opencode: [] } });
    const db = openIndex(databasePath(home), { readonly: true });
    const nothingHere = openIndex(databasePath(empty), { readonly: true });
    try {
      const both = await searchEverywhere(db, archive, request, {});
      expect(ranking(both.results)).toEqual(ranking((await searchIndex(db, request)).results));
      expect(both.results.find((result) => result.sessionId === idOf(compacted))).toMatchObject({ here: true });
      const elsewhere = await searchEverywhere(nothingHere, archive, request, {});
      expect(ranking(elsewhere.results)).toEqual(ranking((await searchArchive(archive, request)).results));
      expect(elsewhere.results.find((result) => result.sessionId === idOf(compacted))).toMatchObject({ here: false });
    } finally {
      nothingHere.close();
      db.close();
    }
    for (const query of queries)
      for (const level of ["session", "turn"] as const) {
        const { local, archive: remote } = await bothRankings(archive, query, level);
        expect({ query, level, ranking: remote }).toEqual({ query, level, ranking: local });
      }
  }, 120_000);

  test("a summary made (or changed) pushes its session again, the summary first in its abstract", async () => {
    const archive = await connect("older");
    const db = new Database(databasePath(home));
    try {
      const { id } = db.query<{ id: number }, [string]>("SELECT id FROM sessions WHERE session_id = ?").get(idOf(2))!;
      db.query(
        "INSERT INTO summaries (session_rowid, text, backend, model, made_at) VALUES (?, ?, 'local', 'm', ?)",
      ).run(id, "Tuned the quasiturbine parser.", Date.UTC(2026, 3, 1));
    } finally {
      db.close();
    }
    expect(await push(archive)).toMatchObject({ sent: 1 });
    expect(await push(archive)).toMatchObject({ sent: 0 });
    const [row] = await archive.query<{ abstract: unknown }>(
      "SELECT abstract FROM recall.sessions WHERE session_id = $1",
      [idOf(2)],
    );
    expect(row!.abstract).toEqual([
      { source: "summary", text: "Tuned the quasiturbine parser.", at: Date.UTC(2026, 3, 1) },
    ]);
    const answer = await searchArchive(archive, {
      query: "quasiturbine",
      level: "session",
      filters: {},
      mode: "keyword",
    });
    expect(answer.results.map((result) => result.sessionId)).toEqual([idOf(2)]);
  }, 120_000);

  test("sessions --archive, search --archive and show --archive carry the abstract (a listing cuts it, show does not)", () => {
    const url = server.url({ user: "alice", database: "older" });
    const listed = recall(["sessions", "--archive-url", url, "--json", "--limit", "all"]) as {
      sessions: Array<{
        session_id: string;
        archive_id: string;
        abstract: Array<{ source: string; text: string; written_at: string | null }>;
      }>;
    };
    const session = listed.sessions.find((s) => s.session_id === idOf(compacted))!;
    expect(session.abstract).toEqual([
      { source: "compaction", text: `${compaction.slice(0, 599)}…`, written_at: "2026-03-20T10:00:01.000Z" },
    ]);
    expect(listed.sessions.find((s) => s.session_id === idOf(0))!.abstract).toEqual([]);
    const searched = recall([
      "search",
      "zeppelinium",
      "--archive-url",
      url,
      "--no-reindex",
      "--keyword-only",
      "--json",
    ]);
    expect(searched.results.map((result: { session_id: string }) => result.session_id)).toEqual([idOf(compacted)]);
    expect(searched.results[0].abstract).toEqual(session.abstract);
    const shown = recall(["show", "--archive-url", url, "--json", session.archive_id]);
    expect(shown.abstract).toEqual([
      { source: "compaction", text: compaction, written_at: "2026-03-20T10:00:01.000Z" },
    ]);
    // in text: a listing's dim line under the session, show's whole part under its label
    const lines = recallText(["sessions", "--archive-url", url, "--limit", "all"]).split("\n");
    const line = lines.findIndex((text) => text.trimStart().startsWith(`${session.archive_id} `));
    expect(lines[line + 1]!.trim()).toStartWith("compaction summary: 1. Primary request: move the zeppelinium build");
    const text = recallText(["show", "--archive-url", url, session.archive_id]);
    expect(text).toContain(`\ncompaction summary (2026-03-20):\n${compaction}\n`);
  }, 120_000);
});
