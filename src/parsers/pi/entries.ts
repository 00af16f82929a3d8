/**
 * A pi session file decoded into its header and its entries (docs/formats/pi.md; badlogic/pi-mono
 * `packages/coding-agent/src/core/session-manager.ts` and `docs/session.md` at 83378aad). The first line is the header
 * `{type:"session", version?, id, timestamp, cwd, parentSession?}`; every other line is an entry
 * `{type, id, parentId, timestamp, …}` of a tree (version 2 and 3). Version 1 files (no `version`, entries without
 * ids, as pi wrote them before 2025-12) form a chain in file order, exactly as pi's own `migrateV1ToV2` links them.
 * The branch pi resumes is the path from the file's last entry to the root (`SessionManager._buildIndex` sets the
 * leaf to the last entry); entries off it are on branches the user left with `/tree` or `/fork`.
 */
import { asObject, timeOf } from "../shared/fields.ts";
import type { RawLine } from "../shared/jsonl-lines.ts";

/** The header line of a session file. */
export interface PiHeader {
  id: string;
  /** Working folder the session ran in; "" when not recorded. */
  cwd: string;
  /** Epoch ms of the header's `timestamp`, 0 when missing. */
  time: number;
  /** `version`, 1 when absent. */
  version: number;
}

/** One entry of the tree, with the link pi resumes by. */
export interface PiEntry {
  /** 1-based line in the file. */
  line: number;
  /** The entry's `id`, or `#<line>` for a version 1 entry (which has none). */
  id: string;
  parentId: string | null;
  type: string;
  /** Epoch ms of `timestamp` (ISO), else of the message's `timestamp` (ms), else 0. */
  time: number;
  value: Record<string, unknown>;
}

/** The header of a decoded first line, or null when it is no pi session header (`type` "session" with an id). */
export function headerOf(value: Record<string, unknown>): PiHeader | null {
  if (value.type !== "session" || typeof value.id !== "string" || value.id.length === 0) return null;
  return {
    id: value.id,
    cwd: typeof value.cwd === "string" ? value.cwd : "",
    time: timeOf(value.timestamp),
    version: typeof value.version === "number" ? value.version : 1,
  };
}

/**
 * The entries of the lines after the header, in file order. An entry without a string `id` (version 1) gets `#<line>`
 * and the entry before it as parent; a `parentId` that is not a string is the root's null.
 */
export function entriesOf(lines: readonly RawLine[]): PiEntry[] {
  const entries: PiEntry[] = [];
  let previous: string | null = null;
  for (const { line, value } of lines) {
    const hasId = typeof value.id === "string" && value.id.length > 0;
    const id = hasId ? (value.id as string) : `#${line}`;
    const parentId = hasId ? (typeof value.parentId === "string" ? value.parentId : null) : previous;
    const messageTime = asObject(value.message)?.timestamp;
    const time = timeOf(value.timestamp) || (typeof messageTime === "number" ? messageTime : 0);
    entries.push({ line, id, parentId, type: typeof value.type === "string" ? value.type : "", time, value });
    previous = id;
  }
  return entries;
}

/**
 * The ids on the branch pi resumes: the last entry and its ancestors (a cycle or a missing parent ends the walk).
 * Example: a→b→c and a→d written in that order → {a, d}.
 */
export function activeBranch(entries: readonly PiEntry[]): Set<string> {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const onPath = new Set<string>();
  let entry = entries.at(-1);
  while (entry && !onPath.has(entry.id)) {
    onPath.add(entry.id);
    entry = entry.parentId === null ? undefined : byId.get(entry.parentId);
  }
  return onPath;
}
