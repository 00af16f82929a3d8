/**
 * OpenCode JSON file storage (≈ v0.6–v1.1, docs/formats.md §2.2): `storage/session/<project>/<ses>.json`,
 * `storage/message/<ses>/<msg>.json`, `storage/part/<msg>/<prt>.json`, pretty-printed. Ids come
 * from FILE PATHS, not from the JSON (older migrations moved files without rewriting them).
 * Also holds the file helpers legacy.ts reuses. Turn building is left to messages.ts.
 * A file or folder that exists but cannot be read (permission denied, i/o error) is never taken for
 * an empty one: the fs error is thrown, so listing reports the container unavailable and parsing fails
 * (and is retried); only content that is not JSON is skipped and counted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isMissingError, StatsDigest } from "../file-stats.ts";
import type { SkipReport } from "../types.ts";
import { noteSkip } from "../shared/skips.ts";
import {
  asObject,
  numberOf,
  stringOf,
  type RawConversation,
  type RawMessage,
  type RawPart,
  type RawSession,
} from "./messages.ts";
import { addNewestMessage, readNames } from "./scan.ts";

/** Names in a folder (sorted), [] when it is missing. @throws the fs error when it exists but cannot be read */
export function listNames(dir: string): string[] {
  return readNames(dir);
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

/**
 * Read a JSON object file; undefined (and one skip counted) when it vanished or is not a JSON object.
 * @throws the fs error when the file exists but cannot be read
 */
export function readJsonObject(path: string, tally: ReadTally): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (!isMissingError(error)) throw error;
    noteSkip(tally.skipped, path, "file vanished while reading");
    return undefined;
  }
  tally.bytesRead += Buffer.byteLength(text);
  try {
    const value = asObject(JSON.parse(text));
    if (value) return value;
  } catch {
    // fall through to the skip below
  }
  noteSkip(tally.skipped, path, "not a JSON object");
  return undefined;
}

/**
 * Change key of one session stored as files: `<time.updated>:<message files>:<StatsDigest>` where the
 * digest covers every message file and part folder (stats only) plus the newest message's part files,
 * so a message or part added, or a part of the newest message rewritten in place, re-parses it.
 * @throws the fs error when a folder exists but cannot be read
 */
export function fileSessionChangeKey(
  timeUpdated: number,
  messageDir: string,
  partDirOf: (messageId: string) => string,
): string {
  const messages = listJsonFiles(messageDir);
  const digest = new StatsDigest();
  for (const [messageId, file] of messages) {
    digest.add(file);
    digest.add(partDirOf(messageId));
  }
  digest.add(messageDir);
  addNewestMessage(digest, messageDir, partDirOf);
  return `${timeUpdated}:${messages.length}:${digest}`;
}

/** `time.created` / `time.updated` of a JSON object, 0 when absent. */
export function timeField(data: Record<string, unknown>, key: "created" | "updated"): number {
  return numberOf(asObject(data.time)?.[key]) ?? 0;
}

/**
 * Load messages from `messageDir/<msg>.json` with parts from `partDirOf(msg)/<prt>.json`.
 * @returns messages in file order (the caller sorts), parts sorted by id
 */
export function loadMessages(
  messageDir: string,
  partDirOf: (messageId: string) => string,
  tally: ReadTally,
): RawMessage[] {
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
 * List the sessions of a JSON storage folder. Change key: {@link fileSessionChangeKey} (so a message or
 * part added without a session rewrite still re-parses). Session files that are not JSON objects are
 * reported through `onSkip`.
 * @throws the fs error when a folder or session file exists but cannot be read (the container is unavailable)
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
      const changeKey = fileSessionChangeKey(session.timeUpdated, join(storagePath, "message", sessionId), (id) =>
        join(storagePath, "part", id),
      );
      entries.push({ session, projectDir, changeKey });
    }
  }
  return entries;
}

/**
 * Load one session from JSON storage.
 * @param projectDir the `session/<projectDir>/` folder the session file was listed in
 * @returns null when the session file is gone or not a JSON object
 * @throws the fs error when a file or folder of the session exists but cannot be read
 */
export function loadJsonConversation(
  storagePath: string,
  projectDir: string,
  sessionId: string,
): RawConversation | null {
  const tally: ReadTally = { bytesRead: 0, skipped: { count: 0 } };
  const data = readJsonObject(join(storagePath, "session", projectDir, `${sessionId}.json`), tally);
  if (!data) return null;
  const projectId = stringOf(data.projectID) || projectDir;
  const session = toRawSession(sessionId, data, readWorktree(storagePath, projectId, new Map()));
  const messages = loadMessages(
    join(storagePath, "message", sessionId),
    (messageId) => join(storagePath, "part", messageId),
    tally,
  );
  return { session, messages, location: storagePath, bytesRead: tally.bytesRead, skipped: tally.skipped };
}
