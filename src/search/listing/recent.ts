/**
 * "Where did we leave off": the latest sessions of a project with their titles, first and last prompts
 * (issue 10, the MCP `recent` tool). Built on `listSessions` (same filters, same newest-first order) plus two
 * primary-key reads per session, so it stays a few ms at 20k sessions. Also finds which indexed project a
 * working folder belongs to, for front ends that default to "this project".
 */
import type { Database } from "bun:sqlite";
import { dirname } from "node:path";
import { redactText } from "../../redact/index.ts";
import type { SearchFilters } from "./filters.ts";
import { pageOf, type Page } from "./paging.ts";
import { listSessions, type SessionSummary } from "./sessions.ts";

/** A session with the prompts that say what it was about and where it stopped. */
export interface RecentSession extends SessionSummary {
  /** The first human prompt, whole ("" for a session without turns). */
  firstPrompt: string;
  /** The last human prompt, whole ("" without turns; equal to `firstPrompt` for a one-turn session). */
  lastPrompt: string;
}

/**
 * The latest sessions matching `filters`, newest first (by last activity), one page.
 * @param limit sessions per page (checked by the caller with `parseLimit`)
 * @param offset sessions skipped first (0-based)
 */
export function recentSessions(db: Database, filters: SearchFilters, limit: number, offset = 0): Page<RecentSession> {
  const page = pageOf(listSessions(db, filters, limit + 1, offset), offset, limit);
  const prompt = db.query<{ prompt: string }, [number, number]>(
    "SELECT prompt FROM turns WHERE session_rowid = ? AND number = ?",
  );
  const items = page.items.map((session) => ({
    ...session,
    firstPrompt: session.turns > 0 ? (prompt.get(session.rowid, 1)?.prompt ?? "") : "",
    lastPrompt: session.turns > 0 ? (prompt.get(session.rowid, session.turns)?.prompt ?? "") : "",
  }));
  return { ...page, items };
}

/**
 * The indexed project path that `folder` is, or lies inside of (the nearest ancestor that some session
 * was recorded in), or undefined when none is. Lets a server started in a project's folder default to it.
 * Examples: `/work/app/src` with sessions in `/work/app` → `/work/app`; `/tmp` → undefined. The path is returned as
 * stored, redacted: `/home/u/ghp_…/app` → `/home/u/[REDACTED:github-token]/app`.
 */
export function projectOfFolder(db: Database, folder: string): string | undefined {
  const known = db.query<{ found: number }, [string]>("SELECT 1 AS found FROM sessions WHERE project_path = ? LIMIT 1");
  for (let dir = folder; ; dir = dirname(dir)) {
    // Project paths are stored redacted (issue 37: a token in a folder name), so the folder is compared redacted.
    const stored = redactText(dir);
    if (dir !== "/" && known.get(stored)) return stored;
    if (dirname(dir) === dir) return undefined;
  }
}

/** One turn of a session as listed without a query: number, time (epoch ms), prompt and answer, whole. */
export interface ListedTurn {
  number: number;
  timestamp: number;
  prompt: string;
  response: string;
}

/** The last `limit` main turns of the session with rowid `sessionRowid`, latest first (primary-key reads). */
export function lastTurns(db: Database, sessionRowid: number, limit: number): ListedTurn[] {
  return db
    .query<ListedTurn, [number, number]>(
      "SELECT number, timestamp, prompt, response FROM turns WHERE session_rowid = ? AND number > 0 ORDER BY number DESC LIMIT ?",
    )
    .all(sessionRowid, limit);
}
