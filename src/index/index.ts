/**
 * The index layer's public surface: where recall keeps things (data/config/cache), snapshots and damage, the SQLite schema, the incremental indexer,
 * the staleness check, document building and the watcher that keeps the index fresh (issue 10). Commands and search import from here only.
 */
export {
  resolveRecallHome,
  resolveRecallPaths,
  pathsUnder,
  asRecallPaths,
  ensureRecallHome,
  databasePath,
  homeFiles,
  dotEnvPath,
  modelsDir,
  runtimeDir,
  makePrivateDirs,
  createPrivateFile,
  describeExposure,
  describeBlockedFolder,
  statOrUndefined,
  type RecallPaths,
} from "../home/paths.ts";
export { prepareRecallPaths, migrateLegacyHome, migrationWaitMs, type HomeHooks } from "./store/home-migration.ts";
export {
  findSnapshot,
  listSnapshots,
  writeSnapshot,
  snapshotIfDue,
  restoreSnapshot,
  setDamagedIndexAside,
  listSetAside,
  snapshotsDir,
  snapshotIntervalMs,
  type SnapshotInfo,
  type RestoreResult,
} from "./store/snapshot.ts";
export { isDamagedIndexError, damagedIndexError, damageHint, isSqliteDamage } from "./store/damage.ts";
export {
  openIndex,
  readMeta,
  writeMeta,
  schemaVersion,
  chunkStatus,
  longLivedPageCacheKibibytes,
  type OpenIndexOptions,
} from "./schema.ts";
export {
  runIndex,
  hasPendingEmbeddings,
  type IndexHooks,
  type IndexOptions,
  type IndexSummary,
} from "./write/indexer.ts";
export { checkStaleness, type StalenessReport } from "./plan/staleness.ts";
export {
  buildTurnDocument,
  buildSessionDocument,
  loadDocumentTexts,
  hashDocument,
  storedAbstract,
  type DocumentText,
} from "./write/documents.ts";
export { refreshStoredSessionDocument, refreshStoredTurnDocument } from "./write/writer.ts";
export {
  tryAcquireIndexLock,
  acquireIndexLock,
  readIndexLockHolder,
  describeIndexLockHolder,
  type IndexLock,
} from "./store/lock.ts";
export type { StoredToolCall } from "./write/writer.ts";
export type { SourceStatus } from "./schema.ts";
export {
  readStoredSession,
  capArchivedOutput,
  lastSeenSql,
  archivedOutputLines,
  archivedOutputBytes,
} from "./store/archive.ts";
export {
  forgetSessions,
  unforgetSessions,
  type ForgetReport,
  type ForgottenSession,
  type ForgetOptions,
  type TombstoneSelection,
} from "./store/forget.ts";
export {
  embedPending,
  type EmbeddingHooks,
  type EmbeddingOptions,
  type EmbeddingStop,
  type EmbeddingSummary,
} from "./vectors/embedding.ts";
export { embedConfigMetaKey } from "./vectors/generations.ts";
export { nextFingerprintKey, readReembedProgress, type ReembedProgress } from "./vectors/reembed-progress.ts";
export {
  openLevelStore,
  vectorLevels,
  embedFingerprintKey,
  findVectorDamage,
  repairVectorFiles,
  recordVectorFiles,
  type LevelStores,
  type VectorFileReport,
  type VectorLevelName,
  type VectorModel,
} from "./vectors/vector-files.ts";
export { readNotKept, type NotKept, type RejectedFile, type UnplacedRecords } from "./write/not-kept.ts";
export { splitIntoChunks, chunkBudget } from "./write/chunking.ts";
export {
  startWatcher,
  type Watcher,
  type WatchOptions,
  type WatchHooks,
  type WatchDescription,
} from "./watch/watch.ts";
export { planWatchTargets, type WatchTarget, type WatchTargetKind } from "./watch/targets.ts";
