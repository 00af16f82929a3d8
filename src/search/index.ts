/**
 * The search layer's public surface: one API (`searchIndex`) for every front end, the filters,
 * fusion, and the query parser (exported for tests and the docs' examples). Importing it loads every file below,
 * the vector leg and the parsers included; the keyword search path (commands/search-handler.ts, render/search*.ts)
 * imports the files it uses directly instead (issue 14: cold start).
 */
export {
  searchIndex,
  defaultLimits,
  subagentScoreFactor,
  type SearchMode,
  type SearchRequest,
  type SearchResponse,
  type SearchedScope,
  type VectorLeg,
  type VectorHit,
} from "./api.ts";
export { parseDateFilter, parseSource, filterSql, type SearchFilters } from "./filters.ts";
export {
  fuseRelativeScores,
  fuseByEvidence,
  evidenceTierScore,
  confidentTierVectorShare,
  normalizeMinMax,
  type LegHit,
  type FusedHit,
} from "./fusion.ts";
export { parseLexicalQuery, tokenize, type LexicalQuery } from "./query.ts";
export { parseTimeQuery, type TimeQuery, type TimeExpression, type DateRange } from "./time-query.ts";
export { dateFactorOf, dateFactors, type UnderstoodDate } from "./time-boost.ts";
export { isoLocalDate } from "./calendar.ts";
export { searchLexical, matchedTerms, type LexicalHit, type SearchLevel } from "./lexical.ts";
export { makePreview, type Preview } from "./preview.ts";
export { previewPieces, type PreviewPiece } from "./preview-pieces.ts";
export {
  resumeCommandFor,
  resumeCommandOf,
  resumeInvocationFor,
  resumeInvocationOf,
  shellCommandOf,
  type ResumeInvocation,
  type ResumableSession,
  shellQuote,
  type SessionResult,
  type TurnResult,
  type ResultScores,
} from "./hydrate.ts";
export {
  countSessions,
  findSession,
  listSessions,
  readIndexStatus,
  minimumPrefixLength,
  noProjectLabel,
  type SessionSummary,
  type IndexStatus,
} from "./sessions.ts";
export {
  readSessionTurns,
  readSessions,
  reparseSession,
  type ReadSessionOptions,
  type SessionRead,
  type ExportedSession,
} from "./read-session.ts";
export { selectSessions, type SessionSelection } from "./selection.ts";
export { evaluateRetrieval, type LabelledQuery, type RetrievalScores } from "./evaluate.ts";
export { createVectorLeg, openVectorStores } from "./vector.ts";
export { parseLimit, parseOffset, pageOf, maxPageLimit, type Page } from "./paging.ts";
export { recentSessions, projectOfFolder, type RecentSession } from "./recent.ts";
export {
  resolveTimelineAnchor,
  readTimeline,
  type Timeline,
  type TimelineAnchor,
  type TimelineEntry,
  type TimelineOptions,
} from "./timeline.ts";
export { selectTurnRange, type TurnBranch, type TurnRange } from "./turn-range.ts";
export {
  checkDateOrder,
  loadDateWords,
  parseFilterArgs,
  parseDepth,
  parseCount,
  type FilterArgs,
} from "./arguments.ts";
export { attachMatchWorkers } from "./match-window.ts";
