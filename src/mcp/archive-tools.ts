/**
 * The MCP tools with `archive: true` (issue 30): search, list_sessions and read_turns answer from the team archive on
 * PostgreSQL (RECALL_ARCHIVE_URL from the environment or the settings file, as `recall search --archive`), through the
 * same team-archive calls as the CLI (searchArchive, listArchiveSessions, readArchiveSession); this file maps the
 * checked arguments; a search's answer is rendered as a local one (format.ts), listings and turns by archive-format.ts. One connection per call: opened, used, closed. Loaded only when a
 * call asks for the archive, so a server that never does never loads the PostgreSQL client.
 * Errors are thrown as the layers below throw them (UsageError "no team archive is set up", ArchiveError); tools.ts
 * turns each into a one-line tool error and the server keeps serving.
 */
import type { HistoryContext } from "../service/context.ts";
import { archiveUrlOf } from "../service/archive-url.ts";
import { UsageError } from "../errors.ts";
import type { SearchFilters } from "../search/listing/filters.ts";
import { selectTurnRange } from "../search/index.ts";
import { requireQueryText } from "../search/ranking/query.ts";
import type { SearchLevel } from "../search/ranking/lexical.ts";
import { type ArchiveConnection, openArchive } from "../team-archive/connection.ts";
import { listArchiveSessions } from "../team-archive/listing.ts";
import { assertArchiveReady } from "../team-archive/schema.ts";
import { searchArchive } from "../team-archive/search.ts";
import { chooseArchiveVectorLeg, localModelFingerprint } from "../team-archive/vectors.ts";
import type { EmbedderOpener } from "../service/embedder.ts";
import { readArchiveSession, resolveArchiveSessionId } from "../team-archive/show.ts";
import { archiveReadTurnsOutput, archiveSessionsOutput, turnOfArchive } from "./archive-format.ts";
import { searchOutput, type ToolOutput } from "./format.ts";
import type { ResultFormat } from "./schemas.ts";

/**
 * Run `fn` on a fresh connection to the configured archive, checked to have this recall's schema, then close it.
 * @throws UsageError when no archive is configured; ArchiveError (unreachable, login refused, not initialized, …)
 */
async function withArchive<T>(context: HistoryContext, fn: (connection: ArchiveConnection) => Promise<T>): Promise<T> {
  const connection = await openArchive(archiveUrlOf(undefined, context), { applicationName: "recall mcp" });
  try {
    await assertArchiveReady(connection);
    return await fn(connection);
  } finally {
    await connection.close();
  }
}

/** A search of the archive, its arguments checked by tools.ts as a local search's. */
export interface ArchiveSearchArgs {
  query: string;
  level: SearchLevel;
  filters: SearchFilters;
  /** The session to search within (depth 2): an archive id, a session id or a prefix of 8+ characters. */
  session?: string;
  limit: number;
  offset: number;
  format: ResultFormat;
}

/**
 * The `search` tool with archive: true: a page at `offset`, as the CLI's `search --archive --offset`, hybrid when this
 * machine's model (the server's shared `embedder`, kept open across calls) wrote vectors the archive holds.
 * @throws UsageError for a query with no visible characters (requireQueryText, checked before the archive is opened
 *         or the model loaded, as the CLI checks it); as {@link withArchive}; SessionLookupError for an unknown or
 *         ambiguous `session`
 */
export async function archiveSearchTool(
  context: HistoryContext,
  args: ArchiveSearchArgs,
  embedder: EmbedderOpener | undefined,
): Promise<ToolOutput> {
  requireQueryText(args.query);
  return withArchive(context, async (connection) => {
    const filters = { ...args.filters };
    if (args.session) filters.sessionId = await resolveArchiveSessionId(connection, args.session);
    const semantic = embedder
      ? await chooseArchiveVectorLeg(connection, localModelFingerprint(context.recallHome), () => embedder.open())
      : { notice: "keyword-only search: the server runs without a model" };
    const response = await searchArchive(
      connection,
      { query: args.query, level: args.level, filters, limit: args.limit, offset: args.offset },
      semantic.leg,
    );
    if (semantic.notice) response.notices = [semantic.notice]; // the reason replaces the generic notice
    return searchOutput(response, args.format);
  });
}

/** The `list_sessions` tool with archive: true (sessions without any turn left out, as in the local listing). */
export function archiveSessionsTool(
  context: HistoryContext,
  args: { filters: SearchFilters; limit: number; offset: number; format: ResultFormat },
): Promise<ToolOutput> {
  return withArchive(context, async (connection) =>
    archiveSessionsOutput(
      await listArchiveSessions(connection, {
        filters: { ...args.filters, hasTurns: true },
        limit: args.limit,
        offset: args.offset,
      }),
      args.format,
    ),
  );
}

/**
 * The `read_turns` tool with archive: true: `session` is an archive id, a session id or a prefix of 8+ characters;
 * `from`/`to` are checked as locally (search/reading/turn-range.ts). The archive holds the conversation only: `rewound` is a
 * usage error.
 * @throws as {@link withArchive}; SessionLookupError; UsageError for a bad range or `rewound`
 */
export function archiveReadTurnsTool(
  context: HistoryContext,
  args: { session: string; from?: number; to?: number; rewound?: boolean; budgetChars: number; fromChar: number },
): Promise<ToolOutput> {
  if (args.rewound)
    return Promise.reject(
      new UsageError("the team archive holds the conversation only, not rewound turns", "drop rewound"),
    );
  return withArchive(context, async (connection) => {
    const { session, turns } = await readArchiveSession(connection, args.session);
    const range = selectTurnRange(
      session.sessionId,
      turns.map((turn) => turnOfArchive(session, turn)),
      session.turns,
      args.from,
      args.to,
    );
    return archiveReadTurnsOutput({
      session,
      range,
      budgetChars: args.budgetChars,
      fromChar: args.fromChar,
      archive: connection.url.display,
    });
  });
}
