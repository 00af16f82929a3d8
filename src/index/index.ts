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
} from "./home.ts";
export { prepareRecallPaths, migrateLegacyHome, migrationWaitMs, type HomeHooks } from "./home-migration.ts";
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
} from "./snapshot.ts";
export { isDamagedIndexError, damagedIndexError, damageHint, isSqliteDamage } from "./damage.ts";
export { openIndex, readMeta, writeMeta, schemaVersion, chunkStatus, type OpenIndexOptions } from "./schema.ts";
export { runIndex, hasPendingEmbeddings, type IndexHooks, type IndexOptions, type IndexSummary } from "./indexer.ts";
export { checkStaleness, type StalenessReport } from "./staleness.ts";
export {
  buildTurnDocument,
  buildSessionDocument,
  loadDocumentTexts,
  hashDocument,
  type DocumentText,
} from "./documents.ts";
export {
  tryAcquireIndexLock,
  acquireIndexLock,
  readIndexLockHolder,
  describeIndexLockHolder,
  type IndexLock,
} from "./lock.ts";
export type { StoredToolCall } from "./writer.ts";
export type { SourceStatus } from "./schema.ts";
export {
  readStoredSession,
  capArchivedOutput,
  lastSeenSql,
  archivedOutputLines,
  archivedOutputBytes,
} from "./archive.ts";
export {
  forgetSessions,
  unforgetSessions,
  type ForgetReport,
  type ForgottenSession,
  type ForgetOptions,
  type TombstoneSelection,
} from "./forget.ts";
export {
  embedPending,
  type EmbeddingHooks,
  type EmbeddingOptions,
  type EmbeddingStop,
  type EmbeddingSummary,
} from "./embedding.ts";
export { embedConfigMetaKey, nextFingerprintKey, readReembedProgress, type ReembedProgress } from "./generations.ts";
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
} from "./vector-files.ts";
export { splitIntoChunks, chunkBudget } from "./chunking.ts";
export {
  startWatcher,
  watchDefaults,
  type Watcher,
  type WatchOptions,
  type WatchHooks,
  type WatchDescription,
} from "./watch.ts";
export { planWatchTargets, type WatchTarget, type WatchTargetKind } from "./watch-targets.ts";
