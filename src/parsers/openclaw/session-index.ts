/**
 * An OpenClaw agent's session index, `agents/<agent id>/sessions/sessions.json`: one object keyed by session key
 * (`agent:main:main`, `agent:main:telegram:dm:123`, a sub-agent's `agent:main:subagent:<uuid>`), each value a
 * `SessionEntry` `{sessionId, updatedAt, spawnedBy?, label?, …}` whose `spawnedBy` is the key of the session that
 * spawned it with `sessions_spawn` (openclaw/openclaw `src/config/sessions/types.ts` and `src/config/sessions/paths.ts`
 * `resolveDefaultSessionStorePath`, commit 00358f66; docs.openclaw.ai/concepts/session-tool). Read here only to link a
 * sub-agent's transcript to its parent's.
 */
import { readFileSync } from "node:fs";
import { isMissingError } from "../file-stats.ts";
import { asObject } from "../shared/fields.ts";

/** The index's file name in a `sessions/` folder. */
export const sessionIndexName = "sessions.json";

/** What the index says of one session. */
export interface SessionLinks {
  /** The spawning session's id, when its key is in the same index; else null. */
  parentSessionId: string | null;
  /** True for a session `sessions_spawn` started (it has `spawnedBy`, or its key names a sub-agent). */
  isSubagent: boolean;
  /** The label given at spawn (`sessions_spawn {label}`), or null. */
  label: string | null;
}

/**
 * Session id → links, from one `sessions.json`. A missing file, or one that is not a JSON object (being rewritten),
 * gives an empty map: the links are then read again when the file's stats change.
 * Example: `{"agent:main:main":{"sessionId":"a"},"agent:main:subagent:7":{"sessionId":"b","spawnedBy":"agent:main:main"}}`
 *   → b: {parentSessionId: "a", isSubagent: true}; a: {parentSessionId: null, isSubagent: false}.
 * @throws the fs error when the file exists but cannot be read
 */
export function readSessionIndex(path: string): Map<string, SessionLinks> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (isMissingError(error)) return new Map();
    throw error;
  }
  let store: Record<string, unknown> | undefined;
  try {
    store = asObject(JSON.parse(text));
  } catch {
    store = undefined;
  }
  const links = new Map<string, SessionLinks>();
  if (!store) return links;
  const idOfKey = new Map<string, string>();
  for (const [key, value] of Object.entries(store)) {
    const id = asObject(value)?.sessionId;
    if (typeof id === "string" && id.length > 0) idOfKey.set(key, id);
  }
  for (const [key, value] of Object.entries(store)) {
    const entry = asObject(value);
    const id = entry?.sessionId;
    if (!entry || typeof id !== "string" || id.length === 0) continue;
    const spawnedBy = typeof entry.spawnedBy === "string" && entry.spawnedBy.length > 0 ? entry.spawnedBy : null;
    links.set(id, {
      parentSessionId: spawnedBy ? (idOfKey.get(spawnedBy) ?? null) : null,
      isSubagent: spawnedBy !== null || key.includes(":subagent:"),
      label: typeof entry.label === "string" && entry.label.length > 0 ? entry.label : null,
    });
  }
  return links;
}
