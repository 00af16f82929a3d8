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
export { parseDateFilter, parseSource, filterSql, type SearchFilters } from "./listing/filters.ts";
export {
  fuseRelativeScores,
  fuseByEvidence,
  evidenceTierScore,
  confidentTierVectorShare,
  normalizeMinMax,
  type LegHit,
  type FusedHit,
} from "./ranking/fusion.ts";
export { parseLexicalQuery, tokenize, type LexicalQuery } from "./ranking/query.ts";
export { parseTimeQuery, type TimeQuery, type TimeExpression, type DateRange } from "./dates/time-query.ts";
export { dateFactorOf, dateFactors, type UnderstoodDate } from "./dates/time-boost.ts";
export { isoLocalDate } from "./dates/calendar.ts";
export { searchLexical, matchedTerms, type LexicalHit, type SearchLevel } from "./ranking/lexical.ts";
export { makePreview, type Preview } from "./reading/preview.ts";
export { previewPieces, type PreviewPiece } from "./reading/preview-pieces.ts";
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
} from "./reading/hydrate.ts";
export {
  countSessions,
  findSession,
  listSessions,
  readIndexStatus,
  minimumPrefixLength,
  noProjectLabel,
  type SessionSummary,
  type IndexStatus,
} from "./listing/sessions.ts";
export {
  readSessionTurns,
  readSessions,
  reparseSession,
  type ReadSessionOptions,
  type SessionRead,
  type ExportedSession,
} from "./reading/read-session.ts";
export { selectSessions, type SessionSelection } from "./listing/selection.ts";
export { createVectorLeg, openVectorStores } from "./ranking/vector.ts";
export { parseLimit, parseOffset, pageOf, maxPageLimit, type Page } from "./listing/paging.ts";
export { recentSessions, projectOfFolder, type RecentSession } from "./listing/recent.ts";
export {
  resolveTimelineAnchor,
  readTimeline,
  type Timeline,
  type TimelineAnchor,
  type TimelineEntry,
  type TimelineOptions,
} from "./reading/timeline.ts";
export { selectTurnRange, type TurnBranch, type TurnRange } from "./reading/turn-range.ts";
export {
  checkDateOrder,
  loadDateWords,
  parseFilterArgs,
  parseDepth,
  parseCount,
  type FilterArgs,
} from "./listing/arguments.ts";
export { attachLongLivedSearch } from "./long-lived.ts";
