/**
 * Goose's older session files `sessions/<name>.jsonl` (docs/formats/goose.md), written before `sessions.db`: the first
 * line is the session's metadata `{working_dir, description, schedule_id?, message_count, total_tokens?, input_tokens?,
 * output_tokens?, accumulated_total_tokens?, accumulated_input_tokens?, accumulated_output_tokens?}` (a file may start
 * with a message instead), every other line one `Message {id?, role, created (Unix seconds), content, metadata?}` with
 * the same content items as the database (`crates/goose/src/session/storage.rs` at 01a262b2, `legacy.rs` at 0fc5e540);
 * later files also carry `id`, `created_at` and `updated_at` (RFC 3339) in the metadata (the lines `legacy.rs`
 * `load_session`'s tests quote). The session is named by the file name. Goose imports these files into `sessions.db`
 * when it creates the database, with the file name as the session id (`load_session`), so a session found in both is
 * read from the database.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { decodeWhole } from "../shared/resume-lines.ts";
import { emptySkips } from "../shared/skips.ts";
import type { ParseOptions, ParseResult, SourceUnit } from "../types.ts";
import type { GooseMessageRow, GooseSessionRow } from "./database.ts";
import { gooseSessionResult } from "./parse.ts";

/** The session name of a legacy file: its file name without `.jsonl`. */
export const legacySessionIdOf = (path: string): string => basename(path, ".jsonl");

/** True for a decoded first line that is session metadata, not a message (it has no `role`). */
const isMetadata = (value: Record<string, unknown>): boolean =>
  !("role" in value) && ("description" in value || "working_dir" in value || "message_count" in value);

/**
 * Parse one legacy session file: its metadata line as the session row, its message lines as the messages.
 * @throws SourceError when the file cannot be read
 */
export function parseGooseLegacyUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.containerPath;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read goose session ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  const skipped = emptySkips();
  const decoded = decodeWhole(bytes, path, skipped);
  const lines = decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines;
  const first = lines[0]?.line === 1 && isMetadata(lines[0].value) ? lines[0].value : undefined;
  const text = (value: unknown): string | null => (typeof value === "string" && value.length > 0 ? value : null);
  const count = (value: unknown): number | null => (typeof value === "number" ? value : null);
  const row: GooseSessionRow = {
    id: legacySessionIdOf(path),
    name: null,
    description: text(first?.description),
    session_type: null,
    working_dir: text(first?.working_dir),
    created_at: text(first?.created_at),
    updated_at: text(first?.updated_at),
    accumulated_input_tokens: count(first?.accumulated_input_tokens),
    accumulated_output_tokens: count(first?.accumulated_output_tokens),
    model_config_json: null,
    message_count: lines.length - (first ? 1 : 0),
    last_message_row: null,
  };
  const messages: GooseMessageRow[] = (first ? lines.slice(1) : lines).map(({ line, value }) => ({
    id: line,
    role: typeof value.role === "string" ? value.role : "",
    content_json: JSON.stringify(value.content ?? null),
    created_timestamp: typeof value.created === "number" ? value.created : null,
    metadata_json: value.metadata === undefined ? null : JSON.stringify(value.metadata),
  }));
  return gooseSessionResult(row, messages, path, options, skipped, bytes.length);
}
