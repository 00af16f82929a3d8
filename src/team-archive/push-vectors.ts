/**
 * The vector side of `recall archive push` (issue 30): when the local index has an embedding model and the archive
 * has pgvector, each pushed document's embedded chunks go with it, read from the local vector files
 * (VectorStore.vectorsOf) and written to recall.chunk_vectors under the model's archive id.
 */
import type { Database } from "bun:sqlite";
import { chunkStatus, readMeta } from "../index/schema.ts";
import {
  dimsOfFingerprint,
  embedFingerprintKey,
  openLevelStore,
  type VectorLevelName,
  vectorLevels,
} from "../index/vectors/vector-files.ts";
import type { VectorStore } from "../native/vector-store.ts";
import type { ArchiveConnection } from "./connection.ts";

/** The local model's vectors, readable, and the archive's id for that model. */
export interface VectorSide {
  /** The model's fingerprint (index meta), also its name in recall.embedding_models. */
  fingerprint: string;
  /** recall.embedding_models.id of the model. */
  modelId: number;
  /** pgvector's type by its qualified name (`public.vector`): connections pin search_path to pg_catalog (issue 37). */
  vectorType: string;
  stores: Record<VectorLevelName, VectorStore>;
  close(): void;
}

/** One chunk vector of a batch: the document's index in the batch, the chunk's index in its document, the vector. */
export interface BatchVector {
  document: number;
  chunk: number;
  vector: Float32Array;
}

/**
 * The vector side of a push, when both ends have one: the local index has an embedding model (its fingerprint
 * and width in meta) and vector files, and the archive has pgvector (recall.chunk_vectors); the model is registered in
 * the archive (recall.register_model creates its index). Undefined otherwise: the push is keyword-only.
 * @throws ArchiveError from the connection
 */
export async function openVectorSide(
  db: Database,
  connection: ArchiveConnection,
  recallHome: string | undefined,
): Promise<VectorSide | undefined> {
  if (recallHome === undefined) return undefined;
  const fingerprint = readMeta(db, embedFingerprintKey);
  const dims = fingerprint ? dimsOfFingerprint(fingerprint) : undefined;
  if (!fingerprint || dims === undefined) return undefined;
  // no row without recall.chunk_vectors; format_type names the type with its schema, which is not on the path
  const [column] = await connection.query<{ type: string }>(
    `SELECT pg_catalog.format_type(a.atttypid, NULL) AS type FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = pg_catalog.to_regclass('recall.chunk_vectors') AND a.attname = 'embedding'`,
  );
  if (!column) return undefined;
  const [model] = await connection.query<{ id: number }>("SELECT recall.register_model($1, $2) AS id", [
    fingerprint,
    dims,
  ]);
  const stores = Object.fromEntries(
    vectorLevels.map((level) => [level, openLevelStore(recallHome, level, { dims, fingerprintKey: fingerprint })]),
  ) as Record<VectorLevelName, VectorStore>;
  return {
    fingerprint,
    modelId: model!.id,
    vectorType: column.type,
    stores,
    close: () => {
      for (const store of Object.values(stores)) store.close();
    },
  };
}

/** The embedded chunks' vectors of local documents `documents` (a batch, in its order), read from the vector files. */
export function readBatchVectors(
  db: Database,
  side: VectorSide,
  documents: ReadonlyArray<{ id: number; level: string }>,
): BatchVector[] {
  if (documents.length === 0) return [];
  const indexOf = new Map(documents.map((d, i) => [d.id, i]));
  const levelOf = new Map(documents.map((d) => [d.id, d.level as VectorLevelName]));
  const chunks = db
    .query<{ id: number; document_id: number; chunk_index: number }, number[]>(
      `SELECT id, document_id, chunk_index FROM chunks WHERE status = ${chunkStatus.embedded}
       AND document_id IN (${documents.map(() => "?").join(",")})`,
    )
    .all(...documents.map((d) => d.id));
  const rows: BatchVector[] = [];
  for (const level of vectorLevels) {
    const ofLevel = chunks.filter((chunk) => levelOf.get(chunk.document_id) === level);
    const vectors = side.stores[level].vectorsOf(ofLevel.map((chunk) => chunk.id));
    for (const chunk of ofLevel) {
      const vector = vectors.get(chunk.id);
      if (vector) rows.push({ document: indexOf.get(chunk.document_id)!, chunk: chunk.chunk_index, vector });
    }
  }
  return rows;
}

/** Where a push writes chunk vectors: the model's id and pgvector's type in the archive (from {@link VectorSide}). */
export type VectorTarget = Pick<VectorSide, "modelId" | "vectorType">;

/**
 * Write a batch's chunk vectors, their documents now archive ids `archiveIds` (by batch index).
 * @returns the number of vectors written
 * @throws ArchiveError from the connection
 */
export async function writeBatchVectors(
  connection: ArchiveConnection,
  team: string,
  side: VectorTarget,
  vectors: readonly BatchVector[],
  archiveIds: readonly string[],
): Promise<number> {
  if (vectors.length === 0) return 0;
  await connection.query(
    `INSERT INTO recall.chunk_vectors (document, team, model, chunk, embedding)
     SELECT v.document, $1, $2, v.chunk, v.embedding::${side.vectorType} FROM unnest($3::bigint[], $4::integer[], $5::text[])
       AS v(document, chunk, embedding)`,
    [
      team,
      side.modelId,
      vectors.map((row) => archiveIds[row.document]),
      vectors.map((row) => row.chunk),
      vectors.map((row) => `[${Array.from(row.vector).join(",")}]`),
    ],
  );
  return vectors.length;
}
