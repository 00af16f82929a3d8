/**
 * The index layer's public surface: RECALL_HOME, the SQLite schema, the incremental indexer,
 * the staleness check and document building. Commands and search import from here only.
 */
export { resolveRecallHome, ensureRecallHome, databasePath, homeFiles } from "./home.ts";
export { openIndex, readMeta, writeMeta, schemaVersion, chunkStatus, type OpenIndexOptions } from "./schema.ts";
export { runIndex, type IndexHooks, type IndexOptions, type IndexSummary } from "./indexer.ts";
export { checkStaleness, type StalenessReport } from "./staleness.ts";
export { buildTurnDocument, buildSessionDocument, loadDocumentTexts, hashDocument, type DocumentText } from "./documents.ts";
export { tryAcquireIndexLock, acquireIndexLock, type IndexLock } from "./lock.ts";
export type { StoredToolCall } from "./writer.ts";
export { embedPending, openLevelStore, vectorLevels, embedFingerprintKey, type EmbeddingHooks, type EmbeddingSummary } from "./embedding.ts";
export { splitIntoChunks, chunkBudget } from "./chunking.ts";
