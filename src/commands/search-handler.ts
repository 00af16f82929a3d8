/**
 * What `recall search` does (its flags and help: search.ts): cheap validation first (no database, no model), then one
 * call to the search API, then render. A keyword-only search never loads the embedding side (search-semantic.ts).
 */
import { EmbedError, UsageError } from "../errors.ts";
import { paletteFor } from "../render/format.ts";
import { minMaxChars, renderSearchJson, renderSearchText, type SearchRenderOptions } from "../render/search.ts";
import { explainResponse, renderExplainText } from "../render/search-explain.ts";
import { writeErr, writeOut } from "../render/terminal.ts";
import { defaultLimits, searchIndex, type SearchMode, type SearchRequest, type SearchResponse } from "../search/api.ts";
import type { VectorLeg } from "../search/pipeline.ts";
import type { SearchLevel } from "../search/ranking/lexical.ts";
import { loadDateWords, parseFilterArgs } from "../search/listing/arguments.ts";
import type { SearchFilters } from "../search/listing/filters.ts";
import { shellQuote } from "../search/reading/hydrate.ts";
import { parseLimit, parseOffset } from "../search/listing/paging.ts";
import { requireQueryText } from "../search/ranking/query.ts";
import { findSession } from "../search/listing/sessions.ts";
import { openFreshIndex, resolveHistory, warn } from "../service/context.ts";
import { dueOncePerDay, keywordOnlyNoticeFile } from "./daily-notice.ts";
import type { HelperQueryEmbedder } from "../service/query-embedder.ts";
import type { SearchArgs } from "./search.ts";
import { readIndexFreshness } from "../index/plan/freshness.ts";
import { oneShotPageCacheKibibytes } from "../index/schema.ts";

/** Runs `recall search` with its parsed arguments; resolves to the exit code (0, zero hits included). */
export async function search(args: SearchArgs): Promise<number> {
  const query = [args.query, ...args.moreWords].join(" ");
  requireQueryText(query);
  if (args.keywordOnly && args.vectorOnly) throw new UsageError("--keyword-only and --vector-only exclude each other");
  // --session searches the turns of that session: level 2 unless --depth says 1 (issue 26: it was an error without
  // --depth 2, which no other level could mean).
  if (args.session && args.depth === "1")
    throw new UsageError("--session searches turns: it cannot be used with --depth 1", "drop --depth 1");
  const level: SearchLevel = args.depth === "2" || (args.session && args.depth === undefined) ? "turn" : "session";
  // The same checks as the MCP server's arguments (src/search/listing/arguments.ts, paging.ts): one answer, one error.
  const limit = parseLimit(args.limit, defaultLimits[level], "--limit");
  const offset = parseOffset(args.offset, "--offset");
  if (args.maxChars !== undefined && !(Number.isInteger(args.maxChars) && args.maxChars >= minMaxChars)) {
    throw new UsageError(
      `--max-chars must be a whole number of at least ${minMaxChars}, got ${args.maxChars}`,
      "e.g. --max-chars 4000",
    );
  }
  await loadDateWords([args.since, args.until]);
  const filters: SearchFilters = parseFilterArgs(args);
  const mode: SearchMode = args.keywordOnly ? "keyword" : args.vectorOnly ? "vector" : "hybrid";
  if (args.alpha !== undefined && !(args.alpha >= 0 && args.alpha <= 1))
    throw new UsageError(`--alpha must be between 0 and 1, got ${args.alpha}`);
  const request: SearchRequest = { query, level, filters, limit, offset, mode, alpha: args.alpha };
  const options: SearchRenderOptions = {
    format: args.format,
    maxChars: args.maxChars,
    dateFilters: { since: filters.since, until: filters.until },
    more: (from, count, maxChars) => pageCommand(query, { ...args, maxChars: maxChars ?? args.maxChars }, from, count),
  };
  const context = resolveHistory(args);
  if ((args.archive || args.archiveUrl !== undefined) && !args.everywhere) {
    // the flags were checked above, before connecting (issue 39: --alpha 7 connected first and exited 1)
    // loaded only for the archive: a local search never loads the PostgreSQL client
    const [{ openArchiveForSearch }, { searchArchive }] = await Promise.all([
      import("./archive-search-handler.ts"),
      import("../team-archive/search.ts"),
    ]);
    const archive = await openArchiveForSearch(args, context, true);
    try {
      if (mode === "vector") requireVectorLeg(archive.vectorLeg, archive.notice);
      const sessionId = archive.sessionId;
      const response = await searchArchive(
        archive.connection,
        { ...request, filters: sessionId ? { ...filters, sessionId } : filters },
        archive.vectorLeg,
      );
      await printAnswer(args, response, archive.notice ? [archive.notice] : response.notices, options);
    } finally {
      await archive.close();
    }
    return 0;
  }
  // Keyword-only searches never touch the embedding runtime (cold start stays fast). Otherwise the query is embedded
  // by the warm embedding helper when one runs or can be started (query-embedder.ts), while the index is brought up
  // to date keyword-only (the helper embeds the new turns afterwards); without a helper the model loads here.
  const semantic = mode === "keyword" ? undefined : await import("../service/search-semantic.ts");
  const embedder = semantic?.createEmbedderOpener(context.paths, args.model, false);
  const model = semantic?.helperModel(context.paths, args.model);
  const helperPending =
    semantic && model
      ? semantic.openHelperQueryEmbedder(context.paths, context.recallHome, model, args.model)
      : undefined;
  let helper: HelperQueryEmbedder | undefined;
  const db = await openFreshIndex(context, {
    reindex: !args.noReindex,
    embedder: helperPending ? undefined : embedder,
    pageCacheKibibytes: oneShotPageCacheKibibytes,
  });
  try {
    helper = await helperPending;
    if (args.session) filters.sessionId = findSession(db, args.session).sessionId;
    const vector =
      semantic && embedder
        ? await semantic.openVectorLeg(db, context.recallHome, helper ? { open: async () => helper! } : embedder)
        : { leg: undefined, notice: undefined };
    // Said once (issue 26): a vector-only search without vectors fails with the reason and the advice that fits it,
    // instead of the notice followed by the search layer's generic error; otherwise the notice comes after the search.
    if (mode === "vector" && !vector.leg && vector.reason && !args.everywhere)
      throw new EmbedError("EMBEDDINGS_MISSING", `vector search needs embeddings: ${vector.reason}`, {
        hint: vector.hint,
      });
    // An index that never held vectors is keyword-only by set-up: say so once a day, not above every search (issue 38).
    const quiet = vector.neverEmbedded && !dueOncePerDay(context.recallHome, keywordOnlyNoticeFile);
    const localNotices = (response: SearchResponse) =>
      vector.notice ? (quiet ? [] : [vector.notice]) : response.notices;
    options.freshness = readIndexFreshness(db, !args.noReindex);
    if (args.everywhere) {
      // one ranking of this machine's index and the team archive (team-archive/everywhere.ts)
      const [{ searchEverywhere }, { openArchiveForSearch }] = await Promise.all([
        import("../team-archive/everywhere.ts"),
        import("./archive-search-handler.ts"),
      ]);
      const archive = await openArchiveForSearch(args, context, false);
      try {
        if (mode === "vector" && !vector.leg) requireVectorLeg(archive.vectorLeg, archive.notice);
        const response = await searchEverywhere(db, archive.connection, request, {
          local: vector.leg,
          archive: archive.vectorLeg,
        });
        const archiveNotices = archive.notice ? [`archive: ${archive.notice}`] : [];
        await printAnswer(args, response, [...localNotices(response), ...archiveNotices], options);
      } finally {
        await archive.close();
      }
      return 0;
    }
    const response = await searchIndex(db, request, vector.leg);
    await printAnswer(args, response, localNotices(response), options);
    if (helper && !args.noReindex && semantic?.hasPendingEmbeddings(db))
      await helper.requestIndex(context.roots).catch(() => undefined);
  } finally {
    helper?.close();
    db.close();
    await embedder?.dispose();
  }
  return 0;
}

/**
 * Print an answer of any store (this machine's index, the team archive, or both) with the one renderer: the notices on
 * stderr, `--explain` on stderr (text) or in each result (JSON), then the text or the JSON on stdout.
 */
async function printAnswer(
  args: SearchArgs,
  response: SearchResponse,
  notices: string[],
  options: SearchRenderOptions,
): Promise<void> {
  for (const notice of notices) warn(`recall: ${notice}`);
  if (args.explain && args.json) options.explain = explainResponse(response);
  else if (args.explain) writeErr(renderExplainText(response));
  writeOut(
    args.json ? `${renderSearchJson(response, options)}\n` : renderSearchText(response, await paletteFor(1), options),
  );
}

/**
 * A vector-only search of the archive needs its vector leg: fail with the reason there is none.
 * @throws EmbedError EMBEDDINGS_MISSING naming the reason (vectors.ts chooseArchiveVectorLeg)
 */
function requireVectorLeg(leg: VectorLeg | undefined, notice: string | undefined): void {
  if (!leg)
    throw new EmbedError(
      "EMBEDDINGS_MISSING",
      `vector search of the archive needs its vectors: ${notice?.replace(/^keyword-only search: /, "") ?? "none are available"}`,
    );
}

/** The flags a page command repeats (the search's own arguments as cmd-ts parsed them). */
interface PageArgs {
  depth?: string;
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
  /** `--archive` (or `--archive-url`, which is not repeated: the URL may hold a password) and `--everywhere`. */
  archive?: boolean;
  archiveUrl?: string;
  everywhere?: boolean;
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
  if (args.everywhere) flags.push("--everywhere");
  else if (args.archive || args.archiveUrl !== undefined) flags.push("--archive");
  add("--offset", offset);
  add("--limit", limit);
  if (args.json) flags.push("--json");
  if (args.format !== "full") add("--format", args.format);
  add("--max-chars", args.maxChars);
  const scope = flags.join(" ");
  return query.startsWith("-")
    ? `recall search ${scope} -- ${shellQuote(query)}`
    : `recall search ${shellQuote(query)} ${scope}`;
}
