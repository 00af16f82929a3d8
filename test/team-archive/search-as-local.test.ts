/**
 * The team archive's search answers as local search does (issue 38), on the same real session: indexed with the real
 * indexer, pushed to a real PostgreSQL server the test starts (test/helpers/postgres.ts), searched in both.
 * Item 5: a result's preview shows the prompt and reply when they hold the query's words (search/reading/preview.ts
 * makeDocumentPreview), not the tool lines where the query words cluster densest (`…Bash rg -n "PodGroup.*not found|…`).
 * Item 16: a query with no visible characters (spaces, zero-width characters, invalid UTF-8) is local search's one
 * usage error (search/ranking/query.ts requireQueryText), not a search for nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UsageError } from "../../src/errors.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { type SessionResult, searchIndex } from "../../src/search/index.ts";
import { type ArchiveConnection, openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { searchArchive } from "../../src/team-archive/search.ts";
import { podGroupSession } from "../fixtures/podgroup-session.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";

const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the archive-as-local search tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-archive-preview-"));
const home = join(work, "home");
afterAll(() => rmSync(work, { recursive: true, force: true }));
const session = podGroupSession;
/** What the usage error a search rejects with says (code, message, hint, exit code), or "answered" when it does not. */
const usageErrorOf = (search: Promise<unknown>) =>
  search.then(
    () => "answered",
    (error: UsageError) => ({ code: error.code, message: error.message, hint: error.hint, exitCode: error.exitCode }),
  );
let server: PostgresServer;
let db: Database;
let alice: ArchiveConnection;

describe.skipIf(skipReason !== undefined)("the archive's search answers as local search (issue 38)", () => {
  beforeAll(async () => {
    mkdirSync(join(work, "no-opencode"));
    writeClaudeSession(join(work, "claude", "-home-dev-volcano", `${session.sessionId}.jsonl`), session);
    const summary = await runIndex({
      recallHome: home,
      roots: { "claude-code": [join(work, "claude")], opencode: [join(work, "no-opencode")] },
    });
    expect(summary.failedUnits).toBe(0);
    db = openIndex(databasePath(home), { readonly: true });
    server = await startPostgres();
    const admin = await openArchive(parseArchiveUrl(server.url()));
    try {
      await initArchive(admin, ["alpha"]);
    } finally {
      await admin.close();
    }
    await server.admin("CREATE ROLE alice LOGIN PASSWORD 'alice-secret'");
    await server.admin("GRANT recall_team_alpha TO alice");
    alice = await openArchive(parseArchiveUrl(server.url({ user: "alice", password: "alice-secret" })));
    expect((await pushToArchive(db, alice, { origin: { machine: "laptop", osUser: "alice" } })).sent).toBe(1);
  }, 120_000);

  afterAll(async () => {
    await alice?.close();
    db?.close();
    await server?.stop();
  });

  test('item 5: a search for "PodGroup not found" previews the reply, not the rg command, as local search does', async () => {
    const request = { query: "PodGroup not found", level: "session" as const, filters: {} };
    const [hit] = (await searchArchive(alice, request)).results as SessionResult[];
    expect(hit?.sessionId).toBe(session.sessionId);
    expect(hit!.preview.text).toContain("the webhook creates the pod before its PodGroup exists");
    expect(hit!.preview.text).not.toContain("rg -n");
    const [local] = (await searchIndex(db, { ...request, mode: "keyword" })).results as SessionResult[];
    expect(hit!.preview).toEqual(local!.preview);
  }, 60_000);

  test("item 16: a query of spaces, zero-width characters or invalid UTF-8 only is local search's usage error", async () => {
    for (const query of ["   ", "\u200b\u200b", " \u200b\ufeff\u2060 ", "\ufffd"])
      for (const level of ["session", "turn"] as const) {
        const request = { query, level, filters: {} };
        const [localError, archiveError] = [
          await usageErrorOf(searchIndex(db, { ...request, mode: "keyword" })),
          await usageErrorOf(searchArchive(alice, request)),
        ];
        expect(localError).toMatchObject({
          code: "USAGE",
          message: "the search query is empty: it has no visible characters",
        });
        expect(archiveError).toEqual(localError);
      }
  }, 60_000);
});
