/**
 * The vector leg: embed the query, scan the memory-mapped vectors of the level, and keep the chunks whose sessions pass
 * the filters. Level 1 searches both stores (session chunks and turn chunks) and keeps each session's best chunk;
 * level 2 searches turn chunks and keeps each turn's best chunk. Scores are cosine similarities (−1…1). Whether the
 * vector files can be trusted is decided before a leg is created (service/vector-leg.ts,
 * index/vectors/vector-files.ts `findVectorDamage`).
 * Each round takes a store's best k chunks that pass the filters, k doubling until enough distinct owners are found.
 * They come from the whole store's best chunks, whose owners alone are looked up and filtered (issue 42: listing
 * every allowed chunk cost 130–200 ms a store at 20k sessions, 170k chunks, on every search), read deeper while too
 * few pass; when filters that narrow the sessions (document-mask.ts) leave the first read short (the default filters
 * after reading 8k), the chunks they allow are listed once and searched with an allow-list before the top-k cut, as
 * before; filters that keep at most 2% of the sessions list them at once, without that first read. Either way a round
 * holds the same chunks (with exact f32 vectors; quantized ones are re-scored from a pool either way), so a filtered
 * search never comes back short and ranks as an allow-list search does.
 */
import type { Database } from "bun:sqlite";
import type { Embedder, QueryEmbedder } from "../../embed/index.ts";
import { chunkStatus, openLevelStore, vectorLevels, type VectorLevelName } from "../../index/index.ts";
import { buildIdFilter, type VectorHit as StoredVectorHit, type VectorStore } from "../../native/index.ts";
import { redactText } from "../../redact/index.ts";
import type { VectorHit, VectorLeg } from "../api.ts";
import { filterSql, type SearchFilters, turnTimeJoin } from "../listing/filters.ts";
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
 * that pass first (by the `sessions_filters` index, or the given `sessionIds`, which must hold every session that
 * passes), then their documents, at level 2 their turns' times (from the narrow index `turns_time`, schema v24: read
 * once per turn, not once per chunk), then their chunks, by index (CROSS JOIN fixes that order: SQLite began with
 * every embedded chunk, ~170k wide rows at 20k sessions, 300 ms for a project's 95 sessions; `+c.status` keeps it off
 * the status index, which would scan every embedded chunk for each document).
 */
function allowedChunks(
  db: Database,
  level: VectorLevelName,
  filters: SearchFilters,
  turnLevel: boolean,
  sessionIds?: readonly number[],
): Map<number, ChunkOwner> {
  const filter = filterSql(filters, turnLevel ? "t.timestamp" : undefined);
  const join = turnLevel ? turnTimeJoin : "";
  const sessions = sessionIds ? "json_each(?) AS w CROSS JOIN sessions s ON s.id = w.value" : "sessions s";
  return ownersOf(
    db
      .query<ChunkOwnerRow, Array<string | number>>(
        `SELECT c.id, d.session_rowid, d.id AS document_id, d.turn_number
         FROM ${sessions} CROSS JOIN documents d ON d.session_rowid = s.id AND d.level = ? ${join}
         CROSS JOIN chunks c ON c.document_id = d.id
         WHERE +c.status = ? AND ${filter.where}`,
      )
      .all(...(sessionIds ? [JSON.stringify(sessionIds)] : []), level, chunkStatus.embedded, ...filter.params),
  );
}

/**
 * The owners of the given chunks that are embedded chunks of `level` passing `filters`, by one lookup of those ids (a
 * chunk the store still holds but the index no longer does, replaced or deleted, has none). The chunk and its document
 * are read from narrow indexes (`chunks_owner`, schema v25; `documents_window`, v23), not from their wide rows (a
 * chunk's text, a document's hashes), which SQLite read when left to choose.
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
  const join = turnLevel ? turnTimeJoin : "";
  return ownersOf(
    db
      .query<ChunkOwnerRow, Array<string | number>>(
        `SELECT c.id, d.session_rowid, d.id AS document_id, d.turn_number FROM json_each(?) AS w
         CROSS JOIN chunks c INDEXED BY chunks_owner ON c.id = w.value
         CROSS JOIN documents d INDEXED BY documents_window ON d.id = c.document_id
         CROSS JOIN sessions s ON s.id = d.session_rowid ${join}
         WHERE c.status = ? AND d.level = ? AND ${filter.where}`,
      )
      .all(JSON.stringify(ids), chunkStatus.embedded, level, ...filter.params),
  );
}

/** What {@link bestAllowedOfWhole} searches: one store of the index, the query's vector, and the search's filters. */
interface WholeStoreSearch {
  db: Database;
  store: VectorStore;
  vector: Float32Array;
  level: VectorLevelName;
  filters: SearchFilters;
  turnLevel: boolean;
}

/**
 * The store's best `k` chunks that pass the filters, best first, with their owners (the same chunks a search with an
 * allow-list of every passing chunk returns): its best 2k chunks of all, their owners looked up, read twice as deep
 * while fewer than `k` pass and the store holds more.
 * @param widest the most chunks to read that way
 * @returns every passing chunk read when the store holds no more (fewer than `k`); undefined when `widest` chunks were
 *   read and fewer than `k` passed (the caller lists the passing chunks instead)
 */
function bestAllowedOfWhole(
  search: WholeStoreSearch,
  k: number,
  widest: number,
): { hits: StoredVectorHit[]; owners: Map<number, ChunkOwner> } | undefined {
  // twice as deep at first: the default filters leave sub-agents' chunks out (a fifth of a generated history's)
  for (let wide = Math.min(2 * k, widest); ; wide *= 2) {
    const all = search.store.search(search.vector, wide);
    const ids = all.map((hit) => hit.id);
    const owners = chunkOwners(search.db, ids, search.level, search.filters, search.turnLevel);
    const hits = all.filter((hit) => owners.has(hit.id));
    if (hits.length >= k || all.length < wide) return { hits: hits.slice(0, k), owners };
    if (wide >= widest) return undefined;
  }
}

/**
 * Share of the sessions at or below which narrowing filters list their chunks at once, without reading a store's best
 * chunks of all first: that read scans every vector (15–18 ms for a store of 206k chunks of 384 dims at 20k sessions,
 * int8, this 2-core machine) and finds too few passing chunks when the filters keep few sessions. Listing costs ~1 µs a
 * chunk (a listing of ~170k took 130–200 ms), and searching them with an allow-list ~0.4 µs a chunk at 384 dims, so a
 * filter that keeps 2% of the sessions (~4k of 206k chunks) lists and searches them in a few ms.
 */
const fewSessionsShare = 0.02;

/**
 * The rowids of the sessions that pass `filters` (level-1 conditions: at level 2 they hold every session with a
 * passing turn) when at most `share` of the sessions do (estimated by the largest session rowid); undefined when more
 * do: read with a LIMIT, so a filter that keeps many stops at the first rows past the share. One read serves both
 * stores.
 */
function fewPassingSessions(db: Database, filters: SearchFilters, share: number): number[] | undefined {
  const sessions = db.query<{ last: number | null }, []>("SELECT max(id) AS last FROM sessions").get()?.last ?? 0;
  const limit = Math.floor(sessions * share);
  const filter = filterSql(filters);
  const rows = db
    .query<{ id: number }, Array<string | number>>(`SELECT s.id FROM sessions s WHERE ${filter.where} LIMIT ?`)
    .values(...filter.params, limit + 1) as Array<[number]>;
  return rows.length <= limit ? rows.map(([id]) => id) : undefined;
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
 * @param listShare share of the sessions at or below which narrowing filters list their chunks at once (default
 *   {@link fewSessionsShare}; tests pass 0 and 1 to take either way, which must answer alike)
 */
export function createVectorLeg(
  db: Database,
  recallHome: string,
  embedder: QueryEmbedder,
  stores?: Record<VectorLevelName, VectorStore>,
  listShare = fewSessionsShare,
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
      const narrow = filtersNarrow(filters);
      // filters that keep few sessions: their chunks are listed at once in every store (see fewSessionsShare)
      const few = narrow ? fewPassingSessions(db, filters, listShare) : undefined;
      for (const storeLevel of levels) {
        const store = stores?.[storeLevel] ?? openLevelStore(recallHome, storeLevel, embedder);
        try {
          if (store.mismatch) continue;
          // The chunks the filters allow and their allow-list, once reading the whole store's best ones did not pay.
          let allowed: { owners: Map<number, ChunkOwner>; allow: Uint8Array } | undefined;
          const whole = { db, store, vector, level: storeLevel, filters, turnLevel };
          // Several chunks can belong to one session or turn: widen k until enough distinct owners are found. Each
          // round takes this store's best k allowed chunks, as a search with an allow-list of them would.
          for (let k = candidates * 2; ; k *= 2) {
            let round = allowed
              ? { hits: store.search(vector, k, allowed.allow), owners: allowed.owners }
              : few
                ? undefined
                : bestAllowedOfWhole(whole, k, narrow ? k : k * 8);
            if (!round) {
              const owners = allowedChunks(db, storeLevel, filters, turnLevel, few);
              if (owners.size === 0) break;
              allowed = { owners, allow: buildIdFilter(owners.keys()) };
              round = { hits: store.search(vector, k, allowed.allow), owners };
            }
            for (const hit of round.hits) {
              const owner = round.owners.get(hit.id);
              if (!owner) continue;
              const key = keyOf(owner);
              if ((best.get(key)?.score ?? -Infinity) < hit.score) best.set(key, { ...owner, score: hit.score });
            }
            if (best.size >= candidates || round.hits.length < k) break;
          }
        } finally {
          if (!stores) store.close();
        }
      }
      return [...best.values()].sort((a, b) => b.score - a.score).slice(0, candidates);
    },
  };
}
