/**
 * OpenCode JSON file storage (≈ v0.6–v1.1, docs/formats.md §2.2): `storage/session/<project>/<ses>.json`,
 * `storage/message/<ses>/<msg>.json`, `storage/part/<msg>/<prt>.json`, pretty-printed. Ids come
 * from FILE PATHS, not from the JSON (older migrations moved files without rewriting them).
 * Also holds the file helpers legacy.ts reuses. Turn building is left to messages.ts.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SkipReport } from "../types.ts";
import { asObject, noteSkip, numberOf, stringOf, type RawConversation, type RawMessage, type RawPart, type RawSession } from "./messages.ts";

/** Names in a folder (sorted), [] when it is missing or unreadable. */
export function listNames(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** `.json` files of a folder as [id, path] pairs, id = file name without `.json`, sorted by id. */
export function listJsonFiles(dir: string): Array<[string, string]> {
  return listNames(dir)
    .filter((name) => name.endsWith(".json"))
    .map((name): [string, string] => [name.slice(0, -".json".length), join(dir, name)]);
}

/** Accumulates bytes read and skipped files while loading one session. */
export interface ReadTally {
  bytesRead: number;
  skipped: SkipReport;
}

/** Read a JSON object file; undefined (and one skip counted) when unreadable or not an object. */
export function readJsonObject(path: string, tally: ReadTally): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    noteSkip(tally.skipped, `${path}: ${(error as Error).message}`);
    return undefined;
  }
  tally.bytesRead += Buffer.byteLength(text);
  try {
    const value = asObject(JSON.parse(text));
    if (value) return value;
  } catch {
    // fall through to the skip below
  }
  noteSkip(tally.skipped, `${path}: not a JSON object`);
  return undefined;
}

/** Newest mtime (ms) among the given paths; missing paths count as 0. */
export function newestMtimeMs(paths: string[]): number {
  let newest = 0;
  for (const path of paths) {
    try {
      newest = Math.max(newest, statSync(path).mtimeMs);
    } catch {
      // a file that vanished between readdir and stat simply does not count
    }
  }
  return newest;
}

/** `time.created` / `time.updated` of a JSON object, 0 when absent. */
export function timeField(data: Record<string, unknown>, key: "created" | "updated"): number {
  return numberOf(asObject(data.time)?.[key]) ?? 0;
}

/**
 * Load messages from `messageDir/<msg>.json` with parts from `partDirOf(msg)/<prt>.json`.
 * @returns messages in file order (the caller sorts), parts sorted by id
 */
export function loadMessages(messageDir: string, partDirOf: (messageId: string) => string, tally: ReadTally): RawMessage[] {
  const messages: RawMessage[] = [];
  for (const [messageId, path] of listJsonFiles(messageDir)) {
    const data = readJsonObject(path, tally);
    if (!data) continue;
    const parts: RawPart[] = [];
    for (const [partId, partPath] of listJsonFiles(partDirOf(messageId))) {
      const partData = readJsonObject(partPath, tally);
      if (partData) parts.push({ id: partId, data: partData });
    }
    messages.push({ id: messageId, timeCreated: timeField(data, "created"), data, parts });
  }
  return messages;
}

/** One session listed from JSON storage with its change key and the project folder it sits in. */
export interface JsonSessionEntry {
  session: RawSession;
  projectDir: string;
  changeKey: string;
}

/** The project's worktree from `project/<id>.json` ("" when missing). */
function readWorktree(storagePath: string, projectId: string, cache: Map<string, string>): string {
  let worktree = cache.get(projectId);
  if (worktree === undefined) {
    const tally: ReadTally = { bytesRead: 0, skipped: { count: 0 } };
    worktree = stringOf(readJsonObject(join(storagePath, "project", `${projectId}.json`), tally)?.worktree) ?? "";
    cache.set(projectId, worktree);
  }
  return worktree;
}

/** Map a session JSON object (id from the file name) to a RawSession. */
export function toRawSession(id: string, data: Record<string, unknown>, worktree: string): RawSession {
  return {
    id,
    parentId: stringOf(data.parentID) || null,
    directory: stringOf(data.directory) ?? "",
    worktree,
    title: stringOf(data.title) || null,
    timeCreated: timeField(data, "created"),
    timeUpdated: timeField(data, "updated"),
  };
}

/**
 * List the sessions of a JSON storage folder. Change key = `time.updated`, message file count and
 * newest mtime of message files and part folders (so a message or part added without a session
 * rewrite still re-parses). Unreadable session files are reported through `onSkip`.
 */
export function listJsonSessions(storagePath: string, onSkip: (place: string) => void): JsonSessionEntry[] {
  const entries: JsonSessionEntry[] = [];
  const worktrees = new Map<string, string>();
  for (const projectDir of listNames(join(storagePath, "session"))) {
    for (const [sessionId, path] of listJsonFiles(join(storagePath, "session", projectDir))) {
      const tally: ReadTally = { bytesRead: 0, skipped: { count: 0 } };
      const data = readJsonObject(path, tally);
      if (!data) {
        onSkip(tally.skipped.first ?? path);
        continue;
      }
      const projectId = stringOf(data.projectID) || projectDir;
      const session = toRawSession(sessionId, data, readWorktree(storagePath, projectId, worktrees));
      const messages = listJsonFiles(join(storagePath, "message", sessionId));
      const newest = newestMtimeMs([...messages.map(([, file]) => file), ...messages.map(([id]) => join(storagePath, "part", id))]);
      entries.push({ session, projectDir, changeKey: `${session.timeUpdated}:${messages.length}:${newest}` });
    }
  }
  return entries;
}

/**
 * Load one session from JSON storage.
 * @param projectDir the `session/<projectDir>/` folder the session file was listed in
 * @returns null when the session file is gone or unreadable
 */
export function loadJsonConversation(storagePath: string, projectDir: string, sessionId: string): RawConversation | null {
  const tally: ReadTally = { bytesRead: 0, skipped: { count: 0 } };
  const data = readJsonObject(join(storagePath, "session", projectDir, `${sessionId}.json`), tally);
  if (!data) return null;
  const projectId = stringOf(data.projectID) || projectDir;
  const session = toRawSession(sessionId, data, readWorktree(storagePath, projectId, new Map()));
  const messages = loadMessages(join(storagePath, "message", sessionId), (messageId) => join(storagePath, "part", messageId), tally);
  return { session, messages, location: storagePath, bytesRead: tally.bytesRead, skipped: tally.skipped };
}
