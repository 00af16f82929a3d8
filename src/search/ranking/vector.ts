/**
 * The vector leg: embed the query, scan the memory-mapped vectors of the level, and keep the chunks whose sessions pass
 * the filters. Level 1 searches both stores (session chunks and turn chunks) and keeps each session's best chunk;
 * level 2 searches turn chunks and keeps each turn's best chunk. Scores are cosine similarities (−1…1). Whether the
 * vector files can be trusted is decided before a leg is created (service/vector-leg.ts,
 * index/vectors/vector-files.ts `findVectorDamage`).
 * A store is searched whole first, and only its best chunks' owners are looked up and filtered (issue 42: listing every
 * allowed chunk cost 130–200 ms a store at 20k sessions, 170k chunks, on every search); k doubles until enough owners
 * pass. Filters that narrow the sessions (document-mask.ts) and leave that first round short (the default filters after
 * four short rounds) switch to the chunks they allow, listed once and searched with an allow-list before the top-k
 * cut, so a filtered search never comes back short.
 * Either way the owners kept are those of a prefix of the allowed chunks in score order, so both give the same best
 * owners (with exact f32 vectors; quantized ones are re-scored from a pool either way).
 */
import type { Database } from "bun:sqlite";
import type { Embedder, QueryEmbedder } from "../../embed/index.ts";
import { chunkStatus, openLevelStore, vectorLevels, type VectorLevelName } from "../../index/index.ts";
import { buildIdFilter, type VectorStore } from "../../native/index.ts";
import { redactText } from "../../redact/index.ts";
import type { VectorHit, VectorLeg } from "../api.ts";
import { filterSql, type SearchFilters } from "../listing/filters.ts";
import { filtersNarrow } from "./document-mask.ts";
import type { SearchLevel } from "./lexical.ts";

interface ChunkOwner {
  sessionRowid: number;
  documentId: number;
  turnNumber: number;
}

/** An owner row as the chunk statements read it. */
interface ChunkOwnerRow {
  id: number;
  session_rowid: number;
  document_id: number;
  turn_number: number;
}

/** Rows to owners by chunk id. */
function ownersOf(rows: readonly ChunkOwnerRow[]): Map<number, ChunkOwner> {
  return new Map(
    rows.map((row) => [
      row.id,
      { sessionRowid: row.session_rowid, documentId: row.document_id, turnNumber: row.turn_number },
    ]),
  );
}

/**
 * Every embedded chunk of `level` whose session (and, at level 2, turn) passes `filters`, with its owner: the sessions
 * that pass first (by the `sessions_filters` index), then their documents and chunks by index (CROSS JOIN fixes that
 * order: SQLite began with every embedded chunk, ~170k wide rows at 20k sessions, 300 ms for a project's 95 sessions;
 * `+c.status` keeps it off the status index, which would scan every embedded chunk for each document).
 */
function allowedChunks(
  db: Database,
  level: VectorLevelName,
  filters: SearchFilters,
  turnLevel: boolean,
): Map<number, ChunkOwner> {
  const filter = filterSql(filters, turnLevel ? "t.timestamp" : undefined);
  const join = turnLevel ? "CROSS JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number" : "";
  return ownersOf(
    db
      .query<ChunkOwnerRow, Array<string | number>>(
        `SELECT c.id, d.session_rowid, d.id AS document_id, d.turn_number
         FROM sessions s CROSS JOIN documents d ON d.session_rowid = s.id AND d.level = ?
         CROSS JOIN chunks c ON c.document_id = d.id ${join}
         WHERE +c.status = ? AND ${filter.where}`,
      )
      .all(level, chunkStatus.embedded, ...filter.params),
  );
}

/**
 * The owners of the given chunks that are embedded chunks of `level` passing `filters`, by one lookup of those ids (a
 * chunk the store still holds but the index no longer does, replaced or deleted, has none).
 */
function chunkOwners(
  db: Database,
  ids: readonly number[],
  level: VectorLevelName,
  filters: SearchFilters,
  turnLevel: boolean,
): Map<number, ChunkOwner> {
  if (ids.length === 0) return new Map();
  const filter = filterSql(filters, turnLevel ? "t.timestamp" : undefined);
  const join = turnLevel ? "CROSS JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number" : "";
  return ownersOf(
    db
      .query<ChunkOwnerRow, Array<string | number>>(
        `SELECT c.id, d.session_rowid, d.id AS document_id, d.turn_number FROM json_each(?) AS w
         CROSS JOIN chunks c ON c.id = w.value CROSS JOIN documents d ON d.id = c.document_id
         CROSS JOIN sessions s ON s.id = d.session_rowid ${join}
         WHERE c.status = ? AND d.level = ? AND ${filter.where}`,
      )
      .all(JSON.stringify(ids), chunkStatus.embedded, level, ...filter.params),
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
      const turnLevel = level === "turn";
      for (const storeLevel of levels) {
        const store = stores?.[storeLevel] ?? openLevelStore(recallHome, storeLevel, embedder);
        try {
          if (store.mismatch) continue;
          // The chunks narrowing filters allow and their allow-list, once a search of the whole store came back short.
          let allowed: Map<number, ChunkOwner> | undefined;
          let allow: Uint8Array | undefined;
          // Several chunks can belong to one session or turn: widen k until enough distinct owners are found. The
          // whole store's best chunks are looked up while that looks cheaper than listing the allowed ones: one round
          // under narrowing filters, four under the default ones (a history whose best chunks are sub-agents').
          const first = candidates * 2;
          const listAllowedAt = filtersNarrow(filters) ? first : first * 8;
          for (let k = first; ; k *= 2) {
            const hits = store.search(vector, k, allow);
            const owners =
              allowed ??
              chunkOwners(
                db,
                hits.map((hit) => hit.id),
                storeLevel,
                filters,
                turnLevel,
              );
            for (const hit of hits) {
              const owner = owners.get(hit.id);
              if (!owner) continue;
              const key = keyOf(owner);
              if ((best.get(key)?.score ?? -Infinity) < hit.score) best.set(key, { ...owner, score: hit.score });
            }
            if (best.size >= candidates || hits.length < k) break;
            if (allowed === undefined && k >= listAllowedAt) {
              allowed = allowedChunks(db, storeLevel, filters, turnLevel);
              if (allowed.size === 0) break;
              allow = buildIdFilter(allowed.keys());
              k = first / 2; // the next round searches the allowed chunks from the first round's k
            }
          }
        } finally {
          if (!stores) store.close();
        }
      }
      return [...best.values()].sort((a, b) => b.score - a.score).slice(0, candidates);
    },
  };
}
