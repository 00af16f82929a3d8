/**
 * The MCP tools' definitions as the agent sees them: names, descriptions and input schemas (zod, turned into
 * JSON Schema by the SDK), and the output schemas of `structuredContent`. Every word here is paid for by the
 * agent at every session start (issue 10 target: all five definitions ≤ 1,000 tokens; scripts/bench/mcp.ts
 * measures them), so descriptions are short and argument checks beyond the JSON type live in src/search
 * (parseLimit, parseDateFilter, parseSource, findSession), where the CLI's flags are checked too.
 *
 * Output contract (fields are only ever added; names follow `recall search --json`): every list tool returns
 * `{results: [...], offset, next_offset (null on the last page)}` plus tool fields. `format: "index"` items
 * carry ids, title, dates, score and a one-line preview; `full` adds every field of the CLI's JSON.
 */
import * as z from "zod";
import { sourceIds } from "../parsers/index.ts";
import { sources } from "../parsers/sources.ts";
import { fenceInstructions } from "./session-text.ts";

const text = (description: string) => z.string().describe(description);
const count = (description: string) => z.number().describe(description);

/**
 * Filters and paging shared by the list tools (same meaning as the CLI flags of the same names). Only search's
 * `source` lists every agent id; the others point to it, so each new agent costs the tool list one id, not four
 * (the tool definitions stay under 1,000 tokens: test/mcp/tools.test.ts).
 */
const sourceFilter = text(sourceIds.join("|")).optional();
const scope = {
  project: text("Path or name contains").optional(),
  source: text("Agent id, as in search").optional(),
};
const dates = {
  since: text("Date, age (7d) or words").optional(),
  until: text("Date, age or words").optional(),
};
const skip = { offset: count("Skip N (paging)").optional() };
const paging = (defaultLimit: number) => ({ limit: count(`Default ${defaultLimit}`).optional(), ...skip });
/** `index` (the default: one line each) or `full`; the names say it, so no description is paid for four times. */
const format = { format: z.enum(["index", "full"]).optional() };
/** The team archive switch (issue 30): the answer comes from the shared PostgreSQL archive (RECALL_ARCHIVE_URL). */
const teamArchive = { archive: z.boolean().optional().describe("Team archive") };

/** Input schemas (raw zod shapes, as McpServer.registerTool takes them). */
export const inputShapes = {
  search: {
    query: text("What to find"),
    depth: count("1 sessions (default), 2 turns").optional(),
    session: text("Depth 2: within this session").optional(),
    ...scope,
    source: sourceFilter,
    ...dates,
    limit: count("Default 5 (depth 2: 10)").optional(),
    ...skip,
    ...format,
    ...teamArchive,
  },
  read_turns: {
    session: text("Session id or 8+ char prefix"),
    from: count("Default 1").optional(),
    to: count("Default last").optional(),
    budget: count("Max answer chars, default 8000").optional(),
    from_char: count("Continue turn `from` at this char ([truncated])").optional(),
    rewound: z.boolean().optional().describe("The rewound branch's turns"),
    ...teamArchive,
  },
  list_sessions: { ...scope, ...dates, ...paging(20), ...format, ...teamArchive },
  timeline: {
    anchor: text("session:turn or time (2026-03-01T10:00, 3d)"),
    before: count("Default 5").optional(),
    after: count("Default 5").optional(),
    ...scope,
    ...format,
  },
  recent: { ...scope, ...paging(5), ...format },
  summarize_session: { session: text("Session id or 8+ char prefix") },
};

/** Tool descriptions: what it answers and which tool comes next. */
export const descriptions = {
  search: `Search past coding-agent sessions by keywords, exact identifiers too, and by meaning (with embeddings). Then read_turns.`,
  read_turns:
    "Read a session's turns: prompts, replies, compact tool calls (redacted). At most budget chars; when cut, a marker says what to ask next.",
  list_sessions: "List sessions, newest first.",
  timeline: "Turns around an anchor, all projects: what was I doing then?",
  recent: "Latest sessions, first/last prompts: where did we leave off? Default: this project.",
  summarize_session: "A session's summary: stored, else made if a summary model is set, else its abstract.",
};

/**
 * The server's `instructions` (initialize result), which clients such as Claude Code put in the agent's system
 * prompt: when recall helps, the way from a session to its turns to their text, and the budget and paging
 * rules, and that session text is fenced data (session-text.ts). Kept under 1,900 characters: Claude Code cuts
 * server instructions at 2 KB (its MCP docs, "For MCP server authors"), and a client shows them in every session.
 */
export const serverInstructions = [
  `recall searches the saved history of this machine's coding-agent sessions (${sources.length} agents: ${sources
    .slice(0, 5)
    .map((source) => source.displayName)
    .join(", ")} and the others search's source lists), including sessions those tools have since deleted.`,
  'Use it when the user refers to earlier work ("what did we do about X", "last time", "where did we leave off"), before redoing an investigation, or to find an exact identifier, error message, command or path seen before.',
  "Go from sessions to turns to text:",
  "1. search (depth 1) lists sessions with their best turn;",
  "2. search session=ID lists the matching turns inside one session (depth 2);",
  "3. read_turns session=ID from=N to=M reads those turns in full (secrets redacted).",
  'A result with branch "rewound" is on a branch the user rewound past (an edited prompt): read it with read_turns rewound=true.',
  "recent answers where we left off in this project; timeline, what happened around a moment; list_sessions lists by date.",
  "read_turns answers in at most budget characters (default 8000, 500-200000), header and notes included. When more is left it ends with [truncated, N more characters, ask for turns X-Y] (with from_char=C when it stopped inside a turn): call read_turns again with from=X to=Y and that from_char to continue exactly where it stopped; nothing is skipped.",
  "The list tools page with offset: pass next_offset to get the next page.",
  "archive=true asks the team archive instead (search, list_sessions, read_turns): what teammates and CI pushed; read_turns takes its archive_id.",
  fenceInstructions,
].join("\n");

// ── output schemas ──────────────────────────────────────────────────────────

const nullableText = z.string().nullable();
const optionalNumber = z.number().optional();

/**
 * A session in a result list (search depth 1, list_sessions, recent): the index-format fields (`resume_command` is
 * null and `prompt_only` true for a session known only from a prompt-history file); `full` adds
 * project_path, git_branch, started_at, files, is_subagent, parent_session_id, source_status, last_seen_at,
 * keyword_score, vector_score (README "MCP server"). Loose, so the schema stays short and fields can be added.
 * From the team archive (`archive: true`, issue 30) each item adds archive_id (what read_turns takes), team,
 * pushed_by, machine and os_user, and `resume_command` is null (the session was pushed from elsewhere).
 */
const sessionItem = z.looseObject({
  session_id: z.string(),
  source: z.string(),
  project: z.string(),
  title: nullableText,
  ended_at: nullableText,
  turns: z.number(),
  resume_command: nullableText,
  prompt_only: z.boolean(),
  score: optionalNumber,
  confidence: optionalNumber,
  confident: z.boolean().optional(),
  best_turn: optionalNumber,
  preview: z.string().optional(),
  first_prompt: z.string().optional(),
  last_prompt: z.string().optional(),
});

/**
 * A turn in a result list (search depth 2, timeline): the index-format fields (search adds score, preview and
 * resume_command; timeline marks the anchor); `full` adds source, project_path, total_turns, response_excerpt
 * (instead of preview), tools, files, keyword_score, vector_score, source_status, last_seen_at.
 */
const turnItem = z.looseObject({
  session_id: z.string(),
  turn: z.number(),
  timestamp: nullableText,
  project: z.string(),
  title: nullableText,
  prompt: z.string(),
  score: optionalNumber,
  confidence: optionalNumber,
  confident: z.boolean().optional(),
  preview: z.string().optional(),
  resume_command: nullableText.optional(),
  anchor: z.boolean().optional(),
});

const page = { offset: z.number(), next_offset: z.number().nullable() };

/** The team archive that answered (`postgresql://user@host:port/db`, no password); present only with `archive: true`. */
const archiveField = { archive: z.string().optional() };

/** A tool call of read_turns: compact input, never the raw payload; `output` is its first lines (not for file tools). */
const toolCall = z.object({
  name: z.string(),
  input: z.string(),
  is_error: z.boolean(),
  lines_added: optionalNumber,
  lines_removed: optionalNumber,
  output: z.string().optional(),
});

/** Output schemas (raw zod shapes) of `structuredContent`. */
export const outputShapes = {
  search: {
    query: z.string(),
    depth: z.number(),
    mode: z.string(),
    confident: z.boolean(),
    /** What the local index held; absent for an answer from the team archive. */
    searched: z.object({ sessions: z.number(), projects: z.number() }).optional(),
    results: z.array(z.union([sessionItem, turnItem])),
    ...page,
    notices: z.array(z.string()),
    /** Dates the query named (render/search-dates.ts): since/until inclusive ISO-8601, null when open. */
    dates: z.array(
      z.object({ text: z.string(), label: z.string(), since: nullableText, until: nullableText, applied: z.boolean() }),
    ),
    ...archiveField,
  },
  read_turns: {
    session: sessionItem,
    /** `rewound`: from, to, total_turns and each turn count the rewound turns (r1, r2, …; issue 26). */
    branch: z.enum(["main", "rewound"]),
    /** Rewound turns the session holds, read with rewound=true. */
    rewound_turns: z.number(),
    from: z.number(),
    to: z.number(),
    total_turns: z.number(),
    from_archive: z.boolean(),
    turns: z.array(
      z.object({
        turn: z.number(),
        /** True for a turn on a branch the user rewound past; `turn` then counts the rewound turns. */
        rewound: z.boolean().optional(),
        timestamp: nullableText,
        prompt: z.string(),
        response: z.string(),
        tools: z.array(toolCall),
        /** Shown in part: characters [from_char, to_char) of the turn's text of total_chars (turns-text.ts). */
        cut: z.boolean().optional(),
        part: z.object({ from_char: z.number(), to_char: z.number(), total_chars: z.number() }).optional(),
      }),
    ),
    /** Where the next page starts: turns next_from-next_to, from character next_from_char of next_from (0: its start). */
    truncated: z
      .object({ more_chars: z.number(), next_from: z.number(), next_to: z.number(), next_from_char: z.number() })
      .nullable(),
    ...archiveField,
  },
  list_sessions: { results: z.array(sessionItem), ...page, ...archiveField },
  timeline: { anchor_time: nullableText, results: z.array(turnItem) },
  recent: { project: nullableText, results: z.array(sessionItem), ...page },
  /**
   * `summary`: the stored or just made summary, null when there is none (then `abstract` in `session` is what the
   * agent wrote, and `note` says why there is no summary); `made`: true when this call made it.
   */
  summarize_session: { session: sessionItem, summary: nullableText, made: z.boolean(), note: nullableText },
};

/** The tool names, in the order they are listed. */
export const toolNames = ["search", "read_turns", "list_sessions", "timeline", "recent", "summarize_session"] as const;

/** One of {@link toolNames}. */
export type ToolName = (typeof toolNames)[number];

/** `format` of a list tool. */
export type ResultFormat = "index" | "full";
