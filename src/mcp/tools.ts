/**
 * The six MCP tools over the search API and the level-3 reader (issue 10; summarize_session, issue 41): each handler
 * checks its arguments with the same parsers as the CLI (src/search: parseFilterArgs, parseLimit, findSession, ...),
 * makes one call to the layer below and renders through format.ts / turns-text.ts. No ranking or lookup of its own.
 * Every failure becomes a tool error result (`isError: true`, one line saying what to do), never a thrown
 * error: a bad argument or an unknown session must not take the server down.
 * With `archive: true` (issue 30), search, list_sessions and read_turns check their arguments the same way and answer
 * from the team archive instead (archive-tools.ts, loaded on the first such call).
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { diskFullError, isRecallError, SessionLookupError, UsageError } from "../errors.ts";
import { neutralizeControls } from "../render/escapes.ts";
import { writeErr } from "../render/terminal.ts";
import {
  defaultLimits,
  findSession,
  listSessions,
  pageOf,
  parseCount,
  parseDepth,
  parseFilterArgs,
  parseLimit,
  parseOffset,
  projectOfFolder,
  readSessionTurns,
  readTimeline,
  recentSessions,
  resolveTimelineAnchor,
  searchIndex,
  selectTurnRange,
} from "../search/index.ts";
import type { Backend } from "../service/backend.ts";
import {
  recentOutput,
  searchOutput,
  sessionsOutput,
  summaryOutput,
  timelineOutput,
  type ToolOutput,
} from "./format.ts";
import { summarizeInIndex } from "../service/summaries.ts";
import { noBackendHint } from "../render/summarize.ts";
import { descriptions, inputShapes, outputShapes, type ResultFormat } from "./schemas.ts";
import { parseBudget, parseFromChar, readTurnsOutput } from "./turns-text.ts";

/**
 * A failure as one line for the model: the message, the candidates of an ambiguous id, and the hint.
 * Examples: `no session matches zzzzzzzz (list ids with \`recall sessions\`)`;
 *   `unexpected error: <first line>` for a bug (its stack goes to stderr with RECALL_DEBUG=1).
 */
export function describeToolError(thrown: unknown): string {
  const error = diskFullError(thrown) ?? thrown;
  if (isRecallError(error)) {
    const candidates =
      error instanceof SessionLookupError && error.candidates.length > 0
        ? `: ${error.candidates.slice(0, 5).join("; ")}`
        : "";
    return neutralizeControls(
      `${error.message}${candidates}${error.hint ? ` (${error.hint})` : ""}`.replace(/\s*\n\s*/g, " "),
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  if (process.env.RECALL_DEBUG === "1" && error instanceof Error && error.stack) writeErr(`${error.stack}\n`);
  return neutralizeControls(`unexpected error: ${message.split("\n")[0]}`);
}

async function answer(run: () => Promise<ToolOutput>): Promise<CallToolResult> {
  try {
    const output = await run();
    return { content: [{ type: "text", text: output.text }], structuredContent: output.structured };
  } catch (error) {
    return { content: [{ type: "text", text: describeToolError(error) }], isError: true };
  }
}

const formatOf = (value: ResultFormat | undefined): ResultFormat => value ?? "index";

/** The team archive's tools, loaded on first use (they load the PostgreSQL client). */
const archiveTools = () => import("./archive-tools.ts");

/** Register the six tools on `server`, answering through `backend`. */
export function registerTools(server: McpServer, backend: Backend): void {
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    "search",
    {
      description: descriptions.search,
      inputSchema: inputShapes.search,
      outputSchema: outputShapes.search,
      annotations: readOnly,
    },
    (args) =>
      answer(async () => {
        // As `recall search --session`: a session implies depth 2 (its turns); depth 1 with a session is a usage error.
        const level = args.session && args.depth === undefined ? "turn" : parseDepth(args.depth);
        if (args.session && level !== "turn")
          throw new UsageError(
            "session searches the turns of one session (depth 2)",
            "leave depth out, or pass depth: 2",
          );
        const filters = parseFilterArgs(args);
        const limit = parseLimit(args.limit, defaultLimits[level]);
        const offset = parseOffset(args.offset);
        if (args.archive)
          return (await archiveTools()).archiveSearchTool(
            backend.context,
            {
              query: args.query,
              level,
              filters,
              session: args.session,
              limit,
              offset,
              format: formatOf(args.format),
            },
            backend.embedder,
          );
        return backend.withIndex(async (db) => {
          if (args.session) filters.sessionId = findSession(db, args.session).sessionId;
          const vector = await backend.vectorLeg(db);
          const response = await searchIndex(db, { query: args.query, level, filters, limit, offset }, vector.leg);
          // As `recall search`: the vector leg's reason replaces searchIndex's generic keyword-only notice.
          if (vector.notice) response.notices = [vector.notice];
          return searchOutput(response, formatOf(args.format));
        });
      }),
  );

  server.registerTool(
    "read_turns",
    {
      description: descriptions.read_turns,
      inputSchema: inputShapes.read_turns,
      outputSchema: outputShapes.read_turns,
      annotations: readOnly,
    },
    (args) =>
      answer(async () => {
        const budgetChars = parseBudget(args.budget);
        const fromChar = parseFromChar(args.from_char);
        if (args.archive)
          return (await archiveTools()).archiveReadTurnsTool(backend.context, {
            session: args.session,
            from: args.from,
            to: args.to,
            rewound: args.rewound,
            budgetChars,
            fromChar,
          });
        return backend.withIndex((db) => {
          const summary = findSession(db, args.session);
          const read = readSessionTurns(db, summary, { redact: true });
          const range = selectTurnRange(
            summary.sessionId,
            read.result.turns,
            read.result.session.turnCount,
            args.from,
            args.to,
            args.rewound ? "rewound" : "main",
          );
          return readTurnsOutput({ summary, read, range, budgetChars, fromChar });
        });
      }),
  );

  server.registerTool(
    "list_sessions",
    {
      description: descriptions.list_sessions,
      inputSchema: inputShapes.list_sessions,
      outputSchema: outputShapes.list_sessions,
      annotations: readOnly,
    },
    (args) =>
      answer(async () => {
        const filters = parseFilterArgs(args);
        const limit = parseLimit(args.limit, 20);
        const offset = parseOffset(args.offset);
        if (args.archive)
          return (await archiveTools()).archiveSessionsTool(backend.context, {
            filters,
            limit,
            offset,
            format: formatOf(args.format),
          });
        return backend.withIndex((db) =>
          sessionsOutput(pageOf(listSessions(db, filters, limit + 1, offset), offset, limit), formatOf(args.format)),
        );
      }),
  );

  server.registerTool(
    "timeline",
    {
      description: descriptions.timeline,
      inputSchema: inputShapes.timeline,
      outputSchema: outputShapes.timeline,
      annotations: readOnly,
    },
    (args) =>
      answer(async () => {
        const filters = parseFilterArgs(args);
        const before = parseCount(args.before, 5, "before", { min: 0, max: 100 });
        const after = parseCount(args.after, 5, "after", { min: 0, max: 100 });
        return backend.withIndex((db) =>
          timelineOutput(
            readTimeline(db, resolveTimelineAnchor(db, args.anchor), { before, after, filters }),
            formatOf(args.format),
          ),
        );
      }),
  );

  server.registerTool(
    "recent",
    {
      description: descriptions.recent,
      inputSchema: inputShapes.recent,
      outputSchema: outputShapes.recent,
      annotations: readOnly,
    },
    (args) =>
      answer(async () => {
        const filters = parseFilterArgs(args);
        const limit = parseLimit(args.limit, 5);
        const offset = parseOffset(args.offset);
        return backend.withIndex((db) => {
          const project = filters.project ?? projectOfFolder(db, backend.cwd);
          return recentOutput(
            recentSessions(db, { ...filters, project }, limit, offset),
            project,
            formatOf(args.format),
          );
        });
      }),
  );

  server.registerTool(
    "summarize_session",
    {
      description: descriptions.summarize_session,
      inputSchema: inputShapes.summarize_session,
      outputSchema: outputShapes.summarize_session,
      // It writes the summary into the index, and a remote backend is a request to the world (and may cost money).
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (args) =>
      answer(async () => {
        const session = await backend.withIndex((db) => findSession(db, args.session));
        const candidate = {
          rowid: session.rowid,
          sessionId: session.sessionId,
          project: session.project,
          title: session.title,
        };
        const { report } = await summarizeInIndex({
          recallHome: backend.context.recallHome,
          paths: backend.context.paths,
          candidates: [candidate],
        });
        const after = await backend.withIndex((db) => findSession(db, session.sessionId));
        const stored = after.abstract[0]?.source === "summary" ? after.abstract[0].text : null;
        return summaryOutput(after, stored, report.summarized === 1, summaryNote(report.notSummarized, stored));
      }),
  );
}

/**
 * Why a `summarize_session` answer has no fresh summary, in one line, or null when it has one: no backend (how to set
 * one), or the reason the backend gave (the stored summary, if any, is older than the session's last turns).
 */
function summaryNote(notSummarized: Record<string, number | undefined>, stored: string | null): string | null {
  const reason = Object.keys(notSummarized).find((key) => (notSummarized[key] ?? 0) > 0);
  if (reason === undefined) return stored ? null : "the session has no turns to summarize";
  const older = stored ? "; the summary shown was made before the session's last changes" : "";
  if (reason === "no_backend") return `no summary model is set (${noBackendHint})${older}`;
  return `no summary made: ${reason.replace("_", " ")}${older}`;
}
