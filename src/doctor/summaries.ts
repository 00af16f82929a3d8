/**
 * The doctor's check of abstracts and summaries (issue 41): the summary backend the environment configures (read,
 * never contacted: a summary costs money), how many sessions have an abstract and a summary, and the sessions whose
 * last summary attempt failed, by reason. Summaries are optional: no backend is OK.
 */
import type { Database } from "bun:sqlite";
import { describeBackend, readSummaryBackend, summaryCounts } from "../summarize/index.ts";
import { type CheckResult, plural } from "./checks.ts";

/** Reasons a prompt fails again as it is: `--retry-failed` sends it anyway. */
const promptReasons = new Set(["refused", "too_large", "bad_answer"]);

/**
 * WARN for a malformed backend configuration (with its fix) or for sessions whose last attempt failed; OK otherwise.
 * @param db the index, or undefined when there is none (then only the configuration is checked)
 */
export function checkSummaries(db: Database | undefined, env: Record<string, string | undefined>): CheckResult {
  const { config, problem } = readSummaryBackend(env);
  if (problem)
    return { id: "summaries", status: "warn", message: `summary backend: ${problem.message}`, fix: problem.hint };
  const backend = config ? `summary backend ${describeBackend(config)}` : "no summary backend (optional)";
  if (!db) return { id: "summaries", status: "ok", message: backend };
  const counts = summaryCounts(db);
  const message = `${backend}; ${plural(counts.withAbstract, "session")} with an abstract, ${counts.summarized} summarized`;
  const failed = Object.entries(counts.failed);
  if (failed.length === 0) return { id: "summaries", status: "ok", message };
  const retryable = failed.some(([reason]) => !promptReasons.has(reason));
  return {
    id: "summaries",
    status: "warn",
    message: `${message}; last attempt failed for ${failed.map(([reason, count]) => `${count} (${reason.replace("_", " ")})`).join(", ")}`,
    fix: retryable
      ? "check the backend (`recall status` names it), then run `recall summarize --all` again: it resumes"
      : "`recall summarize --all --retry-failed` sends them again",
  };
}
