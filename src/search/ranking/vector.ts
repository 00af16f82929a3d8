/**
 * The vector leg: embed the query, scan the memory-mapped vectors of the level with an allow-list
 * built from SQLite (only embedded chunks of sessions that pass the filters), so the filters apply
 * before the top-k cut and a filtered search never comes back short. Level 1 searches both stores
 * (session chunks and turn chunks) and keeps each session's best chunk; level 2 searches turn chunks
 * and keeps each turn's best chunk. Scores are cosine similarities (−1…1). Whether the vector files can be
 * trusted is decided before a leg is created (service/vector-leg.ts, index/vectors/vector-files.ts `findVectorDamage`).
 */
import type { Database } from "bun:sqlite";
import type { Embedder, QueryEmbedder } from "../../embed/index.ts";
import { chunkStatus, openLevelStore, vectorLevels, type VectorLevelName } from "../../index/index.ts";
import { buildIdFilter, type VectorStore } from "../../native/index.ts";
import { redactText } from "../../redact/index.ts";
import type { VectorHit, VectorLeg } from "../api.ts";
import { filterSql, type SearchFilters } from "../listing/filters.ts";
import type { SearchLevel } from "./lexical.ts";

interface ChunkOwner {
  sessionRowid: number;
  documentId: number;
  turnNumber: number;
}

function allowedChunks(
  db: Database,
  level: "session" | "turn",
  filters: SearchFilters,
  turnLevel: boolean,
): Map<number, ChunkOwner> {
  const filter = filterSql(filters, turnLevel ? "t.timestamp" : undefined);
  const join = turnLevel ? "JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number" : "";
  const rows = db
    .query<{ id: number; session_rowid: number; document_id: number; turn_number: number }, Array<string | number>>(
      `SELECT c.id, d.session_rowid, d.id AS document_id, d.turn_number FROM chunks c JOIN documents d ON d.id = c.document_id
       JOIN sessions s ON s.id = d.session_rowid ${join} WHERE c.status = ? AND d.level = ? AND ${filter.where}`,
    )
    .all(chunkStatus.embedded, level, ...filter.params);
  return new Map(
    rows.map((row) => [
      row.id,
      { sessionRowid: row.session_rowid, documentId: row.document_id, turnNumber: row.turn_number },
    ]),
  );
}

/** Maps both levels' vector stores of `embedder`'s model (cheap: mmap plus one pass over the stored ids). */
export function openVectorStores(
  recallHome: string,
  embedder: Pick<Embedder, "dims" | "fingerprintKey">,
): Record<VectorLevelName, VectorStore> {
  return Object.fromEntries(
    vectorLevels.map((level) => [level, openLevelStore(recallHome, level, embedder)]),
  ) as Record<VectorLevelName, VectorStore>;
}

/**
 * Create the vector leg for an index and a loaded embedder (the model that wrote the vectors).
 * @param recallHome RECALL_HOME holding `vectors/`
 * @param stores stores already opened with `openVectorStores` (kept open across searches); default: each search
 *   maps the files itself and closes them after
 */
export function createVectorLeg(
  db: Database,
  recallHome: string,
  embedder: QueryEmbedder,
  stores?: Record<VectorLevelName, VectorStore>,
): VectorLeg {
  return {
    model: embedder.fingerprint.name,
    async search(query: string, level: SearchLevel, filters: SearchFilters, candidates: number): Promise<VectorHit[]> {
      // Documents were embedded redacted; a secret typed into a query is not sent to an endpoint either.
      const vector = await embedder.embedQuery(redactText(query));
      const levels = level === "turn" ? (["turn"] as const) : vectorLevels;
      const best = new Map<number, VectorHit>();
      const keyOf = (owner: ChunkOwner) => (level === "session" ? owner.sessionRowid : owner.documentId);
      for (const storeLevel of levels) {
        const owners = allowedChunks(db, storeLevel, filters, level === "turn");
        if (owners.size === 0) continue;
        const store = stores?.[storeLevel] ?? openLevelStore(recallHome, storeLevel, embedder);
        try {
          if (store.mismatch) continue;
          const allow = buildIdFilter(owners.keys());
          // Several chunks can belong to one session or turn: widen k until enough distinct owners are found.
          for (let k = candidates * 2; ; k *= 2) {
            const hits = store.search(vector, k, allow);
            for (const hit of hits) {
              const owner = owners.get(hit.id);
              if (!owner) continue;
              const key = keyOf(owner);
              if ((best.get(key)?.score ?? -Infinity) < hit.score) best.set(key, { ...owner, score: hit.score });
            }
            if (best.size >= candidates || hits.length < k) break;
          }
        } finally {
          if (!stores) store.close();
        }
      }
      return [...best.values()].sort((a, b) => b.score - a.score).slice(0, candidates);
    },
  };
}
