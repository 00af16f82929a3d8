/**
 * The summary backends' public surface (issue 41): pick a backend from the environment, open it, build the prompt for
 * a session, and the types a command codes against.
 */
export { defaultAnthropicModel } from "./anthropic.ts";
export { cleanSummaryAnswer, maxSummaryCharacters } from "./answer.ts";
export {
  describeBackend,
  openSummaryBackend,
  readSummaryBackend,
  summaryBackendConfig,
  type SummaryBackendConfig,
} from "./config.ts";
export type { ChatHttpOptions } from "./http-chat.ts";
export type { LocalChatHooks } from "./local-chat.ts";
export {
  buildSummaryPrompt,
  defaultSummaryBudgetCharacters,
  summarySystemPrompt,
  type SummarySource,
} from "./prompt.ts";
export { SummaryFailure, type SummaryBackend, type SummaryFailureReason, type SummaryPrompt } from "./types.ts";
export {
  consecutiveFailureLimit,
  summarizeSessions,
  type NotSummarizedReason,
  type PlannedSummary,
  type SummarizeOptions,
  type SummarizeReport,
  type SummaryCandidate,
} from "./run.ts";
export { readSummaryState, summaryCounts, type SummaryCounts, type SummaryState } from "./summaries.ts";
