/**
 * Choosing whole sessions to act on, for `recall forget` and `recall export` (issue 9): one session (by id or
 * unique prefix) together with its sub-agent sessions, or every session matching the filters, sub-agents and
 * sessions whose source is deleted included. Ordered oldest first (by start time, then id), the order of an archive.
 */
import type { Database } from "bun:sqlite";
import type { SearchFilters } from "./filters.ts";
import { findSession, listSessions, loadSessionSummaries, type SessionSummary } from "./sessions.ts";

/** What to select: `session`, or the filters (both may not be empty: the caller checks that). */
export interface SessionSelection {
  /** A whole session id or a unique prefix of 8+ characters: that session and its sub-agent sessions. */
  session?: string;
  /** Applied when `session` is absent; `includeSubagents` is forced on. */
  filters: SearchFilters;
}

/** Rowids of the sessions below `rowid` (sub-agents, their sub-agents, …), by `parent_session_id`. */
function descendants(db: Database, root: SessionSummary): number[] {
  const children = db.query<{ id: number; session_id: string }, [string, string]>(
    "SELECT id, session_id FROM sessions WHERE source = ? AND parent_session_id = ?",
  );
  const found: number[] = [];
  const seen = new Set([root.sessionId]);
  const queue = [root.sessionId];
  while (queue.length > 0) {
    for (const child of children.all(root.source, queue.shift()!)) {
      if (seen.has(child.session_id)) continue;
      seen.add(child.session_id);
      found.push(child.id);
      queue.push(child.session_id);
    }
  }
  return found;
}

/**
 * The sessions a selection names, oldest first.
 * @throws SessionLookupError SESSION_NOT_FOUND / SESSION_AMBIGUOUS for a `session` that matches none or several
 */
export function selectSessions(db: Database, selection: SessionSelection): SessionSummary[] {
  let sessions: SessionSummary[];
  if (selection.session !== undefined) {
    const root = findSession(db, selection.session);
    sessions = [root, ...loadSessionSummaries(db, descendants(db, root)).values()];
  } else {
    sessions = listSessions(db, { ...selection.filters, includeSubagents: true }, -1);
  }
  return sessions.sort(
    (a, b) => a.startedAt - b.startedAt || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0),
  );
}
