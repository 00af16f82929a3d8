/**
 * Rendering of `recall eval` (issue 43): a table per level (sessions, turns) and search mode, one row per label kind
 * and one for all, then the first {@link missesShown} queries the search that ran did not find at level 1. Queries are
 * session text (a commit message, a title): the text shows each on one line through escapes.ts `neutralizeControls`
 * (a title can hold terminal escapes); `--json` lists every label with its ranks.
 * `--json` (one object): {"version": 1, "sessions": S (the main sessions with turns the labels were looked for in),
 * "queries": N, "mode": "hybrid" | "keyword", "model": name | null,
 * "tuning": {…} | null (the user's tuning the measure ranked with), the level-1 scores ("recall_at_1", "recall_at_5",
 * "recall_at_10", "mrr", "confident_rank1"), "kinds": {<kind>: {"queries", the same five}}, "turns": {the same for
 * level 2, with its "kinds"}, "keyword_only": {the level-1 scores, "kinds", "turns"} | null (beside a hybrid measure),
 * "labels": [{"kind", "query", "sessions": [session id], "rank", "turn_rank"}] (ranks in the top 10 of `mode`, null
 * beyond)}.
 * `--tune --json`: {"version": 1, "queries", "fitting_queries", "held_out_queries", "mode", "model", "weight":
 * {"committed", "fitted"} | null, "keyword_curve": {"slope", "intercept"} | null, "keyword_note", "before": {…},
 * "after": {…} (each "recall_at_5", "mrr", "turn_mrr", "confidence_accuracy"), "kept", "verdict"}.
 */
import type { GroupScores, Label, LabelOutcome, LevelReport, TuneReport } from "../evaluate/index.ts";
import { labelKinds, scoreLevel } from "../evaluate/index.ts";
import type { Tuning } from "../search/ranking/tuning.ts";
import { describeTuning } from "../search/ranking/tuning.ts";
import { jsonLine, neutralizeControls } from "./escapes.ts";
import { oneLine, shortId } from "./format.ts";

/** What one `recall eval` measured. */
export interface EvalReport {
  labels: Label[];
  /** Main sessions with turns: where the labels were looked for. */
  sessions: number;
  /** The keyword leg alone. */
  keyword: LabelOutcome[];
  /** Hybrid, when a model was set. */
  hybrid: LabelOutcome[] | undefined;
  model: string | null;
  /** The user's tuning the searches ranked with, if any. */
  tuning: Tuning | undefined;
}

const kindWords: Record<string, string> = { commit: "commit messages", title: "agent-written titles" };

const round = (value: number) => value.toFixed(3);

const labelledQueries = (count: number) => `${count} labelled ${count === 1 ? "query" : "queries"}`;

function tableRows(scores: LevelReport): string[] {
  const row = (name: string, group: GroupScores) =>
    `  ${name.padEnd(8)}${String(group.queries).padStart(8)}${round(group.recall_at_1).padStart(10)}${round(group.recall_at_5).padStart(10)}${round(group.recall_at_10).padStart(11)}${round(group.mrr).padStart(8)}${round(group.confident_rank1).padStart(18)}`;
  return [
    ...labelKinds.flatMap((kind) => (scores.kinds[kind] ? [row(kind, scores.kinds[kind]!)] : [])),
    row("all", scores),
  ];
}

function modeTable(title: string, outcomes: readonly LabelOutcome[]): string[] {
  return [
    title,
    `  ${"".padEnd(8)}${"queries".padStart(8)}${"recall@1".padStart(10)}${"recall@5".padStart(10)}${"recall@10".padStart(11)}${"MRR".padStart(8)}${"confident rank-1".padStart(18)}`,
    " sessions (level 1)",
    ...tableRows(scoreLevel(outcomes, "sessions")),
    " turns (level 2)",
    ...tableRows(scoreLevel(outcomes, "turns")),
  ];
}

/** The line that says what was found, or that nothing was. */
function foundLine(labels: readonly Label[]): string {
  const counts = labelKinds
    .map((kind) => [kind, labels.filter((label) => label.kind === kind).length] as const)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${count} ${kindWords[kind]}`);
  return `${labelledQueries(labels.length)} from this history (${counts.join(", ")}), each searched without the text it was taken from`;
}

/** What a history without labels is told. */
const noLabelsText = (sessions: number) =>
  `no labelled queries in this history: recall takes them from \`git commit -m\` messages an agent ran and from session titles an agent wrote, and found neither in ${sessions} ${sessions === 1 ? "session" : "sessions"}; nothing to measure\n`;

/** Queries not found listed in the text report at most; `--json` has them all. */
export const missesShown = 10;

/** The queries not in the top 10 at level 1, newest sessions first: one line each, kind, query and session. */
function missLines(outcomes: readonly LabelOutcome[]): string[] {
  const missed = outcomes.filter((outcome) => !Number.isFinite(outcome.sessions.rank));
  if (missed.length === 0) return [];
  return [
    "",
    `not in the top 10 at level 1: ${missed.length} of ${outcomes.length}${missed.length > missesShown ? ` (the first ${missesShown}; --json lists every label with its rank)` : ""}`,
    ...missed.slice(0, missesShown).map((outcome) => {
      const session = outcome.label.sessions[0]!;
      return `  ${outcome.label.kind.padEnd(7)} ${neutralizeControls(oneLine(outcome.label.query, 90))}  (${session.source} ${shortId(session.sessionId)})`;
    }),
  ];
}

/** The text report: what was found, then a table per mode (hybrid first, when measured), then the misses. */
export function renderEvalText(report: EvalReport): string {
  if (report.labels.length === 0) return noLabelsText(report.sessions);
  const lines = [foundLine(report.labels)];
  if (report.tuning) lines.push(`ranked with your own tuning ${neutralizeControls(describeTuning(report.tuning))}`);
  if (report.hybrid) lines.push("", ...modeTable(`hybrid (${neutralizeControls(report.model ?? "")})`, report.hybrid));
  lines.push("", ...modeTable("keyword only", report.keyword));
  if (!report.hybrid) lines.push("", "hybrid not measured: no model is set, or its vectors cannot be used here");
  lines.push(...missLines(report.hybrid ?? report.keyword));
  return `${lines.join("\n")}\n`;
}

/** The scores of one mode as `--json` gives them: level 1's at the top, level 2's under `turns`. */
const modeJson = (outcomes: readonly LabelOutcome[]) => ({
  ...scoreLevel(outcomes, "sessions"),
  turns: scoreLevel(outcomes, "turns"),
});

const finite = (rank: number): number | null => (Number.isFinite(rank) ? rank : null);

/** The `--json` object (module doc). */
export function renderEvalJson(report: EvalReport): string {
  const main = report.hybrid ?? report.keyword;
  return jsonLine({
    version: 1,
    sessions: report.sessions,
    mode: report.hybrid ? "hybrid" : "keyword",
    model: report.model,
    tuning: report.tuning ?? null,
    ...modeJson(main),
    keyword_only: report.hybrid ? modeJson(report.keyword) : null,
    labels: main.map((outcome) => ({
      kind: outcome.label.kind,
      query: outcome.label.query,
      sessions: outcome.label.sessions.map((session) => session.sessionId),
      rank: finite(outcome.sessions.rank),
      turn_rank: finite(outcome.turns.rank),
    })),
  });
}

const measureRows = (report: TuneReport): string[] => {
  const row = (name: string, before: number, after: number) =>
    `  ${name.padEnd(28)}${round(before).padStart(10)}${round(after).padStart(10)}`;
  return [
    `  ${"held-out half".padEnd(28)}${"committed".padStart(10)}${"tuned".padStart(10)}`,
    row("recall@5 (sessions)", report.before.recallAt5, report.after.recallAt5),
    row("MRR (sessions)", report.before.mrr, report.after.mrr),
    row("MRR (turns)", report.before.turnMrr, report.after.turnMrr),
    row("confidence right", report.before.confidenceAccuracy, report.after.confidenceAccuracy),
  ];
};

/** The text report of `--tune`. */
export function renderTuneText(report: TuneReport): string {
  const lines = [
    `tuning on ${labelledQueries(report.labels)}: fitted on ${report.fittingQueries}, measured on the other ${report.heldOutQueries} (${report.mode}${report.model ? `, ${neutralizeControls(report.model)}` : ""})`,
    report.weight
      ? `vector weight: committed ${report.weight.committed}, best on the fitting half ${report.weight.fitted}`
      : "vector weight: not tuned (keyword only: no model is set, or its vectors cannot be used here)",
    `keyword confidence: ${report.keyword.note}`,
    ...measureRows(report),
    report.tuning
      ? `${report.verdict}; searches rank with it now (\`recall eval --reset\` undoes it)`
      : `${report.verdict}; searches keep what they had`,
  ];
  return `${lines.join("\n")}\n`;
}

/** The `--tune --json` object (module doc). */
export function renderTuneJson(report: TuneReport): string {
  const measure = (value: TuneReport["before"]) => ({
    recall_at_5: value.recallAt5,
    mrr: value.mrr,
    turn_mrr: value.turnMrr,
    confidence_accuracy: value.confidenceAccuracy,
  });
  return jsonLine({
    version: 1,
    queries: report.labels,
    fitting_queries: report.fittingQueries,
    held_out_queries: report.heldOutQueries,
    mode: report.mode,
    model: report.model,
    weight: report.weight,
    keyword_curve: report.keyword.curve,
    keyword_note: report.keyword.note,
    before: measure(report.before),
    after: measure(report.after),
    kept: report.tuning !== undefined,
    verdict: report.verdict,
  });
}
