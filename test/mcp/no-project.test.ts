/**
 * Issue 38, item 18: a session whose tool recorded no project folder is `(no project)` in every MCP answer, as in the
 * CLI (render/format.ts projectLabel), never `?`. The session is a Codex prompt history whose thread has no rollout
 * (no folder), served by the real `recall mcp` over stdio; the team archive's answers are checked on a real
 * PostgreSQL server the test starts (test/helpers/postgres.ts), skipped when PostgreSQL is not installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";
import { type Connection, call, connectStdio, fromSource, isolatedEnv, textOf } from "./helpers.ts";

const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the archive half of the (no project) MCP tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-mcp-no-project-"));
const home = join(work, "home");
const codexHome = join(work, "codex");
const empty = join(work, "empty");
const recallHome = join(work, "recall-home");
const sessionId = "019c0000-eeee-7000-8000-00000000000e";
const sourceFlags = ["--codex-dir", codexHome, "--claude-dir", empty, "--opencode-dir", empty];

/** A project slot that is only a stand-in: ` ? ` between fields, or `· ?` ending the read_turns header's field. */
const standIn = / \?( |$)|· \? ·/m;

const serve = (extra: Record<string, string> = {}) => {
  const env = isolatedEnv(home, recallHome, { TZ: "UTC", ...extra });
  if (!("RECALL_ARCHIVE_URL" in extra)) delete env.RECALL_ARCHIVE_URL;
  return connectStdio([...fromSource, "mcp", "--no-watch", ...sourceFlags], env, home);
};

let local: Connection;

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  mkdirSync(empty);
  mkdirSync(join(codexHome, "sessions"), { recursive: true });
  // A Codex prompt history naming a thread with no rollout left: a session of typed prompts, with no folder.
  writeFileSync(
    join(codexHome, "history.jsonl"),
    `{"session_id":"${sessionId}","ts":1772337600,"text":"what was the release plan?"}\n`,
  );
  const summary = await runIndex({
    recallHome,
    roots: { codex: [codexHome], "claude-code": [empty], opencode: [empty] },
  });
  expect(summary.failedUnits).toBe(0);
  local = await serve();
}, 120_000);

afterAll(async () => {
  await local?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("issue 38, item 18: a session without a project in the MCP answers", () => {
  test("search, list_sessions, recent, timeline and read_turns name it (no project), never ?", async () => {
    const answers = [
      await call(local.client, "search", { query: "release plan" }),
      await call(local.client, "search", { query: "release plan", format: "full" }),
      await call(local.client, "search", { query: "release plan", depth: 2 }),
      await call(local.client, "list_sessions", {}),
      await call(local.client, "list_sessions", { format: "full" }),
      await call(local.client, "recent", {}),
      await call(local.client, "timeline", { anchor: `${sessionId}:1` }),
      await call(local.client, "read_turns", { session: sessionId }),
    ];
    for (const answer of answers) {
      expect(answer.isError).toBeFalsy();
      expect(textOf(answer)).toContain("(no project)");
      expect(textOf(answer)).not.toMatch(standIn);
    }
    // Read by position, the label is one field between the date and the next field, as in `recall search --format index`.
    expect(textOf(answers[0]!)).toMatch(
      new RegExp(`^1\\. \\d\\.\\d\\d( weak)? ${sessionId} 2026-03-01 \\(no project\\) `, "m"),
    );
    expect(textOf(answers[3]!)).toContain(`1. ${sessionId} 2026-03-01 (no project) 1 turn`);
    expect(textOf(answers[7]!).split("\n")[0]).toBe(
      `${sessionId} · codex · (no project) · "what was the release plan?"`,
    );
  }, 60_000);
});

describe.skipIf(skipReason !== undefined)(
  "issue 38, item 18: the same session in the team archive's MCP answers",
  () => {
    let postgres: PostgresServer;
    let archived: Connection;

    beforeAll(async () => {
      postgres = await startPostgres();
      const admin = await openArchive(parseArchiveUrl(postgres.url()));
      try {
        await initArchive(admin, ["alpha"]);
      } finally {
        await admin.close();
      }
      await postgres.admin("CREATE ROLE alice LOGIN PASSWORD 'alice-secret'");
      await postgres.admin("GRANT recall_team_alpha TO alice");
      const db = openIndex(databasePath(recallHome), { readonly: true });
      const alice = await openArchive(parseArchiveUrl(postgres.url({ user: "alice", password: "alice-secret" })));
      try {
        await pushToArchive(db, alice, { origin: { machine: "laptop", osUser: "alice" } });
      } finally {
        await alice.close();
        db.close();
      }
      archived = await serve({ RECALL_ARCHIVE_URL: postgres.url({ user: "alice" }), PGPASSWORD: "alice-secret" });
    }, 120_000);

    afterAll(async () => {
      await archived?.close();
      await postgres?.stop();
    });

    test("search, list_sessions and read_turns with archive: true name it (no project), never ?", async () => {
      const answers = [
        await call(archived.client, "search", { query: "release plan", archive: true }),
        await call(archived.client, "search", { query: "release plan", archive: true, format: "full" }),
        await call(archived.client, "search", { query: "release plan", archive: true, depth: 2 }),
        await call(archived.client, "list_sessions", { archive: true }),
        await call(archived.client, "list_sessions", { archive: true, format: "full" }),
        await call(archived.client, "read_turns", { session: sessionId, archive: true }),
      ];
      for (const answer of answers) {
        expect(answer.isError).toBeFalsy();
        expect(textOf(answer)).toContain("(no project)");
        expect(textOf(answer)).not.toMatch(standIn);
      }
      expect(textOf(answers[3]!)).toMatch(/^1\. archive:\d+ 2026-03-01 \(no project\) 1 turn /m);
      expect(textOf(answers[5]!).split("\n")[0]).toBe(
        `${sessionId} · codex · (no project) · "what was the release plan?"`,
      );
    }, 60_000);
  },
);
