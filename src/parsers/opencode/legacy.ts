/**
 * OpenCode legacy per-project layout (v0.5.x and earlier, docs/formats.md §2.3):
 * `project/<id>/storage/session/info/<ses>.json`, `…/message/<ses>/<msg>.json`,
 * `…/part/<ses>/<msg>/<prt>.json`. Sessions record no directory; the project folder's `app.json`
 * may hold `path.cwd`/`path.root`, else messages.ts falls back to the assistant's `path.cwd`.
 * Checked against 0.5.28 data (Jan 2026) in the corpus.
 */
import { dirname, join } from "node:path";
import { asObject, stringOf, type RawConversation } from "./messages.ts";
import {
  fileSessionChangeKey,
  listJsonFiles,
  loadMessages,
  readJsonObject,
  toRawSession,
  type JsonSessionEntry,
  type ReadTally,
} from "./json-storage.ts";

/** `path.cwd` (else `path.root`) from `project/<id>/app.json`; "" when absent (the real 0.5.28 file is `{}`). */
function readAppDirectory(storagePath: string): string {
  const tally: ReadTally = { bytesRead: 0, skipped: { count: 0 } };
  const path = asObject(readJsonObject(join(dirname(storagePath), "app.json"), tally)?.path);
  return stringOf(path?.cwd) || stringOf(path?.root) || "";
}

/**
 * List the sessions of one legacy `project/<id>/storage` folder. Change key as in JSON storage
 * (json-storage.ts `fileSessionChangeKey`).
 * @throws the fs error when a folder or session file exists but cannot be read (the container is unavailable)
 */
export function listLegacySessions(storagePath: string, onSkip: (place: string) => void): JsonSessionEntry[] {
  const sessionDir = join(storagePath, "session");
  const directory = readAppDirectory(storagePath);
  const entries: JsonSessionEntry[] = [];
  for (const [sessionId, path] of listJsonFiles(join(sessionDir, "info"))) {
    const tally: ReadTally = { bytesRead: 0, skipped: { count: 0 } };
    const data = readJsonObject(path, tally);
    if (!data) {
      onSkip(tally.skipped.first ?? path);
      continue;
    }
    const session = toRawSession(sessionId, data, "");
    session.directory ||= directory;
    const changeKey = fileSessionChangeKey(session.timeUpdated, join(sessionDir, "message", sessionId), (id) =>
      join(sessionDir, "part", sessionId, id),
    );
    entries.push({ session, projectDir: "", changeKey });
  }
  return entries;
}

/**
 * Load one legacy session.
 * @returns null when its info file is gone or not a JSON object
 * @throws the fs error when a file or folder of the session exists but cannot be read
 */
export function loadLegacyConversation(storagePath: string, sessionId: string): RawConversation | null {
  const sessionDir = join(storagePath, "session");
  const tally: ReadTally = { bytesRead: 0, skipped: { count: 0 } };
  const data = readJsonObject(join(sessionDir, "info", `${sessionId}.json`), tally);
  if (!data) return null;
  const session = toRawSession(sessionId, data, "");
  session.directory ||= readAppDirectory(storagePath);
  const messages = loadMessages(
    join(sessionDir, "message", sessionId),
    (messageId) => join(sessionDir, "part", sessionId, messageId),
    tally,
  );
  return { session, messages, location: storagePath, bytesRead: tally.bytesRead, skipped: tally.skipped };
}
