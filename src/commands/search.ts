/**
 * `recall search "<query>"`: level 1 (sessions, default) or level 2 (`--depth 2`, turns).
 * Cheap validation first (no database, no model), then one call to the search API, then render.
 */
import { command, flag, number, oneOf, option, optional, positional, restPositionals, string } from "cmd-ts";
import { UsageError } from "../errors.ts";
import { hasPendingEmbeddings } from "../index/index.ts";
import { paletteFor } from "../render/format.ts";
import { writeErr, writeOut } from "../render/terminal.ts";
import { minMaxChars, renderSearchJson, renderSearchText, searchFormats, type SearchRenderOptions } from "../render/search.ts";
import { explainResponse, renderExplainText } from "../render/search-explain.ts";
import { defaultLimits, findSession, parseFilterArgs, parseLimit, parseOffset, searchIndex, shellQuote, type SearchFilters, type SearchMode } from "../search/index.ts";
import { openFreshIndex, resolveHistory, sourceArgs, warn } from "./context.ts";
import { createEmbedderOpener, modelArg } from "./embedder.ts";
import { helperModel, openHelperQueryEmbedder, type HelperQueryEmbedder } from "./query-embedder.ts";
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
    source: option({ long: "source", type: optional(string), description: "Only this source: claude-code, opencode, codex, gemini-cli, cursor or aider" }),
    since: option({ long: "since", type: optional(string), description: "Only activity since this date (2026-03-01) or age (7d, 2w, 3m)" }),
    until: option({ long: "until", type: optional(string), description: "Only activity until this date or age" }),
    branch: option({ long: "branch", short: "b", type: optional(string), description: "Only sessions on this git branch" }),
    limit: option({ long: "limit", short: "n", type: optional(number), description: "Results to show (default 5 sessions, 10 turns)" }),
    offset: option({ long: "offset", type: optional(number), description: "Results to skip first (the next page; default 0)" }),
    format: option({ long: "format", type: oneOf(searchFormats), defaultValue: () => "full" as const, description: "full (default) or index (ids, title, date, score, one-line preview)" }),
    maxChars: option({ long: "max-chars", type: optional(number), description: `Cap the printed answer at N characters (at least ${minMaxChars}); left-out results are named in a [truncated] marker` }),
    explain: flag({ long: "explain", description: "Say why each result ranked (terms, leg scores, boosts): on stderr, or an explain field with --json" }),
    alpha: option({ long: "alpha", type: optional(number), description: "Weight of the semantic leg in hybrid fusion, 0-1 (default: the model's calibrated weight, 0.5 for an uncalibrated model); confident keyword matches stay first unless it is 1" }),
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
    const offset = parseOffset(args.offset, "--offset");
    if (args.maxChars !== undefined && !(Number.isInteger(args.maxChars) && args.maxChars >= minMaxChars)) {
      throw new UsageError(`--max-chars must be a whole number of at least ${minMaxChars}, got ${args.maxChars}`, "e.g. --max-chars 4000");
    }
    const filters: SearchFilters = parseFilterArgs(args);
    const mode: SearchMode = args.keywordOnly ? "keyword" : args.vectorOnly ? "vector" : "hybrid";
    if (args.alpha !== undefined && !(args.alpha >= 0 && args.alpha <= 1)) throw new UsageError(`--alpha must be between 0 and 1, got ${args.alpha}`);
    const context = resolveHistory(args);
    // Keyword-only searches never touch the embedding runtime (cold start stays fast). Otherwise the query is embedded
    // by the warm embedding helper when one runs or can be started (query-embedder.ts), while the index is brought up
    // to date keyword-only (the helper embeds the new turns afterwards); without a helper the model loads here.
    const embedder = mode === "keyword" ? undefined : createEmbedderOpener(context.paths, args.model, false);
    const model = embedder ? helperModel(context.paths, args.model) : undefined;
    const helperPending = model ? openHelperQueryEmbedder(context.paths, context.recallHome, model, args.model) : undefined;
    let helper: HelperQueryEmbedder | undefined;
    const db = await openFreshIndex(context, { reindex: !args.noReindex, embedder: helperPending ? undefined : embedder });
    try {
      helper = await helperPending;
      if (args.session) filters.sessionId = findSession(db, args.session).sessionId;
      const vector = embedder ? await openVectorLeg(db, context.recallHome, helper ? { open: async () => helper! } : embedder) : { leg: undefined, notice: undefined };
      if (vector.notice) warn(`recall: ${vector.notice}`);
      const response = await searchIndex(db, { query, level, filters, limit, offset, mode, alpha: args.alpha }, vector.leg);
      for (const notice of response.notices) if (!vector.notice) warn(`recall: ${notice}`);
      const options: SearchRenderOptions = { format: args.format, maxChars: args.maxChars, more: (from, count, maxChars) => pageCommand(query, { ...args, maxChars: maxChars ?? args.maxChars }, from, count) };
      if (args.explain && args.json) options.explain = explainResponse(response);
      else if (args.explain) writeErr(renderExplainText(response));
      writeOut(args.json ? `${renderSearchJson(response, options)}\n` : renderSearchText(response, await paletteFor(1), options));
      if (helper && !args.noReindex && hasPendingEmbeddings(db)) await helper.requestIndex(context.roots).catch(() => undefined);
    } finally {
      helper?.close();
      db.close();
      await embedder?.dispose();
    }
    return 0;
  },
});

/** The flags a page command repeats (the search's own arguments as cmd-ts parsed them). */
interface PageArgs {
  depth: string;
  session?: string;
  project?: string;
  source?: string;
  since?: string;
  until?: string;
  branch?: string;
  includeSubagents: boolean;
  keywordOnly: boolean;
  vectorOnly: boolean;
  alpha?: number;
  json: boolean;
  format: string;
  maxChars?: number;
}

/**
 * The command that prints `limit` results from `offset` with the same query, filters and output flags,
 * every value shell-quoted; a query starting with `-` goes after `--`.
 * Example: `recall search 'docker network' --offset 3 --limit 2 --json --format index --max-chars 4000`.
 */
export function pageCommand(query: string, args: PageArgs, offset: number, limit: number): string {
  const flags: string[] = [];
  const add = (name: string, value: string | number | undefined) => {
    if (value !== undefined) flags.push(name, shellQuote(String(value)));
  };
  if (args.depth === "2") add("--depth", "2");
  add("--session", args.session);
  add("--project", args.project);
  add("--source", args.source);
  add("--since", args.since);
  add("--until", args.until);
  add("--branch", args.branch);
  if (args.includeSubagents) flags.push("--include-subagents");
  if (args.keywordOnly) flags.push("--keyword-only");
  if (args.vectorOnly) flags.push("--vector-only");
  add("--alpha", args.alpha);
  add("--offset", offset);
  add("--limit", limit);
  if (args.json) flags.push("--json");
  if (args.format !== "full") add("--format", args.format);
  add("--max-chars", args.maxChars);
  const scope = flags.join(" ");
  return query.startsWith("-") ? `recall search ${scope} -- ${shellQuote(query)}` : `recall search ${shellQuote(query)} ${scope}`;
}
