/**
 * What a hybrid or vector `recall search` needs besides the keyword search, as one module its handler imports on use
 * (search-handler.ts; a keyword-only search never loads it, nor the embedding layer, the helper's socket client or the
 * vector store behind it): the model opener, the embedding helper's client, the vector leg, and the pending-embeddings
 * check that decides whether to ask the helper to embed new turns.
 */
export { hasPendingEmbeddings } from "../index/write/indexer.ts";
export { createEmbedderOpener } from "./embedder.ts";
export { helperModel, openHelperQueryEmbedder } from "./query-embedder.ts";
export { openVectorLeg } from "./vector-leg.ts";
