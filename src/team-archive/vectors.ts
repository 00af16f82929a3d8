/**
 * The vector leg in the team archive (issue 30): pgvector cosine search over the pushed chunk vectors of one
 * embedding model (recall.chunk_vectors, its HNSW index per model from recall.register_model), with the filters and
 * row-level security in the same statement. Level 1 keeps each session's best chunk (session and turn chunks both),
 * level 2 each turn document's best chunk, as the local leg does (search/ranking/vector.ts). Scores are cosines (−1…1).
 */
import { existsSync } from "node:fs";
import type { Embedder } from "../embed/index.ts";
import { databasePath, openIndex, readMeta } from "../index/index.ts";
import { embedFingerprintKey } from "../index/vectors/vector-files.ts";
import { redactText } from "../redact/index.ts";
import type { VectorHit, VectorLeg } from "../search/api.ts";
import type { SearchFilters } from "../search/listing/filters.ts";
import type { SearchLevel } from "../search/ranking/lexical.ts";
import type { ArchiveConnection } from "./connection.ts";
import { archiveFilterSql } from "./sessions.ts";

/** A model whose vectors the archive holds. */
export interface ArchiveModel {
  id: number;
  fingerprint: string;
  dimensions: number;
}

/**
 * The archive's record of the model with this fingerprint, or undefined (no pgvector, or nobody pushed its vectors).
 * @throws ArchiveError from the connection
 */
export async function archiveModel(
  connection: ArchiveConnection,
  fingerprint: string,
): Promise<ArchiveModel | undefined> {
  const [table] = await connection.query<{ found: boolean }>(
    "SELECT to_regclass('recall.embedding_models') IS NOT NULL AS found",
  );
  if (!table?.found) return undefined;
  const [row] = await connection.query<{ id: number; dimensions: number }>(
    "SELECT id, dimensions FROM recall.embedding_models WHERE fingerprint = $1",
    [fingerprint],
  );
  return row ? { id: row.id, fingerprint, dimensions: row.dimensions } : undefined;
}

/** What embeds a query: the local model that wrote the pushed vectors (its name picks the confidence calibration). */
export interface ArchiveQueryEmbedder {
  readonly name: string;
  embedQuery(text: string): Promise<Float32Array>;
}

/**
 * The vector leg over the archive for `model`, embedding queries with `embedder` (which must be that model: the
 * caller matched their fingerprints). Hits carry archive ids as `sessionRowid` and `documentId`.
 */
export function createArchiveVectorLeg(
  connection: ArchiveConnection,
  model: ArchiveModel,
  embedder: ArchiveQueryEmbedder,
): VectorLeg {
  const d = Math.trunc(model.dimensions);
  const m = Math.trunc(model.id);
  return {
    model: embedder.name,
    async search(query: string, level: SearchLevel, filters: SearchFilters, candidates: number): Promise<VectorHit[]> {
      const vector = await embedder.embedQuery(redactText(query)); // as the local leg: no secret leaves in a query
      const literal = `[${Array.from(vector).join(",")}]`;
      const byTurnTime = level === "turn" && (filters.since !== undefined || filters.until !== undefined);
      const filter = archiveFilterSql(filters, 3, byTurnTime ? "t.timestamp" : undefined);
      const best = new Map<number, VectorHit>();
      // Several chunks can belong to one session or turn: widen the window until enough distinct owners are found.
      for (let k = candidates * 2; ; k *= 2) {
        // the nearest chunks of the caller's teams (recall.match_vectors: the model's HNSW index, as the owner), then
        // their documents and sessions under row-level security with the filters evaluated per row
        const rows = await connection.query<{
          document_id: string;
          session: string;
          turn_number: number;
          cosine: number;
          passes: boolean;
        }>(
          `SELECT d.id AS document_id, d.session, d.turn_number, v.cosine, coalesce(${filter.sql}, false) AS passes
           FROM recall.match_vectors(${m}, ${d}, $1, ${level === "turn"}, $2) AS v
           JOIN recall.documents d ON d.id = v.document JOIN recall.sessions s ON s.id = d.session
           ${byTurnTime ? "LEFT JOIN recall.turns t ON t.session = d.session AND t.number = d.turn_number" : ""}
           ORDER BY v.cosine DESC, d.id`,
          [literal, k, ...filter.params],
        );
        for (const row of rows) {
          if (!row.passes) continue;
          const hit: VectorHit = {
            sessionRowid: Number(row.session),
            documentId: Number(row.document_id),
            turnNumber: row.turn_number,
            score: Number(row.cosine),
          };
          const key = level === "session" ? hit.sessionRowid : hit.documentId;
          const held = best.get(key);
          if (!held || held.score < hit.score) best.set(key, hit);
        }
        if (best.size >= candidates || rows.length < k) break;
      }
      return [...best.values()].sort((a, b) => b.score - a.score).slice(0, candidates);
    },
  };
}

/** The archive's vector leg for a search, or why the search is keyword-only (a notice for the reader). */
export interface ArchiveVectorChoice {
  leg?: VectorLeg;
  notice?: string;
}

/**
 * The fingerprint of the model that embedded the local index at `recallHome` (its meta), or undefined when there is
 * no index or it has no model.
 */
export function localModelFingerprint(recallHome: string): string | undefined {
  if (!existsSync(databasePath(recallHome))) return undefined;
  const db = openIndex(databasePath(recallHome), { readonly: true });
  try {
    return readMeta(db, embedFingerprintKey);
  } finally {
    db.close();
  }
}

/**
 * The archive's vector leg, when this machine's model wrote vectors the archive holds: the local index names the
 * model (`fingerprint`), the archive has it registered, and the configured model (`openEmbedder`, called only then)
 * opens with that fingerprint. Otherwise no leg, with the reason as a notice.
 * The caller owns the embedder it opened (the CLI disposes it, the MCP server keeps its shared one).
 * @throws ArchiveError from the connection
 */
export async function chooseArchiveVectorLeg(
  connection: ArchiveConnection,
  fingerprint: string | undefined,
  openEmbedder: () => Promise<Embedder>,
): Promise<ArchiveVectorChoice> {
  if (!fingerprint) return { notice: "keyword-only search: this machine's index has no embedding model" };
  const model = await archiveModel(connection, fingerprint);
  if (!model) return { notice: "keyword-only search: the archive holds no vectors of this machine's model" };
  let embedder: Embedder;
  try {
    embedder = await openEmbedder();
  } catch (error) {
    return { notice: `keyword-only search: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (embedder.fingerprintKey !== fingerprint)
    return { notice: "keyword-only search: the configured model is not the one that wrote the archive's vectors" };
  return {
    leg: createArchiveVectorLeg(connection, model, {
      name: embedder.fingerprint.name,
      embedQuery: (text) => embedder.embedQuery(text),
    }),
  };
}
