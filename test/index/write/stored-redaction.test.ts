/**
 * An index written by an older redaction (issue 37): its turns, keyword rows and pages hold secrets today's rules
 * find. Schema v11 re-parses the sessions whose source is there and redacts the stored copy of those whose source is
 * gone, then purges the old text: no search finds the secret, no byte under recall's folder (database, WAL,
 * snapshots) holds it, and the deleted
 * session stays deleted with everything else it had.
 */
import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { readStoredSession } from "../../../src/index/store/archive.ts";
import { listSnapshots, writeSnapshot } from "../../../src/index/store/snapshot.ts";
import { databasePath, openIndex, runIndex } from "../../../src/index/index.ts";
import { schemaVersion } from "../../../src/index/schema.ts";
import { prepareSession, writePreparedSessions } from "../../../src/index/write/writer.ts";
import type { SourceUnit } from "../../../src/parsers/index.ts";
import { writeClaudeSession } from "../../helpers/claude-writer.ts";
import { tempDirs } from "../../helpers/temp-dirs.ts";
import { restoreResumeStateColumn } from "../../helpers/old-schema.ts";

const tempDir = tempDirs("recall-stored-redaction-");
const secret = "Hunter2Horse9xq";
const ids = { kept: "11111111-1111-4111-8111-111111111111", gone: "22222222-2222-4222-8222-222222222222" };
/** A deleted-source session with no secret, whose keyword row an older recall wrote without script boundaries. */
const mixedId = "33333333-3333-4333-8333-333333333333";
const mixedPrompt = "我本地安装了kimi-cli 帮我看看他的配置";

/** Rewrites a session's stored text with the secret in clear, as an index written before these rules holds it. */
function plantClearText(db: Database, sessionId: string): void {
  const row = db
    .query<
      {
        id: number;
        unit_key: string;
        container_path: string;
        change_key: string;
        last_seen_at: number;
      },
      [string]
    >("SELECT id, unit_key, container_path, change_key, last_seen_at FROM sessions WHERE session_id = ?")
    .get(sessionId)!;
  const stored = readStoredSession(db, row.id)!;
  const clear = (text: string) => text.replaceAll("[REDACTED:password]", secret);
  const turns = stored.turns.map((turn) => ({
    ...turn,
    prompt: clear(turn.prompt),
    toolCalls: turn.toolCalls.map((call) => ({
      ...call,
      input: clear(call.input),
      ...(call.output ? { output: clear(call.output) } : {}),
    })),
  }));
  const unit: SourceUnit = {
    source: "claude-code",
    key: row.unit_key,
    sessionId,
    containerPath: row.container_path,
    changeKey: row.change_key,
  };
  db.transaction(() =>
    writePreparedSessions(db, [{ unit, result: prepareSession({ ...stored, turns }) }], row.last_seen_at),
  )();
}

/** Every byte of every file under `folder` (the index, its WAL, the snapshots), as one string. */
function bytesUnder(folder: string): string {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path).toString("latin1"))
    .join("\n");
}

describe("an index redacted by older rules (schema v11, issue 37)", () => {
  test("is redacted again: re-parsed where the source is, from its stored copy where not; no page keeps the old text", async () => {
    const root = tempDir();
    const home = tempDir();
    const roots = { "claude-code": [root], opencode: [join(root, "no-opencode-here")] };
    for (const [name, id] of Object.entries(ids))
      writeClaudeSession(join(root, "-home-dev-app", `${id}.jsonl`), {
        sessionId: id,
        cwd: "/home/dev/app",
        turns: [
          {
            prompt: `connect the ${name} reporting job: export PGPASSWORD=${secret} && psql -h db reports`,
            response: "Connected.",
            tools: [{ name: "Bash", input: { command: `PGPASSWORD=${secret} psql -c 'select 1'` }, output: "1" }],
          },
          { prompt: `now schedule the ${name} job nightly`, response: "Scheduled with cron." },
        ],
      });
    writeClaudeSession(join(root, "-home-dev-app", `${mixedId}.jsonl`), {
      sessionId: mixedId,
      cwd: "/home/dev/app",
      turns: [{ prompt: mixedPrompt, response: "配置在 ~/.kimi/config.toml" }],
    });
    await runIndex({ recallHome: home, roots });

    // The index as an older recall left it: the secret in clear in both sessions, schema 10, and the mixed prompt's
    // keyword row as one run (`安装了kimi`: no boundary between the scripts, issue 38).
    const old = openIndex(databasePath(home));
    for (const id of Object.values(ids)) plantClearText(old, id);
    const mixedTurn = old
      .query<{ id: number }, [string]>(
        "SELECT d.id FROM documents d JOIN sessions s ON s.id = d.session_rowid WHERE s.session_id = ? AND d.level = 'turn'",
      )
      .get(mixedId)!.id;
    old.run("DELETE FROM documents_fts WHERE rowid = ?", [mixedTurn]);
    old.run("INSERT INTO documents_fts(rowid, heading, body, extra) VALUES (?, ?, '', '')", [mixedTurn, mixedPrompt]);
    old.run("UPDATE documents SET text_hash = 'written by an older recall' WHERE id = ?", [mixedTurn]);
    const kimiMatches = (db: Database) =>
      db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH 'kimi'").get()!.n;
    const kimiBefore = kimiMatches(old);
    const matches = (db: Database) =>
      db
        .query<{ n: number }, [string]>("SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?")
        .get(secret.toLowerCase())!.n;
    expect(matches(old)).toBeGreaterThanOrEqual(2); // turn and session documents
    writeSnapshot(old, home, Date.now(), { dropOlder: true }); // the day's snapshot holds the clear text too
    restoreResumeStateColumn(old);
    old.exec("PRAGMA user_version = 10");
    old.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    old.close();
    expect(bytesUnder(home)).toContain(secret);

    unlinkSync(join(root, "-home-dev-app", `${ids.gone}.jsonl`));
    unlinkSync(join(root, "-home-dev-app", `${mixedId}.jsonl`));
    await runIndex({ recallHome: home, roots });

    const db = openIndex(databasePath(home), { readonly: true });
    try {
      expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()!.user_version).toBe(schemaVersion);
      expect(matches(db)).toBe(0);
      const sessions = db
        .query<{ session_id: string; source_status: string; turn_count: number }, []>(
          "SELECT session_id, source_status, turn_count FROM sessions ORDER BY session_id",
        )
        .all();
      expect(sessions).toEqual([
        { session_id: ids.kept, source_status: "present", turn_count: 2 },
        { session_id: ids.gone, source_status: "deleted", turn_count: 2 },
        { session_id: mixedId, source_status: "deleted", turn_count: 1 },
      ]);
      // The deleted session without a secret was rewritten too: its turn is found by the Latin word again.
      expect(kimiMatches(db)).toBe(kimiBefore + 1);
      const texts = db.query<{ prompt: string; tools: string }, []>("SELECT prompt, tools FROM turns").all();
      expect(texts).toHaveLength(5);
      for (const text of texts) expect(`${text.prompt}${text.tools}`).not.toContain(secret);
      expect(texts.map((text) => text.prompt)).toContain(mixedPrompt);
      expect(texts.filter((text) => text.prompt.includes("PGPASSWORD=[REDACTED:password]"))).toHaveLength(2);
      // The deleted session is still found by its own words, and its turns are whole.
      expect(
        db
          .query<{ n: number }, [string]>("SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?")
          .get("gone")!.n,
      ).toBeGreaterThan(0);
      expect(db.query("SELECT 1 FROM meta WHERE key = 'redact_stored_sessions'").get()).toBeNull();
    } finally {
      db.close();
    }
    expect(listSnapshots(home)).toHaveLength(1);
    expect(bytesUnder(home)).not.toContain(secret);
  });
});
