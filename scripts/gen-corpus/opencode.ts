/**
 * Writes synthetic OpenCode sessions into one SQLite database with the tables of a real 1.17
 * `opencode.db` that hold transcripts (`project`, `session`, `message`, `part`, `migration`; the
 * DDL is copied from the corpus db's `.schema`, docs/formats.md §2.1). `message.data` / `part.data`
 * are JSON without the id columns. Ids: `ses_` ids descend with time, `msg_`/`prt_` ascend.
 */
import { Database } from "bun:sqlite";
import type { CorpusProfile } from "./profile.ts";
import type { Random } from "./random.ts";
import { filePath, sliceText } from "./vocabulary.ts";

const schema = `
CREATE TABLE IF NOT EXISTS "migration" (id TEXT PRIMARY KEY, time_completed INTEGER NOT NULL);
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text, icon_color text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_initialized integer, sandboxes text NOT NULL,
  commands text, icon_url_override text);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL,
  title text NOT NULL, version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer,
  summary_files integer, summary_diffs text, revert text, permission text, time_created integer NOT NULL,
  time_updated integer NOT NULL, time_compacting integer, time_archived integer, workspace_id text, path text, agent text,
  model text, cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
  tokens_cache_write integer DEFAULT 0 NOT NULL, metadata text,
  CONSTRAINT fk_session_project_id_project_id_fk FOREIGN KEY (project_id) REFERENCES project(id) ON DELETE CASCADE);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL,
  data text NOT NULL, CONSTRAINT fk_message_session_id_session_id_fk FOREIGN KEY (session_id) REFERENCES session(id) ON DELETE CASCADE);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL,
  CONSTRAINT fk_part_message_id_message_id_fk FOREIGN KEY (message_id) REFERENCES message(id) ON DELETE CASCADE);
CREATE INDEX message_session_idx ON message (session_id);
CREATE INDEX part_message_idx ON part (message_id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE INDEX session_project_idx ON session (project_id);`;

/** An OpenCode id: 12 hex digits of (ms × 4096 + counter), complemented when descending, + 14 base62. */
function makeId(rng: Random, prefix: string, ms: number, counter: number, descending = false): string {
  let value = BigInt(ms) * 4096n + BigInt(counter);
  value &= (1n << 48n) - 1n;
  if (descending) value = ~value & ((1n << 48n) - 1n);
  return `${prefix}_${value.toString(16).padStart(12, "0")}${rng.base62(14)}`;
}

/** One session to write into the db. */
export interface OpencodePlan {
  directory: string;
  startMs: number;
}

/**
 * Create `dbPath` (must not exist) and fill it with one session per plan.
 * @returns the number of sessions written
 */
export function writeOpencodeDb(
  dbPath: string,
  rng: Random,
  profile: CorpusProfile,
  pool: string,
  plans: OpencodePlan[],
): number {
  const db = new Database(dbPath, { create: true });
  db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
  db.exec(schema);
  db.run("INSERT INTO migration VALUES ('20260101000000_init', ?)", [Date.now()]);
  const insProject = db.prepare(
    "INSERT OR IGNORE INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, 'git', ?, ?, '[]')",
  );
  const insSession =
    db.prepare(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated,
    summary_additions, summary_deletions, summary_files) VALUES (?, ?, ?, ?, ?, '1.17.3', ?, ?, 0, 0, 0)`);
  const insMessage = db.prepare("INSERT INTO message VALUES (?, ?, ?, ?, ?)");
  const insPart = db.prepare("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (const plan of plans) {
      const projectId = Bun.hash(plan.directory).toString(16).padStart(16, "0").repeat(3).slice(0, 40);
      insProject.run(projectId, plan.directory, plan.startMs, plan.startMs);
      let ms = plan.startMs,
        counter = 0;
      const sessionId = makeId(rng, "ses", ms, 1, true);
      const turns = Math.max(1, Math.round(rng.fromQuantiles(profile.turnsPerSession)));
      for (let t = 0; t < turns; t++) {
        const userId = makeId(rng, "msg", ms, ++counter);
        insMessage.run(
          userId,
          sessionId,
          ms,
          ms,
          JSON.stringify({
            role: "user",
            time: { created: ms },
            agent: "build",
            model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
          }),
        );
        insPart.run(
          makeId(rng, "prt", ms, ++counter),
          userId,
          sessionId,
          ms,
          ms,
          JSON.stringify({
            type: "text",
            text: sliceText(rng, pool, Math.max(1, rng.fromQuantiles(profile.promptChars))),
          }),
        );
        ms += rng.int(1000, 20000);
        const assistantId = makeId(rng, "msg", ms, ++counter);
        insMessage.run(
          assistantId,
          sessionId,
          ms,
          ms,
          JSON.stringify({
            role: "assistant",
            parentID: userId,
            modelID: "claude-sonnet-4-5",
            providerID: "anthropic",
            mode: "build",
            agent: "build",
            path: { cwd: plan.directory, root: plan.directory },
            cost: 0,
            tokens: {
              input: rng.int(5000, 60000),
              output: rng.int(50, 3000),
              reasoning: 0,
              cache: { read: 0, write: 0 },
            },
            time: { created: ms, completed: ms + 5000 },
            finish: "stop",
          }),
        );
        const tools = Math.round(rng.fromQuantiles(profile.toolCallsPerTurn));
        for (let k = 0; k < tools; k++) {
          const output = sliceText(rng, pool, rng.fromQuantiles(profile.toolResultChars));
          const part = {
            type: "tool",
            callID: `toolu_01${rng.base62(22)}`,
            tool: rng.pick(["bash", "read", "edit", "grep", "write"]),
            state: {
              status: "completed",
              input: { filePath: `${plan.directory}/${filePath(rng)}` },
              output,
              title: "",
              metadata: {},
              time: { start: ms, end: ms + 800 },
            },
          };
          insPart.run(makeId(rng, "prt", ms, ++counter), assistantId, sessionId, ms, ms, JSON.stringify(part));
        }
        insPart.run(
          makeId(rng, "prt", ms, ++counter),
          assistantId,
          sessionId,
          ms,
          ms,
          JSON.stringify({
            type: "text",
            text: sliceText(rng, pool, Math.max(1, rng.fromQuantiles(profile.responseChars))),
          }),
        );
        ms += rng.int(20_000, 600_000);
      }
      insSession.run(
        sessionId,
        projectId,
        `synthetic-${rng.base62(6).toLowerCase()}`,
        plan.directory,
        sliceText(rng, pool, 40).trim(),
        plan.startMs,
        ms,
      );
    }
  })();
  db.close();
  return plans.length;
}
