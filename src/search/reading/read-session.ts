/**
 * The level-3 reader shared by every front end (`recall show`, `recall export`, the MCP server's
 * `read_turns`): a session's whole conversation with tool calls and outputs. It re-parses the source when it
 * is there (full fidelity, full outputs) and otherwise reads what the index archived (prompts, responses,
 * compact tool calls with outputs cut to 40 lines / 4 KB), saying which it did. Everything it returns is
 * redacted unless the caller opts out (`--no-redact`, a person at a terminal).
 */
import type { Database } from "bun:sqlite";
import { SourceError } from "../../errors.ts";
import { readStoredSession } from "../../index/index.ts";
import { parserFor, type ParseResult, type SourceUnit } from "../../parsers/index.ts";
import { redactParseResult } from "../../redact/index.ts";
import type { SessionSummary } from "../listing/sessions.ts";

/** Options of {@link readSessionTurns}. */
export interface ReadSessionOptions {
  /** Replace secrets by `[REDACTED:<kind>]` markers; default true. */
  redact?: boolean;
}

/** What {@link readSessionTurns} returns. */
export interface SessionRead {
  /** The session and all its turns (numbered from 1, in order). */
  result: ParseResult;
  /** True when the turns come from the index's archive, not from the source. */
  fromArchive: boolean;
  /**
   * Why the archive was read, one lower-case phrase: `source deleted` (the file or row vanished) or
   * `source unreadable: <reason>`; undefined when the source was read.
   */
  archiveReason: string | undefined;
}

/**
 * Read one indexed session for level 3: from its source when present and readable, else from the archive.
 * @throws SourceError SOURCE_UNREADABLE only when the source cannot be read and the index holds no copy either
 */
export function readSessionTurns(db: Database, summary: SessionSummary, options: ReadSessionOptions = {}): SessionRead {
  let read: SessionRead;
  if (summary.sourceStatus === "deleted") {
    read = fromArchive(db, summary, "source deleted");
  } else {
    try {
      read = { result: reparseSession(db, summary), fromArchive: false, archiveReason: undefined };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      read = fromArchive(db, summary, `source unreadable: ${reason}`, error);
    }
  }
  return options.redact === false ? read : { ...read, result: redactParseResult(read.result) };
}

function fromArchive(db: Database, summary: SessionSummary, reason: string, cause?: unknown): SessionRead {
  const stored = readStoredSession(db, summary.rowid);
  if (!stored)
    throw new SourceError(
      `session ${summary.sessionId} is not in the index any more and its source cannot be read`,
      summary.location,
      { cause, hint: "run `recall index`" },
    );
  return { result: stored, fromArchive: true, archiveReason: reason };
}

/**
 * Re-parse one indexed session from its source with full tool outputs (level 3).
 * @throws SourceError when the source file or database is gone or unreadable
 */
export function reparseSession(db: Database, session: SessionSummary): ParseResult {
  const row = db
    .query<{ unit_key: string; container_path: string; change_key: string; unit_locator: string | null }, [number]>(
      "SELECT unit_key, container_path, change_key, unit_locator FROM sessions WHERE id = ?",
    )
    .get(session.rowid)!;
  const unit: SourceUnit = {
    source: session.source,
    key: row.unit_key,
    sessionId: session.sessionId,
    containerPath: row.container_path,
    changeKey: row.change_key,
    ...(row.unit_locator ? { locator: JSON.parse(row.unit_locator) as SourceUnit["locator"] } : {}),
  };
  return parserFor(session.source).parse(unit, { withOutputs: true });
}

/** One session of an export: its summary and what {@link readSessionTurns} read. */
export interface ExportedSession {
  summary: SessionSummary;
  read: SessionRead;
}

/**
 * Read sessions one after another for `recall export` (a generator, so a large archive is never held in memory
 * at once), each through {@link readSessionTurns}.
 */
export function* readSessions(
  db: Database,
  sessions: readonly SessionSummary[],
  options: ReadSessionOptions = {},
): Generator<ExportedSession> {
  for (const summary of sessions) yield { summary, read: readSessionTurns(db, summary, options) };
}
