/**
 * `recall search "<query>"`: level 1 (sessions, default) or level 2 (`--depth 2`, turns).
 * Cheap validation first (no database, no model), then one call to the search API, then render.
 */
import { command, flag, number, oneOf, option, optional, positional, restPositionals, string } from "cmd-ts";
import { UsageError } from "../errors.ts";
import { paletteFor } from "../render/format.ts";
import { writeOut } from "../render/terminal.ts";
import { renderSearchJson, renderSearchText } from "../render/search.ts";
import { defaultAlpha, defaultLimits, findSession, parseFilterArgs, parseLimit, searchIndex, type SearchFilters, type SearchMode } from "../search/index.ts";
import { openFreshIndex, resolveHistory, sourceArgs, warn } from "./context.ts";
import { createEmbedderOpener, modelArg } from "./embedder.ts";
import { openVectorLeg } from "./vector-leg.ts";

/** The `search` subcommand. */
export const searchCommand = command({
  name: "search",
  description: "Search sessions (level 1) or turns (level 2, --depth 2) by keyword and meaning",
  args: {
    query: positional({ type: string, displayName: "query", description: "What to look for, in your own words (not FTS syntax)" }),
    moreWords: restPositionals({ type: string, displayName: "words", description: "More query words (joined with spaces)" }),
    depth: option({ long: "depth", short: "d", type: oneOf(["1", "2"]), defaultValue: () => "1" as const, description: "1 = sessions (default), 2 = turns" }),
    session: option({ long: "session", type: optional(string), description: "Level 2 only: search inside one session (id or 8+ char prefix)" }),
    project: option({ long: "project", short: "p", type: optional(string), description: "Only projects whose path or name contains this text" }),
    source: option({ long: "source", type: optional(string), description: "Only this source: claude-code or opencode" }),
    since: option({ long: "since", type: optional(string), description: "Only activity since this date (2026-03-01) or age (7d, 2w, 3m)" }),
    until: option({ long: "until", type: optional(string), description: "Only activity until this date or age" }),
    branch: option({ long: "branch", short: "b", type: optional(string), description: "Only sessions on this git branch" }),
    limit: option({ long: "limit", short: "n", type: optional(number), description: "Results to show (default 5 sessions, 10 turns)" }),
    alpha: option({ long: "alpha", type: optional(number), description: `Weight of the semantic leg in hybrid fusion, 0-1 (default ${defaultAlpha})` }),
    includeSubagents: flag({ long: "include-subagents", description: "Also search sub-agent sessions (down-ranked)" }),
    keywordOnly: flag({ long: "keyword-only", description: "Run only the keyword (BM25) leg" }),
    vectorOnly: flag({ long: "vector-only", description: "Run only the semantic (embedding) leg" }),
    noReindex: flag({ long: "no-reindex", description: "Do not update the index before searching" }),
    json: flag({ long: "json", description: "Print one JSON object (see README: JSON output)" }),
    ...modelArg,
    ...sourceArgs,
  },
  handler: async (args) => {
    const query = [args.query, ...args.moreWords].join(" ");
    if (query.trim().length === 0) throw new UsageError("the search query is empty", 'pass some words, e.g. recall search "docker network"');
    if (args.keywordOnly && args.vectorOnly) throw new UsageError("--keyword-only and --vector-only exclude each other");
    const level = args.depth === "2" ? "turn" : "session";
    if (args.session && level !== "turn") throw new UsageError("--session needs --depth 2");
    // The same checks as the MCP server's arguments (src/search/arguments.ts, paging.ts): one answer, one error.
    const limit = parseLimit(args.limit, defaultLimits[level], "--limit");
    const filters: SearchFilters = parseFilterArgs(args);
    const mode: SearchMode = args.keywordOnly ? "keyword" : args.vectorOnly ? "vector" : "hybrid";
    if (args.alpha !== undefined && !(args.alpha >= 0 && args.alpha <= 1)) throw new UsageError(`--alpha must be between 0 and 1, got ${args.alpha}`);
    const context = resolveHistory(args);
    // Keyword-only searches never touch the embedding runtime (cold start stays fast).
    const embedder = mode === "keyword" ? undefined : createEmbedderOpener(context.paths, args.model, false);
    const db = await openFreshIndex(context, { reindex: !args.noReindex, embedder });
    try {
      if (args.session) filters.sessionId = findSession(db, args.session).sessionId;
      const vector = embedder ? await openVectorLeg(db, context.recallHome, embedder) : { leg: undefined, notice: undefined };
      if (vector.notice) warn(`recall: ${vector.notice}`);
      const response = await searchIndex(db, { query, level, filters, limit, mode, alpha: args.alpha }, vector.leg);
      for (const notice of response.notices) if (!vector.notice) warn(`recall: ${notice}`);
      writeOut(args.json ? `${renderSearchJson(response)}\n` : renderSearchText(response, await paletteFor(1)));
    } finally {
      db.close();
      await embedder?.dispose();
    }
    return 0;
  },
});
