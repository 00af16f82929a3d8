/**
 * Rendering of `recall search`: the text listing (as in the seed tool) and the `--json` contract.
 *
 * JSON contract, version 1 (documented in README.md "JSON output"; fields are only ever added):
 *   {"version": 1, "query", "level": "session"|"turn", "mode": "hybrid"|"keyword"|"vector",
 *    "searched": {"sessions", "projects", "sources": [..]}, "results": [...]}
 *   session result: session_id (full), source, project, project_path, title, git_branch, started_at,
 *     ended_at (ISO-8601 UTC or null), turns, score (0–1, fused), keyword_score, vector_score (0–1 or
 *     null when that leg did not find it), preview, best_turn, files, is_subagent, parent_session_id,
 *     resume_command, next_command, source_status, last_seen_at
 *   turn result: session_id, source, project, project_path, title, turn (1-based), total_turns,
 *     prompt (whole), response_excerpt, tools, files, timestamp, score, keyword_score, vector_score,
 *     show_command, source_status, last_seen_at
 *   source_status: "present" | "deleted" (the source is gone, the index holds the only copy); last_seen_at:
 *     ISO-8601 UTC time recall last saw the session's source, or null
 */
import { shellQuote, type SearchResponse, type SessionResult, type TurnResult } from "../search/index.ts";
import { jsonLine, neutralizeStrings } from "./escapes.ts";
import { highlight, isoDate, isoTime, oneLine, roundScore, shortId, sourceDeletedMarker, type Palette } from "./format.ts";

/**
 * The drill-deeper command for a session result, every part shell-quoted (issue 9); a query that starts
 * with `-` goes after `--` so it is not read as a flag.
 * Examples: `recall search 'docker network' --depth 2 --session 2c5941bd-…`;
 *   `recall search --depth 2 --session 2c5941bd-… -- '-v flag'`.
 */
export function drillCommand(query: string, sessionId: string): string {
  const scope = `--depth 2 --session ${shellQuote(sessionId)}`;
  return query.startsWith("-") ? `recall search ${scope} -- ${shellQuote(query)}` : `recall search ${shellQuote(query)} ${scope}`;
}

/**
 * The level-3 command for a turn: the turn with one turn of context on each side, shell-quoted.
 * Example: `recall show 2c5941bd-…:4-6`.
 */
export function showCommand(sessionId: string, turn: number, totalTurns: number): string {
  const from = Math.max(1, turn - 1);
  const to = Math.min(Math.max(totalTurns, turn), turn + 1);
  const target = `${sessionId}:${from}-${to}`;
  return `recall show ${target.startsWith("-") ? "-- " : ""}${shellQuote(target)}`;
}

/** The session fields both result shapes start with. */
function identityJson(result: SessionResult | TurnResult) {
  return { session_id: result.sessionId, source: result.source, project: result.project, project_path: result.projectPath, title: result.title };
}

/** Whether the source still holds the session (issue 9); last in both shapes (fields are only ever added). */
function archiveJson(result: SessionResult | TurnResult) {
  return { source_status: result.sourceStatus, last_seen_at: isoTime(result.lastSeenAt) };
}

/** Fused and per-leg scores, rounded; a leg that did not find the result is null. */
function scoresJson(result: SessionResult | TurnResult) {
  return { score: roundScore(result.score), keyword_score: roundScore(result.keywordScore) ?? null, vector_score: roundScore(result.vectorScore) ?? null };
}

function sessionJson(query: string, result: SessionResult) {
  return {
    ...identityJson(result),
    git_branch: result.gitBranch,
    started_at: isoTime(result.startedAt),
    ended_at: isoTime(result.endedAt),
    turns: result.turns,
    ...scoresJson(result),
    preview: result.preview.text,
    best_turn: result.bestTurn,
    files: result.files,
    is_subagent: result.isSubagent,
    parent_session_id: result.parentSessionId,
    resume_command: result.resumeCommand,
    next_command: drillCommand(query, result.sessionId),
    ...archiveJson(result),
  };
}

function turnJson(result: TurnResult) {
  return {
    ...identityJson(result),
    turn: result.turn,
    total_turns: result.totalTurns,
    prompt: result.prompt,
    response_excerpt: result.responseExcerpt.text,
    tools: result.tools,
    files: result.files,
    timestamp: isoTime(result.timestamp),
    ...scoresJson(result),
    show_command: showCommand(result.sessionId, result.turn, result.totalTurns),
    ...archiveJson(result),
  };
}

/** The `--json` object (one line). */
export function renderSearchJson(response: SearchResponse): string {
  const results =
    response.level === "session"
      ? (response.results as SessionResult[]).map((result) => sessionJson(response.query, result))
      : (response.results as TurnResult[]).map(turnJson);
  return jsonLine({ version: 1, query: response.query, level: response.level, mode: response.mode, searched: response.searched, results });
}

function header(response: SearchResponse, palette: Palette): string {
  const { sessions, projects, sources } = response.searched;
  const what = response.level === "session" ? "sessions" : "turns";
  return palette.dim(
    `Searched ${sessions} session${sessions === 1 ? "" : "s"} across ${projects} project${projects === 1 ? "" : "s"} (${sources.join(", ") || "no sources"}), ${response.mode} mode: ${response.results.length} ${what}`,
  );
}

function sessionText(query: string, result: SessionResult, palette: Palette): string {
  const lines = [
    `${palette.bold(`[${result.score.toFixed(2)}]`)} [${result.source}] session=${palette.cyan(shortId(result.sessionId))} project=${result.project || "?"} date=${isoDate(result.endedAt)} turns=${result.turns}${result.isSubagent ? " sub-agent" : ""}${result.sourceStatus === "deleted" ? ` ${sourceDeletedMarker(result)}` : ""}`,
  ];
  if (result.title) lines.push(`  ${palette.bold(oneLine(result.title, 100))}`);
  if (result.preview.text) lines.push(`  ${highlight(result.preview, palette)}`);
  if (result.files.length > 0) {
    const more = result.files.length > 5 ? ` (+${result.files.length - 5} more)` : "";
    lines.push(`  files: ${result.files.slice(0, 5).join(", ")}${more}`);
  }
  lines.push(palette.dim(`  → drill deeper: ${drillCommand(query, result.sessionId)}`));
  return lines.join("\n");
}

function turnText(result: TurnResult, palette: Palette): string {
  const lines = [
    `${palette.bold(`[${result.score.toFixed(2)}]`)} [${result.source}] turn=${palette.cyan(shortId(result.sessionId))}:${result.turn} (${result.turn}/${result.totalTurns}) project=${result.project || "?"} date=${isoDate(result.timestamp)}${result.sourceStatus === "deleted" ? ` ${sourceDeletedMarker(result)}` : ""}`,
    `  Q: ${oneLine(result.prompt, 300)}`,
  ];
  if (result.responseExcerpt.text) lines.push(`  A: ${highlight(result.responseExcerpt, palette)}`);
  if (result.tools.length > 0) lines.push(`  tools: ${result.tools.join(", ")}`);
  if (result.files.length > 0) lines.push(`  files: ${result.files.slice(0, 5).join(", ")}${result.files.length > 5 ? ` (+${result.files.length - 5} more)` : ""}`);
  lines.push(palette.dim(`  → context: ${showCommand(result.sessionId, result.turn, result.totalTurns)}`));
  return lines.join("\n");
}

/** Fields whose text `highlight` neutralizes piecewise (their match offsets refer to the raw text). */
const previewFields = new Set(["preview", "responseExcerpt"]);

/**
 * The text listing: a header line, then one block per result separated by blank lines. Control characters
 * from sessions (and the query) are shown as `\xNN` (escapes.ts).
 */
export function renderSearchText(raw: SearchResponse, palette: Palette): string {
  const response = neutralizeStrings(raw, previewFields);
  const blocks =
    response.level === "session"
      ? (response.results as SessionResult[]).map((result) => sessionText(response.query, result, palette))
      : (response.results as TurnResult[]).map((result) => turnText(result, palette));
  if (blocks.length === 0) blocks.push("No matches. Try fewer or other words, or widen the filters.");
  return `${header(response, palette)}\n\n${blocks.join("\n\n")}\n`;
}
