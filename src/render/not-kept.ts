/**
 * What the index could not keep (issue 26): files rejected whole and records of indexed sessions that could not be
 * placed, as the same JSON fields in `recall index --json` and `recall status --json`, a short part of the index
 * summary line, and the lines `recall status` prints; beside them, the history recall does not read at all (issue 40). Paths and reasons go through the escape neutralizing of every
 * other text (escapes.ts): a file name can hold control characters.
 */
import type { NotKept } from "../index/index.ts";
import type { UnreadHistory } from "../parsers/unread-history.ts";
import { neutralizeStrings } from "./escapes.ts";
import { countOf } from "./format.ts";

/** The `unread_history` field of `status --json` and `index --json` (parsers/unread-history.ts): [] when there is none. */
export function unreadHistoryJson(unread: readonly UnreadHistory[]): Record<string, unknown> {
  return {
    unread_history: unread.map((entry) => ({
      agent: entry.agent,
      folder: entry.folder,
      files: entry.files,
      reason: entry.reason,
    })),
  };
}

/**
 * The lines `status` prints for history recall does not read, one per folder:
 * `not read: Amp, 12 files in /home/u/.local/share/amp/threads (Amp's thread format is not public …)`.
 */
export function unreadHistoryLines(unread: readonly UnreadHistory[]): string[] {
  return neutralizeStrings(unread).map(
    (entry) => `not read: ${entry.agent}, ${countOf(entry.files, "file")} in ${entry.folder} (${entry.reason})`,
  );
}

/**
 * The JSON fields: `rejected_files` [{source, path, reason}], `rejected_file_count` (all of them; the list holds at
 * most 100), `unplaced_records` [{source, session_id, path, reason, count, first}] (largest count first) and
 * `unplaced_record_count` (records over every row).
 */
export function notKeptJson(notKept: NotKept): Record<string, unknown> {
  return {
    rejected_files: notKept.rejectedFiles.map((file) => ({
      source: file.source,
      path: file.path,
      reason: file.reason,
    })),
    rejected_file_count: notKept.rejectedFileCount,
    unplaced_records: notKept.unplacedRecords.map((row) => ({
      source: row.source,
      session_id: row.sessionId,
      path: row.path,
      reason: row.reason,
      count: row.count,
      first: row.first,
    })),
    unplaced_record_count: notKept.unplacedRecordCount,
  };
}

/** `1 file rejected, 12 records unplaced`, or "" when everything was kept. */
export function notKeptPart(notKept: NotKept): string {
  const parts: string[] = [];
  if (notKept.rejectedFileCount > 0) parts.push(`${countOf(notKept.rejectedFileCount, "file")} rejected`);
  if (notKept.unplacedRecordCount > 0) parts.push(`${countOf(notKept.unplacedRecordCount, "record")} unplaced`);
  return parts.join(", ");
}

/**
 * The lines `recall status` prints: a heading with the counts, then one line per rejected file and per reason of
 * unplaced records (at most `limit` of each). Empty when everything was kept.
 */
export function notKeptLines(raw: NotKept, limit = 10): string[] {
  const part = notKeptPart(raw);
  if (part === "") return [];
  const notKept = neutralizeStrings(raw);
  const lines = [`not kept: ${part} (their text is not searchable; \`recall status --json\` lists them all)`];
  for (const file of notKept.rejectedFiles.slice(0, limit)) {
    lines.push(`  rejected  ${file.source}  ${file.path}: ${file.reason}`);
  }
  if (notKept.rejectedFileCount > limit) lines.push(`  … and ${notKept.rejectedFileCount - limit} more rejected files`);
  for (const row of notKept.unplacedRecords.slice(0, limit)) {
    lines.push(`  unplaced  ${row.source}  ${countOf(row.count, "record")}: ${row.reason} (first at ${row.first})`);
  }
  if (notKept.unplacedRecords.length > limit) lines.push("  … and more unplaced records");
  return lines;
}
