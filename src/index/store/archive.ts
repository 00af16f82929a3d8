/**
 * The archive (issue 9, DESIGN.md "The archive"): what the index keeps so a session outlives its source.
 * Owns the capped, compressed tool outputs stored beside each turn (`turn_outputs`), reading a whole session
 * back from the index when its source is gone (level 3 fallback), the `present`/`deleted` source state with
 * the time a source was last seen, and the tombstones of sessions forgotten on purpose. Deciding which
 * sessions vanished is plan.ts's job; deleting on purpose is forget.ts's.
 */
import { storedAbstract } from "../write/documents.ts";
import type { Database } from "bun:sqlite";
import type { ModelUsage, ParseResult, Session, SourceId, ToolCall, Turn } from "../../parsers/index.ts";
import type { StoredToolCall } from "../write/writer.ts";

/** Lines of one tool output kept in the archive (the rest is cut, and the cut is said in the text). */
export const archivedOutputLines = 40;

/** Bytes (UTF-8) of one tool output kept in the archive, after the line cut. */
export const archivedOutputBytes = 4096;

/** The last line of an output {@link capArchivedOutput} cut. */
const capNote =
  /\n… \(recall archived the first \d+ lines \/ 4 KB of this output: [\d,]+ lines, [\d,]+ bytes in all\)$/;

/**
 * Returns `text` unchanged when it fits 40 lines and 4 KB, else its first 40 lines cut to 4 KB followed by one
 * line saying so, e.g. `… (recall archived the first 40 lines / 4 KB of this output: 812 lines, 52,114 bytes in all)`.
 * Idempotent: an output it already cut (it ends with that line) is returned as it is.
 */
export function capArchivedOutput(text: string): string {
  // Already capped (a redaction marker may since have made the kept part a little longer): never cap twice.
  if (capNote.test(text)) return text;
  const lines = text.split("\n");
  let kept = lines.length > archivedOutputLines ? lines.slice(0, archivedOutputLines).join("\n") : text;
  if (kept.length > archivedOutputBytes / 4 && Buffer.byteLength(kept) > archivedOutputBytes) {
    // First 4096 characters hold at least 4096 bytes; cut the bytes, then drop a partial character at the end.
    kept = Buffer.from(kept.slice(0, archivedOutputBytes))
      .subarray(0, archivedOutputBytes)
      .toString("utf8")
      .replace(/\uFFFD+$/, "");
  }
  if (kept === text) return text;
  const totalBytes = Buffer.byteLength(text).toLocaleString("en-US");
  return `${kept}\n… (recall archived the first ${archivedOutputLines} lines / 4 KB of this output: ${lines.length} lines, ${totalBytes} bytes in all)`;
}

/**
 * The `turn_outputs` blob of a turn: zstd (level 1) of a JSON array with one entry per tool call (its capped output,
 * or null), in `turn.toolCalls` order; undefined when no call has an output (nothing is stored then). Rows written
 * before 2026-11-29 hold gzip of the same JSON, which {@link decodeTurnOutputs} still reads.
 * Measured 2026-11-29 (2-core Xeon) on the blobs of 2,000 sessions: the generated corpus's 35.6 MB of JSON became 13.2 MB
 * with gzip level 3 in 360 ms and 13.6 MB with zstd level 1 in 177 ms; ../shared/corpus's Claude Code outputs
 * (1.6 MB) 0.46 MB in 14 ms and 0.48 MB in 6 ms. Half the time of gzip for 3–4% more bytes: ~3 s of the parse
 * workers' CPU in a first index of the generated 20k corpus.
 */
export function encodeTurnOutputs(turn: Pick<Turn, "toolCalls">): Uint8Array | undefined {
  if (!turn.toolCalls.some((call) => call.output !== undefined)) return undefined;
  const outputs = turn.toolCalls.map((call) => (call.output === undefined ? null : capArchivedOutput(call.output)));
  return Bun.zstdCompressSync(Buffer.from(JSON.stringify(outputs)), { level: 1 });
}

/** The first bytes of a gzip member (RFC 1952 §2.3.1): a blob written before zstd. */
const isGzip = (blob: Uint8Array): boolean => blob[0] === 0x1f && blob[1] === 0x8b;

/**
 * Inverse of {@link encodeTurnOutputs}: the array of capped outputs (null where a call had none), from zstd or, for a
 * row written before, gzip.
 * @throws Error when the blob is neither a zstd frame nor a gzip member, or its JSON does not parse (a damaged row)
 */
export function decodeTurnOutputs(blob: Uint8Array): Array<string | null> {
  const bytes = blob as Uint8Array<ArrayBuffer>;
  const json = isGzip(bytes) ? Bun.gunzipSync(bytes) : Bun.zstdDecompressSync(bytes);
  return JSON.parse(Buffer.from(json).toString("utf8")) as Array<string | null>;
}

interface StoredSessionRow {
  session_id: string;
  source: SourceId;
  project_path: string;
  project_name: string;
  git_branch: string | null;
  started_at: number;
  ended_at: number;
  title: string | null;
  abstract: string | null;
  turn_count: number;
  parent_session_id: string | null;
  is_subagent: number;
  location: string;
  skipped_lines: number;
}

/**
 * Read a session back from what the index stored (level 3 when the source is gone): prompts and responses from
 * `turns` (and its abstract from `sessions`), compact tool calls with their archived (capped) outputs, files, usage per model (schema v12). Turns come in order, numbered as
 * indexed; `bytesRead` is 0 and `skipped` is what the last parse skipped.
 * @returns undefined when no session has this rowid
 */
export function readStoredSession(db: Database, rowid: number): ParseResult | undefined {
  const row = db
    .query<StoredSessionRow, [number]>(
      `SELECT session_id, source, project_path, project_name, git_branch, started_at, ended_at, title, abstract, turn_count,
         parent_session_id, is_subagent, location, skipped_lines FROM sessions WHERE id = ?`,
    )
    .get(rowid);
  if (!row) return undefined;
  const session: Session = {
    id: row.session_id,
    source: row.source,
    projectPath: row.project_path,
    projectName: row.project_name,
    gitBranch: row.git_branch,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    title: row.title,
    ...(row.abstract === null ? {} : { abstract: storedAbstract(row.abstract) }),
    turnCount: row.turn_count,
    parentSessionId: row.parent_session_id,
    isSubagent: row.is_subagent === 1,
    location: row.location,
  };
  const outputs = new Map(
    db
      .query<{ number: number; outputs: Uint8Array }, [number]>(
        "SELECT number, outputs FROM turn_outputs WHERE session_rowid = ?",
      )
      .all(rowid)
      .map((output) => [output.number, decodeTurnOutputs(output.outputs)]),
  );
  const turns = db
    .query<
      {
        number: number;
        timestamp: number;
        prompt: string;
        response: string;
        tools: string;
        files: string;
        usage: string | null;
      },
      [number]
    >(
      // main turns in order, then the rewound ones -1, -2, … (issue 26), as a parse returns them
      "SELECT number, timestamp, prompt, response, tools, files, usage FROM turns WHERE session_rowid = ? ORDER BY number < 0, abs(number)",
    )
    .all(rowid)
    .map((turn): Turn => {
      const callOutputs = outputs.get(turn.number) ?? [];
      const toolCalls = (JSON.parse(turn.tools) as StoredToolCall[]).map((call, index): ToolCall => {
        const output = callOutputs[index];
        return output === null || output === undefined ? { ...call } : { ...call, output };
      });
      const stored: Turn = {
        sessionId: row.session_id,
        number: turn.number,
        timestamp: turn.timestamp,
        prompt: turn.prompt,
        response: turn.response,
        toolCalls,
        files: JSON.parse(turn.files) as string[],
        isSubagent: session.isSubagent,
      };
      if (turn.usage !== null) stored.usage = JSON.parse(turn.usage) as ModelUsage[]; // schema v12, issue 38 item 14
      return stored;
    });
  return { session, turns, fromTurn: 1, bytesRead: 0, skipped: { count: row.skipped_lines } };
}

/** Meta key of the time (epoch ms) an index run last scanned a source; present sessions were seen then. */
export const seenAtMetaKey = (source: SourceId): string => `seen_at:${source}`;

/**
 * SQL expression (over the sessions alias `s`) of when a session's source was last seen, epoch ms: the stored
 * `last_seen_at` for a deleted session; for a present one the later of it and the last scan of its source
 * (unchanged sessions are not rewritten by every run, see {@link seenAtMetaKey}).
 */
export const lastSeenSql = `CASE WHEN s.source_status = 'deleted' THEN s.last_seen_at ELSE max(s.last_seen_at,
  coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'seen_at:' || s.source), 0)) END`;

/**
 * Mark sessions whose source vanished as deleted (inside the caller's transaction), keeping every row derived
 * from them. `last_seen_at` becomes the later of its stored value and `previousScanAt` (the run before this one,
 * which still saw the source).
 */
export function markSessionsDeleted(db: Database, rowids: readonly number[], previousScanAt: number): void {
  const mark = db.query(
    "UPDATE sessions SET source_status = 'deleted', last_seen_at = max(last_seen_at, ?) WHERE id = ? AND source_status = 'present'",
  );
  for (const rowid of rowids) mark.run(previousScanAt, rowid);
}

/** Mark sessions whose source reappeared unchanged as present again, seen at `seenAt` (epoch ms). */
export function markSessionsPresent(db: Database, rowids: readonly number[], seenAt: number): void {
  const mark = db.query("UPDATE sessions SET source_status = 'present', last_seen_at = ? WHERE id = ?");
  for (const rowid of rowids) mark.run(seenAt, rowid);
}

/** Session ids of one source that were forgotten on purpose (an index run does not add them again). */
export function loadForgottenIds(db: Database, source: SourceId): Set<string> {
  return new Set(
    db
      .query<{ session_id: string }, [string]>("SELECT session_id FROM forgotten WHERE source = ?")
      .all(source)
      .map((row) => row.session_id),
  );
}
