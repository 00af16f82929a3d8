/**
 * Rendering of `recall search`: the text listing (as in the seed tool) and the `--json` contract.
 *
 * JSON contract, version 1 (documented in README.md "JSON output"; fields are only ever added):
 *   {"version": 1, "query", "level": "session"|"turn", "mode": "hybrid"|"keyword"|"vector",
 *    "searched": {"sessions", "projects", "sources": [..]}, "results": [...]}
 *   session result: session_id (full), source, project, project_path, title, abstract (issue 41: format.ts
 *     `abstractJson`), git_branch, started_at,
 *     ended_at (ISO-8601 UTC or null), turns, score (0–1, fused), keyword_score, vector_score (0–1 or
 *     null when that leg did not find it), preview, best_turn, files, is_subagent, parent_session_id,
 *     resume_command, next_command, source_status, last_seen_at
 *   turn result: session_id, source, project, project_path, title, turn (1-based), total_turns,
 *     prompt (whole), response_excerpt, tools, files, timestamp, score, keyword_score, vector_score,
 *     show_command, source_status, last_seen_at
 *   source_status: "present" | "deleted" (the source is gone, the index holds the only copy); last_seen_at:
 *     ISO-8601 UTC time recall last saw the session's source, or null
 * Issue 13 adds: top-level "format" ("full" | "index"), "next_offset" (number or null) and "truncated" (null, or
 *   {results_shown, results_omitted, chars_omitted, next_command, hint} when --max-chars left results out);
 *   `--format index` keeps only session_id, project, title, abstract (its first part that is not a title, ≤ 90
 *   chars, or null),
 *   ended_at, score, best_turn, preview (≤ 90 chars)
 *   per session, and session_id, turn, project, title, timestamp, score, prompt, preview (≤ 90 chars each) per
 *   turn; `--explain` adds "explain" to each result (search-explain.ts). A field longer than
 *   {@link fieldCharLimit} characters (a pasted HAR file in a prompt) is cut with a `…[cut N characters; …]` marker.
 *   Confidence (search/ranking/confidence.ts): top-level "confident" (the first result is a confident match); per result
 *   "confidence" (0–1, calibrated: the same scale for every query, unlike "score") and "confident" in both formats,
 *   and in the full format the raw evidence: "matched_terms" (query terms the best document holds), "coverage"
 *   (their IDF-weighted share, 0–1), "keyword_raw" (the keyword leg's −bm25-based score, or null) and "cosine"
 *   (the vector leg's raw cosine similarity, or null).
 *   Dates in the query (search/dates/time-query.ts): top-level "dates", [{text, label, since, until, applied}] (search-dates.ts);
 *   the text listing names them on one line under the header.
 * Issue 14 adds top-level "index" in the full format: {indexed_at, full_scan_at, checked} (index/plan/freshness.ts `IndexFreshness`).
 * Issue 26 adds "branch" ("main" | "rewound") to both result shapes: a rewound turn is on a branch the user rewound past
 *   (`turn`/`best_turn` then count the rewound turns, r1, r2, …, and show commands name them `<id>:r2`); top-level
 *   "confident" is the first result's, and a result is confident only when every result above it is too (search/api.ts
 *   `confidentPrefix`: "no confident match" above an answer means all of it is weak, each marked so); `next_offset` is the first result not printed,
 *   also when --max-chars left some out; and --max-chars is a hard cap of the characters printed.
 */
import type { SearchResponse } from "../search/api.ts";
import type { ResultConfidence } from "../search/ranking/confidence.ts";
import type { UnderstoodDate } from "../search/dates/time-boost.ts";
import { shellQuote, type SessionResult, type TurnResult } from "../search/reading/hydrate.ts";
import { turnLabel } from "../parsers/index.ts";
import { jsonLine, neutralizeControls, neutralizeStrings } from "./escapes.ts";
import {
  abstractHead,
  abstractJson,
  abstractLine,
  countOf,
  highlight,
  localDate,
  localMinute,
  isoTime,
  noPromptNote,
  oneLine,
  projectLabel,
  roundScore,
  shortId,
  sessionMarkers,
  type Palette,
} from "./format.ts";
import { fitToBudget, markerText, type Truncation } from "./search-budget.ts";
import { datesJson, datesUnderstoodLine } from "./search-dates.ts";
import type { ResultExplanation } from "./search-explain.ts";
import type { IndexFreshness } from "../index/plan/freshness.ts";
import type { SearchFormat } from "./output-formats.ts";

/** Longest single text field printed whole, in characters; longer ones are cut with a marker (issue 13). */
export const fieldCharLimit = 2000;
/** Characters of a preview, prompt or title line in the index format (~22 tokens). */
export const indexLineChars = 90;

export { minMaxChars, type Truncation } from "./search-budget.ts";

/** How to render an answer; every field optional (defaults: full format, no cap, no explanations). */
export interface SearchRenderOptions {
  format?: SearchFormat;
  /** Cap on the characters of the whole answer (stdout); results are left out from the end, with a marker. */
  maxChars?: number;
  /** Per-result explanations, in result order (`--explain`; JSON only, text prints them on stderr). */
  explain?: ResultExplanation[];
  /** The command that prints `limit` results from the 0-based `offset` with the same query and filters (and `maxChars` when given). */
  more?: (offset: number, limit: number, maxChars?: number) => string;
  /** How current the index is (JSON `index`; issue 14); absent: the field is null. */
  freshness?: IndexFreshness;
  /** The `--since` / `--until` instants as read (epoch ms); a header over no session names them (issue 38). */
  dateFilters?: { since?: number; until?: number };
}

/**
 * `text` whole when it has at most `limit` characters, else its first `limit` characters and a marker naming
 * how many were cut and where to read them; `totalChars` is the whole text's length when `text` is already a part of
 * it (a level-2 prompt, search/reading/hydrate.ts `promptChars`).
 * Example: a 68,000-character prompt → its first 2,000 characters + `…[cut 66,000 characters; full text: recall show <id>:3]`.
 */
export function cutField(text: string, limit: number, fullText: string, totalChars = text.length): string {
  return totalChars <= limit
    ? text
    : `${text.slice(0, limit)}…[cut ${totalChars - limit} characters; full text: ${fullText}]`;
}

/**
 * The drill-deeper command for a session result, every part shell-quoted (issue 9); a query that starts
 * with `-` goes after `--` so it is not read as a flag. A session only the team archive holds is searched there, by
 * its archive id (`archiveId`).
 * Examples: `recall search 'docker network' --depth 2 --session 2c5941bd-…`;
 *   `recall search --depth 2 --session 2c5941bd-… -- '-v flag'`; `recall search bridge --archive --depth 2 --session 42`.
 */
export function drillCommand(query: string, sessionId: string, archiveId?: string): string {
  const scope = `${archiveId ? "--archive " : ""}--depth 2 --session ${shellQuote(archiveId ?? sessionId)}`;
  return query.startsWith("-")
    ? `recall search ${scope} -- ${shellQuote(query)}`
    : `recall search ${shellQuote(query)} ${scope}`;
}

/**
 * The level-3 command for a turn: the turn with one turn of context on each side, shell-quoted; a rewound turn
 * (negative number, issue 26) alone, by its label. A turn only the team archive holds is shown from there, by its
 * session's archive id (`archiveId`).
 * Examples: `recall show 2c5941bd-…:4-6`; turn -2 → `recall show 2c5941bd-…:r2`; `recall show --archive 42:4-6`.
 */
export function showCommand(sessionId: string, turn: number, totalTurns: number, archiveId?: string): string {
  const id = archiveId ?? sessionId;
  if (turn < 0) return showTarget(`${id}:${turnLabel(turn)}`);
  const from = Math.max(1, turn - 1);
  const to = Math.min(Math.max(totalTurns, turn), turn + 1);
  return showTarget(`${id}:${from}-${to}`, archiveId !== undefined);
}

/** `recall show [--archive] <target>`, shell-quoted, after `--` when the target starts with `-`. */
function showTarget(target: string, archive = false): string {
  return `recall show ${archive ? "--archive " : ""}${target.startsWith("-") ? "-- " : ""}${shellQuote(target)}`;
}

/** The archive id to drill into or show a result by: its archived copy's when only the team archive holds it. */
const archiveIdOf = (result: SessionResult | TurnResult): string | undefined =>
  result.here ? undefined : result.archived?.archiveId;

/**
 * Where a result is held, in JSON (both formats; issue 39), for a search that read the team archive: `here` (this
 * machine's index holds it) and the archive's copy, `archive_id` and who pushed it from where. Nothing for a result
 * of this machine's index alone (a local search's JSON is unchanged).
 */
export function placeJson(result: SessionResult | TurnResult) {
  const archived = result.archived;
  if (!archived) return {};
  return {
    here: result.here,
    archive_id: archived.archiveId,
    team: archived.team,
    pushed_by: archived.pushedBy,
    machine: archived.machine,
    os_user: archived.osUser,
  };
}

/** The JSON fields that place a turn: its number among its branch's turns and the branch (issue 26). */
const turnPlace = (turn: number) => ({ number: Math.abs(turn), branch: turn < 0 ? "rewound" : "main" });

/** The session fields both result shapes start with. */
function identityJson(result: SessionResult | TurnResult) {
  const title =
    result.title === null ? null : cutField(result.title, fieldCharLimit, showTarget(`${result.sessionId}:1`));
  return {
    session_id: result.sessionId,
    source: result.source,
    project: result.project,
    project_path: result.projectPath,
    title,
  };
}

/** Whether the source still holds the session (issue 9); last in both shapes (fields are only ever added). */
function archiveJson(result: SessionResult | TurnResult) {
  return {
    source_status: result.sourceStatus,
    last_seen_at: isoTime(result.lastSeenAt),
    prompt_only: result.promptOnly,
  };
}

/** Fused and per-leg scores, rounded (a leg that did not find the result is null), the confidence and its raw evidence. */
function scoresJson(result: SessionResult | TurnResult) {
  return {
    score: roundScore(result.score),
    keyword_score: roundScore(result.keywordScore) ?? null,
    vector_score: roundScore(result.vectorScore) ?? null,
    ...confidenceJson(result),
    ...evidenceJson(result),
  };
}

/** The calibrated confidence of a result, in both formats (the CLI's JSON and the MCP tools'). */
export const confidenceJson = (result: SessionResult | TurnResult) => ({
  confidence: roundScore(result.confidence),
  confident: result.confident,
});

/** The raw evidence behind a result's confidence, in the full format (the CLI's JSON and the MCP tools'). */
export const evidenceJson = (result: SessionResult | TurnResult) => ({
  matched_terms: result.matchedTerms,
  coverage: roundScore(result.coverage),
  keyword_raw: roundScore(result.keywordRaw) ?? null,
  cosine: roundScore(result.cosine) ?? null,
});

function sessionJson(query: string, result: SessionResult) {
  return {
    ...identityJson(result),
    abstract: abstractJson(result.abstract),
    git_branch: result.gitBranch,
    started_at: isoTime(result.startedAt),
    ended_at: isoTime(result.endedAt),
    turns: result.turns,
    ...scoresJson(result),
    preview: result.preview.text,
    best_turn: turnPlace(result.bestTurn).number,
    branch: turnPlace(result.bestTurn).branch,
    files: result.files,
    is_subagent: result.isSubagent,
    parent_session_id: result.parentSessionId,
    resume_command: result.resumeCommand,
    next_command: drillCommand(query, result.sessionId, archiveIdOf(result)),
    ...archiveJson(result),
    ...placeJson(result),
  };
}

function turnJson(result: TurnResult) {
  return {
    ...identityJson(result),
    turn: turnPlace(result.turn).number,
    branch: turnPlace(result.turn).branch,
    total_turns: result.totalTurns,
    prompt: cutField(
      result.prompt,
      fieldCharLimit,
      showTarget(`${result.sessionId}:${turnLabel(result.turn)}`),
      result.promptChars,
    ),
    response_excerpt: result.responseExcerpt.text,
    tools: result.tools,
    files: result.files,
    timestamp: isoTime(result.timestamp),
    ...scoresJson(result),
    show_command: showCommand(result.sessionId, result.turn, result.totalTurns, archiveIdOf(result)),
    ...archiveJson(result),
    ...placeJson(result),
  };
}

const indexTitle = (title: string | null) => (title === null ? null : oneLine(title, indexLineChars));

/** The index format's abstract: its head part (format.ts `abstractHead`) on one line, or null. */
export const indexAbstract = (abstract: SessionResult["abstract"]): string | null => {
  const head = abstractHead(abstract);
  return head ? oneLine(head.text, indexLineChars) : null;
};

/** The index-format JSON of a session result: ids, title, date, score, a one-line preview. */
function sessionIndexJson(result: SessionResult) {
  return {
    session_id: result.sessionId,
    project: result.project,
    title: indexTitle(result.title),
    abstract: indexAbstract(result.abstract),
    ended_at: isoTime(result.endedAt),
    score: roundScore(result.score),
    ...confidenceJson(result),
    best_turn: turnPlace(result.bestTurn).number,
    branch: turnPlace(result.bestTurn).branch,
    preview: oneLine(result.preview.text, indexLineChars),
    ...placeJson(result),
  };
}

/** The index-format JSON of a turn result: ids, title, date, score, the prompt and the excerpt on one line each. */
function turnIndexJson(result: TurnResult) {
  return {
    session_id: result.sessionId,
    turn: turnPlace(result.turn).number,
    branch: turnPlace(result.turn).branch,
    project: result.project,
    title: indexTitle(result.title),
    timestamp: isoTime(result.timestamp),
    score: roundScore(result.score),
    ...confidenceJson(result),
    prompt: oneLine(result.prompt, indexLineChars),
    preview: oneLine(result.responseExcerpt.text, indexLineChars),
    ...placeJson(result),
  };
}

/**
 * The `--json` object (one line, no trailing newline) in the requested format, within `--max-chars` when given
 * (results left out from the end, `truncated` saying how many and how to get them).
 */
export function renderSearchJson(response: SearchResponse, options: SearchRenderOptions = {}): string {
  const format = options.format ?? "full";
  const items: Array<Record<string, unknown>> =
    response.level === "session"
      ? (response.results as SessionResult[]).map((result) =>
          format === "index" ? sessionIndexJson(result) : sessionJson(response.query, result),
        )
      : (response.results as TurnResult[]).map((result) =>
          format === "index" ? turnIndexJson(result) : turnJson(result),
        );
  if (options.explain) for (const [i, item] of items.entries()) item.explain = options.explain[i] ?? null;
  const render = (shown: number, truncated: Truncation | null) =>
    `${jsonLine({
      version: 1,
      query: response.query,
      level: response.level,
      mode: response.mode,
      format,
      searched: response.searched,
      ...(response.archive ? { archive: response.archive.url } : {}),
      ...(format === "full" ? { index: freshnessJson(options.freshness) } : {}),
      confident: response.confident,
      dates: datesJson(response.dates),
      results: items.slice(0, shown),
      // the first result not printed: a page cut by --max-chars goes on where it stopped (issue 26)
      next_offset: truncated ? response.offset + shown : (response.nextOffset ?? null),
      truncated,
    })}\n`; // the newline the command prints counts toward --max-chars
  // When nothing but the envelope fits: the required fields only; then without the command (a cut command would not
  // run), a short hint, and the query shortened.
  const compact = (marker: Truncation, maxChars: number) => {
    const envelope = {
      version: 1,
      query: response.query,
      level: response.level,
      mode: response.mode,
      format,
      confident: response.confident,
      results: [],
      next_offset: response.offset,
      truncated: { ...marker },
    };
    const measure = (value: typeof envelope) => jsonLine(value).length + 1;
    if (measure(envelope) > maxChars) envelope.truncated.next_command = null;
    if (measure(envelope) > maxChars) envelope.truncated.hint = "raise --max-chars";
    // JSON escapes can make a character cost more than one: shorten until it fits
    for (
      let excess = measure(envelope) - maxChars;
      excess > 0 && envelope.query.length > 1;
      excess = measure(envelope) - maxChars
    )
      envelope.query = `${envelope.query.slice(0, Math.max(0, envelope.query.length - excess - 1))}…`;
    return `${jsonLine(envelope)}\n`;
  };
  return fitToBudget(items.length, render, options, response.offset, compact).slice(0, -1);
}

/** The JSON `index` field: {indexed_at, full_scan_at (ISO-8601 UTC or null), checked}, or null. */
function freshnessJson(freshness: IndexFreshness | undefined): Record<string, unknown> | null {
  if (!freshness) return null;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return { indexed_at: iso(freshness.indexedAt), full_scan_at: iso(freshness.fullScanAt), checked: freshness.checked };
}

/**
 * Why nothing was searched, in the header's parentheses: the `--since` / `--until` range as read, local minutes
 * (`none active from 2026-03-01 00:00`), or `no sources`.
 */
function emptyScope(dateFilters: SearchRenderOptions["dateFilters"]): string {
  const { since, until } = dateFilters ?? {};
  if (since === undefined && until === undefined) return "no sources";
  const range = [
    since === undefined ? "" : `from ${localMinute(since)}`,
    until === undefined ? "" : `to ${localMinute(until)}`,
  ];
  return `none active ${range.filter(Boolean).join(" ")}`;
}

/**
 * The line under the header when the confidences printed on the results rise somewhere down the list (issue 38, item 4:
 * `[0.76] [0.77] [0.19] [0.31]` read as a ranking bug), or undefined when they never rise. Results are ranked by their
 * fused relevance score; the printed number is each one's calibrated confidence, a different quantity.
 * @param results the results shown, in rank order (compared as printed: two decimals)
 */
export function rankOrderNote(results: ReadonlyArray<{ confidence: number }>): string | undefined {
  const printed = results.map((result) => Number(result.confidence.toFixed(2)));
  if (!printed.some((confidence, i) => i > 0 && confidence > printed[i - 1]!)) return undefined;
  return "Ranked by relevance; the 0–1 number on each result is its confidence that it holds what was asked, which need not fall with the rank.";
}

/**
 * Where the search looked, after the scope: "" (this machine's index), ` in the team archive <url>` (`--archive`), or
 * ` here and 40 sessions in the team archive <url>` (`--everywhere`).
 */
export function whereSearched(response: Pick<SearchResponse, "archive">): string {
  const archive = response.archive;
  if (!archive) return "";
  return `${archive.alone ? "" : ` here and ${countOf(archive.sessions, "session")}`} in the team archive ${archive.url}`;
}

function header(response: SearchResponse, palette: Palette, dateFilters?: SearchRenderOptions["dateFilters"]): string {
  const { sessions, projects, sources } = response.searched;
  const what = response.level === "session" ? "session" : "turn";
  return palette.dim(
    `Searched ${countOf(sessions, "session")} across ${countOf(projects, "project")} (${sources.join(", ") || emptyScope(dateFilters)})${whereSearched(response)}, ${response.mode} mode: ${countOf(response.results.length, what)}`,
  );
}

/**
 * The bracketed number of a result in text: its calibrated confidence (0–1, the same scale for every query:
 * search/ranking/confidence.ts), followed by ` weak` when it is not a confident match: below 0.50, or ranked below a weak
 * result (search/api.ts `confidentPrefix`). One rule for the number, the mark, the header and the JSON `confident`
 * (issue 26: the fused score, min-max normalized per answer, printed `[0.00]` for the last of two results, and a
 * header said "no confident match" above a result marked confident).
 */
const scoreMark = (result: SessionResult | TurnResult, palette: Palette) =>
  `${palette.bold(`[${result.confidence.toFixed(2)}]`)}${result.confident ? "" : palette.dim(" weak")}`;

/** What {@link noConfidentMatch} reads of an answer: local search's (SearchResponse) or the team archive's. */
export interface JudgedAnswer {
  confident: boolean;
  dates: readonly Pick<UnderstoodDate, "label" | "applied">[];
  results: ReadonlyArray<Pick<ResultConfidence, "matchedTerms" | "missingTerms" | "outsideDates" | "keywordRaw">>;
}

/**
 * The line under the header when the first result is not a confident match (and so none is: `confidentPrefix`): the
 * results that follow are the best weak candidates (an answer with no results says "No matches" instead). The CLI, the
 * MCP tools and the web view print it alike, for local answers and the team archive's.
 * @returns {@link noConfidentMatchLine} of the first result, or undefined when it is confident or there is none
 */
export function noConfidentMatch(answer: JudgedAnswer): string | undefined {
  const first = answer.results[0];
  if (answer.confident || !first) return undefined;
  return noConfidentMatchLine({ ...first, byMeaningOnly: first.keywordRaw === undefined }, answer.dates);
}

/** A date's label as the object of "falls in": `July 2022`, `the week of 16 Nov 2026`. */
const periodPhrase = (label: string): string => (/^week\b/.test(label) ? `the ${label}` : label);

/** At most this many words are named in each list of {@link noConfidentMatchLine}. */
const namedWords = 5;

const wordList = (words: readonly string[]): string =>
  words.length > namedWords ? `${words.slice(0, namedWords).join(", ")}, …` : words.join(", ");

/**
 * The line every front end (CLI, MCP, web view) prints above an answer with no confident match. It says why from the
 * first result's own evidence (search/ranking/confidence.ts), so it never contradicts `--explain` (issue 38, item 2: "holds
 * neither the query's rarest words" stood above a result that held all four words):
 *   `No confident match: the first result holds config, toml but not kimi, cli; the best candidates follow, marked weak.`
 *   `No confident match: nothing searched falls in the week of 16 Nov 2026, and the query names nothing else; …`
 * @param first the first result's verdict (search/ranking/confidence.ts ResultConfidence): the words its best document holds,
 *   those it lacks (rarest first), whether it falls outside an applied date, and whether only the vector leg found it
 * @param dates the dates the query named (SearchResponse.dates); [] when none
 */
export function noConfidentMatchLine(
  first: Pick<ResultConfidence, "matchedTerms" | "missingTerms" | "outsideDates"> & { byMeaningOnly: boolean },
  dates: readonly Pick<UnderstoodDate, "label" | "applied">[],
): string {
  const tail = "the best candidates follow, marked weak.";
  const unmatched = dates.filter((date) => !date.applied).map((date) => date.label);
  const applied = dates.filter((date) => date.applied).map((date) => date.label);
  if (first.matchedTerms.length === 0 && first.missingTerms.length === 0 && unmatched.length > 0)
    return `No confident match: nothing searched falls in ${unmatched.map(periodPhrase).join(" or ")}, and the query names nothing else; ${tail}`;
  const lacks = [
    first.missingTerms.length > 0 ? `not ${wordList(first.missingTerms)}` : "",
    first.outsideDates ? `does not fall in ${applied.map(periodPhrase).join(" or ")}` : "",
  ].filter(Boolean);
  if (first.byMeaningOnly)
    return `No confident match: the first result was found by meaning alone, not close enough to count; ${tail}`;
  if (first.matchedTerms.length === 0)
    return `No confident match: the first result holds none of ${wordList(first.missingTerms)}; ${tail}`;
  return `No confident match: the first result holds ${wordList(first.matchedTerms)}${lacks.length > 0 ? ` but ${lacks.join(" and ")}` : ""}; ${tail}`;
}

function sessionText(query: string, result: SessionResult, palette: Palette): string {
  const lines = [
    `${scoreMark(result, palette)} [${result.source}] session=${palette.cyan(shortId(result.sessionId))} project=${projectLabel(result.project)} date=${localDate(result.endedAt)} turns=${result.turns}${result.isSubagent ? " sub-agent" : ""}${sessionMarkers(result)}${result.bestTurn < 0 ? palette.dim(` best match in rewound turn ${turnLabel(result.bestTurn)}`) : ""}`,
  ];
  if (result.title) lines.push(`  ${palette.bold(oneLine(result.title, 100))}`);
  const about = abstractLine(result.abstract, 160);
  if (about) lines.push(`  ${palette.dim(about)}`);
  if (result.preview.text) lines.push(`  ${highlight(result.preview, palette)}`);
  if (result.files.length > 0) {
    const more = result.files.length > 5 ? ` (+${result.files.length - 5} more)` : "";
    lines.push(`  files: ${result.files.slice(0, 5).join(", ")}${more}`);
  }
  lines.push(palette.dim(`  → drill deeper: ${drillCommand(query, result.sessionId, archiveIdOf(result))}`));
  return lines.join("\n");
}

function turnText(result: TurnResult, palette: Palette): string {
  const lines = [
    `${scoreMark(result, palette)} [${result.source}] turn=${palette.cyan(shortId(result.sessionId))}:${turnLabel(result.turn)} (${result.turn < 0 ? "rewound branch" : `${result.turn}/${result.totalTurns}`}) project=${projectLabel(result.project)} date=${localDate(result.timestamp)}${sessionMarkers(result)}`,
    `  Q: ${result.prompt === "" ? palette.dim(noPromptNote) : oneLine(result.prompt, 300)}`,
  ];
  if (result.responseExcerpt.text) lines.push(`  A: ${highlight(result.responseExcerpt, palette)}`);
  if (result.tools.length > 0) lines.push(`  tools: ${result.tools.join(", ")}`);
  if (result.files.length > 0)
    lines.push(
      `  files: ${result.files.slice(0, 5).join(", ")}${result.files.length > 5 ? ` (+${result.files.length - 5} more)` : ""}`,
    );
  lines.push(
    palette.dim(`  → context: ${showCommand(result.sessionId, result.turn, result.totalTurns, archiveIdOf(result))}`),
  );
  return lines.join("\n");
}

/** Fields whose text `highlight` neutralizes piecewise (their match offsets refer to the raw text). */
const previewFields = new Set(["preview", "responseExcerpt"]);

const quotedTitle = (title: string | null) => (title ? ` "${oneLine(title, 60)}"` : "");

/** Index format, session: `1. 0.82 <id> 2026-03-01 project "title" turn 3/12`, then the preview on one line. */
function sessionIndexText(result: SessionResult, rank: number): string {
  const turn =
    result.bestTurn < 0 ? `rewound turn ${turnLabel(result.bestTurn)}` : `turn ${result.bestTurn || 1}/${result.turns}`;
  const head = `${rank}. ${result.confidence.toFixed(2)}${result.confident ? "" : " weak"} ${result.sessionId} ${localDate(result.endedAt)} ${projectLabel(result.project)}${quotedTitle(result.title)} ${turn}${result.isSubagent ? " sub-agent" : ""}${sessionMarkers(result)}`;
  return `${head}\n   ${neutralizeControls(oneLine(result.preview.text, indexLineChars))}`;
}

/** Index format, turn: `1. 0.82 <id>:4 2026-03-01 10:02 project "title"`, then the prompt on one line. */
function turnIndexText(result: TurnResult, rank: number): string {
  const head = `${rank}. ${result.confidence.toFixed(2)}${result.confident ? "" : " weak"} ${result.sessionId}:${turnLabel(result.turn)} ${localMinute(result.timestamp)} ${projectLabel(result.project)}${quotedTitle(result.title)}${sessionMarkers(result)}`;
  return `${head}\n   Q: ${oneLine(result.prompt, indexLineChars)}`;
}

/**
 * The text listing: a header line, then one block per result separated by blank lines (`index`: two lines per
 * result). Control characters from sessions (and the query) are shown as `\xNN` (escapes.ts). Within
 * `--max-chars` when given: results left out from the end, and a last line `[truncated: …]` saying how many
 * and the command that prints them.
 */
export function renderSearchText(raw: SearchResponse, palette: Palette, options: SearchRenderOptions = {}): string {
  const response = neutralizeStrings(raw, previewFields);
  const index = options.format === "index";
  const blocks =
    response.level === "session"
      ? (response.results as SessionResult[]).map((result, i) =>
          index ? sessionIndexText(result, response.offset + i + 1) : sessionText(response.query, result, palette),
        )
      : (response.results as TurnResult[]).map((result, i) =>
          index ? turnIndexText(result, response.offset + i + 1) : turnText(result, palette),
        );
  const warning = noConfidentMatch(response);
  const dates = datesUnderstoodLine(response.dates);
  const order = rankOrderNote(response.results);
  const top = [
    header(response, palette, options.dateFilters),
    dates && palette.dim(dates),
    warning && palette.yellow(warning),
    order && palette.dim(order),
  ]
    .filter(Boolean)
    .join("\n");
  if (blocks.length === 0) return `${top}\n\nNo matches. Try fewer or other words, or widen the filters.\n`;
  const separator = index ? "\n" : "\n\n";
  const render = (shown: number, marker: Truncation | null) =>
    `${top}\n\n${[...blocks.slice(0, shown), ...(marker ? [neutralizeControls(markerText(marker))] : [])].join(separator)}\n`;
  // When not even the header fits with the marker: the marker alone; then without the command it names (its hint still
  // names the cap that fits); then cut to the cap.
  const compact = (marker: Truncation, maxChars: number) => {
    let line = neutralizeControls(markerText(marker));
    if (line.length + 1 > maxChars && marker.next_command !== null)
      line = neutralizeControls(markerText({ ...marker, hint: marker.hint.replace(`: ${marker.next_command}`, "") }));
    return `${line.length + 1 <= maxChars ? line : `${line.slice(0, maxChars - 3)}…]`}\n`;
  };
  return fitToBudget(blocks.length, render, options, response.offset, compact);
}
