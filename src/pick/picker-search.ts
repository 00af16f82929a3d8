/**
 * What the picker shows, read from the index through the same search API as `recall search` and the MCP server (one
 * ranking path): the sessions of a query (level 1), the matching turns of one session (level 2), the recent sessions
 * when the query is empty (this project's first), and a range of turns re-parsed from the source (level 3, as `recall
 * show` prints it). Texts come from the index, which holds them redacted, or through `readSessionTurns` with redaction
 * on; every text is passed through `neutralizeControls` before it reaches the screen.
 */
import type { Database } from "bun:sqlite";
import { abstractLine, type Palette } from "../render/format.ts";
import { neutralizeControls } from "../render/escapes.ts";
import { renderShowText, showViewOf } from "../render/show.ts";
import { searchIndex, type SearchMode, type VectorLeg } from "../search/api.ts";
import type { SearchFilters } from "../search/listing/filters.ts";
import {
  attachLongLivedSearch,
  findSession,
  makePreview,
  parseLexicalQuery,
  previewPieces,
  readSessionTurns,
  selectTurnRange,
  type Preview,
  type ResumableSession,
  type SessionResult,
  type SessionSummary,
  type TurnResult,
} from "../search/index.ts";
import { lastTurns, recentSessions, type RecentSession } from "../search/listing/recent.ts";
import type { SourceId } from "../parsers/types.ts";
import { sourceInfo } from "../parsers/sources.ts";

/** One session row of the list. Times in epoch ms. */
export interface PickRow extends ResumableSession {
  project: string;
  /** The tool's title, else the first prompt; never empty. */
  title: string;
  /**
   * The first part of the session's abstract (issue 41) as `<source label>: <text>` on one line (render/format.ts
   * `abstractLine`, 400 characters at most), control characters shown as `\xNN`; "" when it has none.
   */
  abstract: string;
  /** Last activity (the session's end). */
  when: number;
  /** False when the search's answer held no confident match for it (a weak match); true for recent sessions. */
  confident: boolean;
  /** The turn holding the best match; 0 for the session document or a recent session (its last turn is shown). */
  bestTurn: number;
  /** Turns in the session. */
  turns: number;
}

/** One turn of the level-2 list: its number, time (epoch ms), prompt and the matching part of the answer. */
export interface PickTurn {
  turn: number;
  when: number;
  /** The whole prompt, with the query's matches. */
  prompt: Preview;
  /** Up to 400 characters of the answer around the match ("" for a recent session's turn list). */
  answer: Preview;
  tools: string[];
  confident: boolean;
}

/** The sessions for a query. */
export interface SessionList {
  query: string;
  rows: PickRow[];
  /** What ran: "keyword", "hybrid", or "recent" for an empty query. */
  mode: SearchMode | "recent";
  /** False when the answer holds no confident match ("no confident match" is said above the rows). */
  confident: boolean;
  /** One-line notices of the search (why it ran keyword-only, …). */
  notices: string[];
  /** True when more sessions would come with a larger limit. */
  more: boolean;
  /** When the answer was made (epoch ms): the rows' relative dates are as of then. */
  answeredAt: number;
}

/**
 * Sessions fetched per query at first, and added each time the selection nears the end of the list, for a list of
 * `visibleRows` rows: those rows and 5 more, so moving a few rows down fetches nothing. Every session fetched is
 * hydrated (its preview made) on every key: at 20k sessions a key's keyword search took ~3 ms less for 14 sessions (a
 * 30-row terminal) than for a fixed 25, and 25 had halved it against 50 (~45 against ~75 ms).
 * Examples: 11 rows (100×30) → 16; 3 rows → 8.
 */
export function listPageFor(visibleRows: number): number {
  return Math.max(1, visibleRows) + 5;
}
/** Turns listed at level 2. */
export const turnLimit = 30;

const safe = (text: string): string => neutralizeControls(text);

/**
 * A preview with its control characters shown as `\xNN` and its highlight spans moved to match: each piece between
 * span edges is neutralized alone (as render/format.ts `highlight` does), so a match after an escape stays on its word.
 */
export function safePreview(preview: Preview): Preview {
  let text = "";
  const highlights: Array<[number, number]> = [];
  for (const piece of previewPieces(preview)) {
    const shown = safe(piece.text);
    if (piece.matched) highlights.push([text.length, text.length + shown.length]);
    text += shown;
  }
  return { text, highlights };
}

/**
 * The tool's short name as the rows show it: its folder option without `-dir` (parsers/sources.ts), e.g.
 * `claude-code` → `claude`, `gemini-cli` → `gemini`, `roo-code` → `roo`, `codex` → `codex`.
 */
export function agentName(source: SourceId): string {
  return sourceInfo(source).flag.replace(/-dir$/, "");
}

/** The session fields a row is made of (a search result and a recent session both have them). */
type RowSource = Omit<SessionSummary, "rowid" | "location" | "files"> & { files?: string[] };

/** A row of `session`, titled by its title or else `fallbackTitle` (its best preview or first prompt). */
function rowOf(session: RowSource, fallbackTitle: string, confident: boolean, bestTurn: number): PickRow {
  return {
    source: session.source,
    sessionId: session.sessionId,
    projectPath: session.projectPath,
    promptOnly: session.promptOnly,
    sourceStatus: session.sourceStatus,
    isSubagent: session.isSubagent,
    parentSessionId: session.parentSessionId,
    project: safe(session.project),
    title: safe(session.title || fallbackTitle || "(no prompt)"),
    abstract: safe(abstractLine(session.abstract, 400) ?? ""),
    when: session.endedAt || session.startedAt,
    confident,
    bestTurn,
    turns: session.turns,
  };
}

// The list's searches read no previews (the preview pane searches the session's turns): a session without a title
// has no typed prompt either (index/write/derived-title.ts), and is listed as "(no prompt)".
const rowOfResult = (result: SessionResult): PickRow => rowOf(result, "", result.confident, result.bestTurn);
const rowOfRecent = (session: RecentSession): PickRow => rowOf(session, session.firstPrompt, true, 0);

/**
 * The index as the picker reads it: one open connection, the command line's filters, and the vector leg once the
 * embedding side is ready (set later by the caller; until then every search is keyword-only).
 */
export class PickerSearch {
  /** The vector leg; undefined → keyword-only. Set when the warm helper (or a remote endpoint) answers. */
  vectorLeg: VectorLeg | undefined;

  /**
   * @param db an open index (read-only is enough); replaced with {@link reopen}
   * @param filters the command line's filters (project, source, since)
   * @param currentProject the indexed project the picker was started in, listed first for an empty query
   */
  constructor(
    private db: Database,
    private readonly filters: SearchFilters,
    private readonly currentProject: string | undefined,
  ) {
    this.detachSearch = attachLongLivedSearch(db);
  }

  /** Detaches what the current connection's searches share (search/long-lived.ts): the match worker, the kept scorings. */
  private detachSearch: () => void;

  /** Use another connection (after a background index run committed); the old one is closed. */
  reopen(db: Database): void {
    this.detachSearch();
    this.db.close();
    this.db = db;
    this.detachSearch = attachLongLivedSearch(db);
  }

  /** Run `fn` on the current connection (the vector leg is opened on it). */
  withDatabase<T>(fn: (db: Database) => T): T {
    return fn(this.db);
  }

  /** Close the connection. */
  close(): void {
    this.detachSearch();
    this.db.close();
  }

  /**
   * The first `limit` sessions for `query`: recent sessions when it is blank (this project's first), else a level-1
   * search, keyword-only unless `semantic` and a vector leg is set.
   */
  async sessions(query: string, semantic: boolean, limit: number): Promise<SessionList> {
    if (query.trim() === "") {
      const { rows, more } = this.recent(limit);
      return { query, rows, mode: "recent", confident: true, notices: [], more, answeredAt: Date.now() };
    }
    const leg = semantic ? this.vectorLeg : undefined;
    const response = await searchIndex(
      this.db,
      { query, level: "session", filters: this.filters, limit, mode: leg ? "hybrid" : "keyword", previews: false },
      leg,
    );
    return {
      query,
      rows: (response.results as SessionResult[]).map(rowOfResult),
      mode: response.mode,
      confident: response.confident,
      notices: response.notices,
      more: response.nextOffset !== undefined,
      answeredAt: Date.now(),
    };
  }

  /** The latest `limit` sessions, newest first, those of the current project before the others. */
  private recent(limit: number): { rows: PickRow[]; more: boolean } {
    const all = recentSessions(this.db, this.filters, limit);
    if (!this.currentProject || this.filters.project)
      return { rows: all.items.map(rowOfRecent), more: all.nextOffset !== undefined };
    const own = recentSessions(this.db, { ...this.filters, project: this.currentProject }, limit).items.filter(
      (session) => session.projectPath === this.currentProject,
    );
    const ownIds = new Set(own.map((session) => session.sessionId));
    const rows = [...own.map(rowOfRecent), ...all.items.map(rowOfRecent).filter((row) => !ownIds.has(row.sessionId))];
    return { rows: rows.slice(0, limit), more: rows.length > limit || all.nextOffset !== undefined };
  }

  /**
   * The turns of `row`'s session for `query` (level 2), best first; for a blank query its last turns, latest first.
   */
  async turns(row: PickRow, query: string, semantic: boolean): Promise<PickTurn[]> {
    if (query.trim() === "") return this.lastTurns(row);
    const leg = semantic ? this.vectorLeg : undefined;
    const response = await searchIndex(
      this.db,
      {
        query,
        level: "turn",
        filters: { ...this.filters, sessionId: row.sessionId, includeSubagents: true },
        limit: turnLimit,
        mode: leg ? "hybrid" : "keyword",
      },
      leg,
    );
    const words = parseLexicalQuery(query).highlightWords;
    return (response.results as TurnResult[]).map((turn) => ({
      turn: turn.turn,
      when: turn.timestamp,
      prompt: safePreview(makePreview(turn.prompt, words, 2000)),
      answer: safePreview(turn.responseExcerpt),
      tools: turn.tools,
      confident: turn.confident,
    }));
  }

  /** The session's last turns, latest first, with their prompts (level 2 of a recent session). */
  private lastTurns(row: PickRow): PickTurn[] {
    const summary = findSession(this.db, row.sessionId);
    return lastTurns(this.db, summary.rowid, turnLimit).map((turn) => ({
      turn: turn.number,
      when: turn.timestamp,
      prompt: safePreview(makePreview(turn.prompt, [], 2000)),
      answer: safePreview(makePreview(turn.response, [], 400)),
      tools: [],
      confident: true,
    }));
  }

  /**
   * Turns `from`..`to` of `row`'s session as `recall show` prints them (re-parsed from the source, from recall's
   * archive when it is gone; tool calls included; secrets redacted), one string per line.
   * @throws UsageError when the session has no such turn; RecallError when neither source nor archive can be read
   */
  showLines(row: PickRow, from: number, to: number, palette: Palette): string[] {
    const summary = findSession(this.db, row.sessionId);
    const read = readSessionTurns(this.db, summary, { redact: true });
    const chosen = selectTurnRange(summary.sessionId, read.result.turns, read.result.session.turnCount, from, to);
    return renderShowText(showViewOf({ summary, read }, chosen.from, chosen.to), palette)
      .replace(/\n$/, "")
      .split("\n");
  }
}
