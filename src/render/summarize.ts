/**
 * Rendering of `recall summarize` (issue 41). Every selected session is in one count: made now, made before (the
 * same prompt: nothing sent), or not summarized with its reason.
 * `--json`: {"version": 1, "backend": "<kind> <model> at <url>" | null, "dry_run", "selected", "summarized", "cached",
 * "not_summarized": {<reason>: n}, "stopped": "<line>" | null, "characters", "estimated_tokens" (null for a local
 * model: its own tokenizer counts), "empty_sessions_left_out", "sessions": [{"session_id", "project", "title",
 * "characters", "estimated_tokens"}] (a dry run's sessions that would be sent; [] otherwise)}.
 * Reasons: refused, too_large, rate_limited, bad_answer, unreachable, auth, timeout, no_backend, backend_stopped,
 * over_limit, interrupted.
 */
import {
  describeBackend,
  type NotSummarizedReason,
  type SummarizeReport,
  type SummaryBackendConfig,
} from "../summarize/index.ts";
import { jsonLine, neutralizeControls } from "./escapes.ts";
import { countOf, oneLine } from "./format.ts";

/** What the text and JSON say besides the report. */
export interface SummarizeRenderOptions {
  dryRun: boolean;
  /** Selected sessions without any turn, left out (nothing to summarize). */
  emptyLeftOut: number;
}

/** The reasons in the order they are listed, each as the text output words it. */
const reasonWords: Record<NotSummarizedReason, string> = {
  refused: "refused by the model",
  too_large: "too large",
  bad_answer: "answered badly",
  rate_limited: "rate limited",
  timeout: "timed out",
  unreachable: "backend unreachable",
  auth: "key refused",
  backend_stopped: "not sent: the backend was stopped",
  no_backend: "no backend configured",
  over_limit: "past --limit",
  interrupted: "interrupted",
};

/** How to configure a backend, for a run that needed one. */
export const noBackendHint =
  "set RECALL_SUMMARY_MODEL=/path/to/chat-model.gguf, or SUMMARIES_URL and SUMMARIES_MODEL (an OpenAI-compatible endpoint), or ANTHROPIC_API_KEY";

const number = (value: number) => value.toLocaleString("en-US");

/** `2 refused by the model, 1 too large`, in {@link reasonWords} order; "" when none. */
function reasonsText(notSummarized: SummarizeReport["notSummarized"]): string {
  return (Object.keys(reasonWords) as NotSummarizedReason[])
    .filter((reason) => (notSummarized[reason] ?? 0) > 0)
    .map((reason) => `${number(notSummarized[reason]!)} ${reasonWords[reason]}`)
    .join(", ");
}

/** The text output: one line of counts (a dry run: what would be sent, then one line per session), then notes. */
export function renderSummarizeText(
  report: SummarizeReport,
  backend: SummaryBackendConfig | null,
  options: SummarizeRenderOptions,
): string {
  const lines: string[] = [];
  const cached = report.cached > 0 ? `; ${number(report.cached)} already summarized` : "";
  const reasons = reasonsText(report.notSummarized);
  const notDone = reasons ? `; not summarized: ${reasons}` : "";
  const empty = options.emptyLeftOut > 0 ? `; ${countOf(options.emptyLeftOut, "session")} without turns left out` : "";
  if (options.dryRun) {
    const to = backend ? ` to ${describeBackend(backend)}` : " (no backend configured)";
    const tokens = backend && backend.kind !== "local" ? `, ~${number(report.estimatedTokens)} tokens` : "";
    lines.push(
      `would send ${countOf(report.planned.length, "session")}${to}: ${number(report.characters)} characters${tokens}${cached}${notDone}${empty}`,
    );
    for (const planned of report.planned)
      lines.push(
        `  ${planned.sessionId}  ${oneLine(planned.project || "(no project)", 24)}  ${number(planned.characters)} chars  ${oneLine(planned.title ?? "", 70)}`,
      );
  } else {
    const by = backend ? ` with ${describeBackend(backend)}` : "";
    lines.push(`summarized ${countOf(report.summarized, "session")}${by}${cached}${notDone}${empty}`);
  }
  if (report.stopped) lines.push(`recall: ${report.stopped}`);
  if (!backend && ((report.notSummarized.no_backend ?? 0) > 0 || options.dryRun))
    lines.push(`recall: no summary backend: ${noBackendHint}`);
  if ((report.notSummarized.interrupted ?? 0) > 0)
    lines.push("recall: interrupted; the summaries made are kept, and the same command goes on from there");
  return `${lines.map(neutralizeControls).join("\n")}\n`;
}

/** The `--json` output (see the module doc). */
export function renderSummarizeJson(
  report: SummarizeReport,
  backend: SummaryBackendConfig | null,
  options: SummarizeRenderOptions,
): string {
  return jsonLine({
    version: 1,
    backend: backend ? describeBackend(backend) : null,
    dry_run: options.dryRun,
    selected: report.selected,
    summarized: report.summarized,
    cached: report.cached,
    not_summarized: report.notSummarized,
    stopped: report.stopped,
    characters: report.characters,
    estimated_tokens: backend?.kind === "local" ? null : report.estimatedTokens,
    empty_sessions_left_out: options.emptyLeftOut,
    sessions: report.planned.map((planned) => ({
      session_id: planned.sessionId,
      project: planned.project,
      title: planned.title,
      characters: planned.characters,
      estimated_tokens: planned.estimatedTokens,
    })),
  });
}
