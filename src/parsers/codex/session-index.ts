/**
 * Thread titles from `<codex home>/session_index.jsonl` (docs/formats.md §3.1: `{id, thread_name,
 * updated_at}` per line, appended on every rename) and the Codex home a rollout belongs to.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isMissingError } from "../file-stats.ts";

/** Name of the title index inside a Codex home. */
export const sessionIndexName = "session_index.jsonl";

/**
 * The Codex home of a rollout: the parent of the nearest `sessions` or `archived_sessions` folder above it,
 * or null when the file is not inside one (a sample folder).
 * Examples: `/h/.codex/sessions/2026/04/19/rollout-….jsonl` → `/h/.codex`; `/h/.codex/archived_sessions/r.jsonl` → `/h/.codex`.
 */
export function codexHomeOf(rolloutPath: string): string | null {
  let dir = dirname(rolloutPath);
  for (let depth = 0; depth < 6; depth++) {
    const name = basename(dir);
    if (name === "sessions" || name === "archived_sessions") return dirname(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/** Path of the title index of a Codex home. */
export const sessionIndexPath = (home: string): string => join(home, sessionIndexName);

/**
 * Titles by thread id: the LAST non-empty `thread_name` of each id in file order (a rename appends a line).
 * Broken lines are ignored (the index is a cache of titles, not a transcript).
 * @returns titles and the bytes read; an empty map when the file does not exist
 * @throws the fs error when it exists but cannot be read (the caller reports the home unavailable)
 */
export function readTitles(home: string): { titles: Map<string, string>; bytesRead: number } {
  let text: string;
  try {
    text = readFileSync(sessionIndexPath(home), "utf8");
  } catch (error) {
    if (isMissingError(error)) return { titles: new Map(), bytesRead: 0 };
    throw error;
  }
  const titles = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line) as { id?: unknown; thread_name?: unknown };
      if (typeof value.id === "string" && typeof value.thread_name === "string" && value.thread_name.trim())
        titles.set(value.id, value.thread_name.trim());
    } catch {
      // a line being written, or damaged: the other lines still name their threads
    }
  }
  return { titles, bytesRead: Buffer.byteLength(text) };
}
