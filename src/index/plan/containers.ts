/**
 * The stored scan state of a source: its container rows (path, stats fingerprint, size, mtime), the digest the
 * whole-scan staleness check compares, the folders its last whole scan read (`watched_paths`) and when that scan was
 * (freshness.ts). An index run writes only what moved: a run that found nothing writes nothing here, an append
 * rewrites one row, and only a whole scan rewrites the watched folders.
 */
import type { Database } from "bun:sqlite";
import type { SourceContainer, SourceId, WatchedPath } from "../../parsers/index.ts";
import { readMeta, writeMeta } from "../schema.ts";

/** Meta key holding the container digest of a source after its last complete run. */
export const digestMetaKey = (source: SourceId): string => `containers_digest:${source}`;

/**
 * Meta key of the parser version (Parser.version) a source's sessions were last parsed with whole: when the code's
 * version differs, the next run re-parses every session of the source (indexer.ts) and the staleness check says the
 * source changed (staleness.ts).
 */
export const parserVersionMetaKey = (source: SourceId): string => `parser_version:${source}`;

/** True when the sessions of `parser`'s source were parsed by another version of it (or never). */
export function hasParserVersionChanged(db: Database, parser: { id: SourceId; version: number }): boolean {
  return readMeta(db, parserVersionMetaKey(parser.id)) !== String(parser.version);
}

/** Meta key of a source's last whole scan: JSON {@link WholeScanState}. */
export const wholeScanMetaKey = (source: SourceId): string => `whole_scan:${source}`;

/** What the last whole scan of a source was: its roots (as scanned) and when, epoch ms. */
export interface WholeScanState {
  roots: string[];
  at: number;
}

/** The stored {@link WholeScanState} of a source, or undefined (never scanned whole since schema 5, or unreadable). */
export function readWholeScanState(db: Database, source: SourceId): WholeScanState | undefined {
  const value = readMeta(db, wholeScanMetaKey(source));
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as WholeScanState;
    return Array.isArray(parsed.roots) && typeof parsed.at === "number" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Prefix of a digest stored when something must be retried: no scan produces it, so the next check is stale. */
const retryPrefix = "retry:";

/** The 64-bit hash of one container row (Bun.hash, wyhash). */
function rowHash(path: string, fingerprint: string): bigint {
  return BigInt(Bun.hash(`${path}\t${fingerprint}`));
}

/**
 * Digest of a container list: the sum modulo 2^64 of the wyhash (Bun.hash) of each `path\tfingerprint` line, in hex.
 * Order-independent without sorting, and updatable row by row ({@link adjustDigest}). Equal digests mean no
 * container changed, appeared or vanished.
 */
export function digestContainers(containers: readonly Pick<SourceContainer, "path" | "fingerprint">[]): string {
  let sum = 0n;
  for (const container of containers) sum += rowHash(container.path, container.fingerprint);
  return BigInt.asUintN(64, sum).toString(16);
}

/** A digest of {@link digestContainers} with rows taken out and put in, without the other rows. */
export function adjustDigest(
  digest: string,
  removed: readonly Pick<SourceContainer, "path" | "fingerprint">[],
  added: readonly Pick<SourceContainer, "path" | "fingerprint">[],
): string {
  let sum = BigInt(`0x${digest}`);
  for (const row of removed) sum -= rowHash(row.path, row.fingerprint);
  for (const row of added) sum += rowHash(row.path, row.fingerprint);
  return BigInt.asUintN(64, sum).toString(16);
}

/** The stored digest of a source without its retry mark, and whether it had one; undefined when none is stored. */
export function splitDigest(stored: string | undefined): { digest: string; retry: boolean } | undefined {
  if (stored === undefined) return undefined;
  return stored.startsWith(retryPrefix)
    ? { digest: stored.slice(retryPrefix.length), retry: true }
    : { digest: stored, retry: false };
}

/** True when `path` is one of `paths` or lies below one of them. */
export function isAtOrBelow(path: string, paths: readonly { path: string }[]): boolean {
  return paths.some(
    (entry) => path === entry.path || path.startsWith(entry.path.endsWith("/") ? entry.path : `${entry.path}/`),
  );
}

/** A `containers` row as stored. */
interface ContainerRow {
  path: string;
  fingerprint: string;
  size_bytes: number;
  mtime_ms: number | null;
}

const containerColumns = "path, fingerprint, size_bytes, mtime_ms";

function toContainer(source: SourceId, row: ContainerRow): SourceContainer {
  return {
    source,
    path: row.path,
    fingerprint: row.fingerprint,
    sizeBytes: row.size_bytes,
    mtimeMs: row.mtime_ms ?? undefined,
  };
}

/** Every stored container row of a source, by path. */
export function loadStoredContainers(db: Database, source: SourceId): Map<string, SourceContainer> {
  const rows = db
    .query<ContainerRow, [string]>(`SELECT ${containerColumns} FROM containers WHERE source = ?`)
    .all(source);
  return new Map(rows.map((row) => [row.path, toContainer(source, row)]));
}

/**
 * Stored container rows of a source whose path starts with `prefix` (a folder path ending in `/`), by the path key
 * (`+source` keeps SQLite off the source indexes, which read every row of the source: ~55 ms at 20,000 sessions).
 */
export function loadStoredContainersBelow(db: Database, source: SourceId, prefix: string): SourceContainer[] {
  return db
    .query<ContainerRow, [string, string, string]>(
      `SELECT ${containerColumns} FROM containers WHERE +source = ? AND path >= ? AND path < ?`,
    )
    .all(source, prefix, `${prefix}\uffff`)
    .map((row) => toContainer(source, row));
}

/** What an index run stores for one source at its end (see {@link storeScanState}). */
export interface ScanStateUpdate {
  /** Rows to write (new or moved containers, each with the stats to keep). */
  upserts: SourceContainer[];
  /** Paths whose rows go. */
  deletes: string[];
  /** The source's digest after the update, and whether it must be marked for retry. */
  digest: string;
  retry: boolean;
  /** A whole scan's watched paths and roots (replacing the stored ones), or undefined when it was not a whole scan. */
  wholeScan?: { watched: WatchedPath[] | undefined; roots: string[] };
  /** Folders walked again by the quick check: their watched paths replace the stored ones at or below them. */
  rescan?: FolderRescanState;
}

/** Folders walked again (freshness.ts `FolderRescan`) and the watched paths that walk gave. */
export interface FolderRescanState {
  folders: string[];
  watched: WatchedPath[];
}

/**
 * Write one source's scan state in one transaction: container rows, digest, when the source was last seen
 * (`seenAtMetaKey`), and after a whole scan its watched folders and {@link WholeScanState}.
 * @param seenAt epoch ms of this run
 */
export function storeScanState(
  db: Database,
  source: SourceId,
  update: ScanStateUpdate,
  seenAt: number,
  seenAtKey: string,
): void {
  db.transaction(() => {
    const remove = db.query("DELETE FROM containers WHERE path = ?");
    for (const path of update.deletes) remove.run(path);
    const upsert = db.query(
      "INSERT OR REPLACE INTO containers(path, source, fingerprint, size_bytes, mtime_ms) VALUES (?, ?, ?, ?, ?)",
    );
    for (const container of update.upserts)
      upsert.run(container.path, source, container.fingerprint, container.sizeBytes, container.mtimeMs ?? null);
    writeMeta(db, digestMetaKey(source), update.retry ? `${retryPrefix}${update.digest}` : update.digest);
    writeMeta(db, seenAtKey, String(seenAt));
    if (update.rescan) {
      // by the path key (`+source`: by the source index, SQLite read every watched row of the source)
      const below = db.query(
        "DELETE FROM watched_paths WHERE +source = ?1 AND (path = ?2 OR (path >= ?2 || '/' AND path < ?2 || '/' || char(65535)))",
      );
      for (const folder of update.rescan.folders) below.run(source, folder);
      insertWatched(db, source, update.rescan.watched);
    }
    if (update.wholeScan) {
      replaceWatched(db, source, update.wholeScan.watched ?? []);
      const state: WholeScanState = { roots: update.wholeScan.roots, at: seenAt };
      writeMeta(db, wholeScanMetaKey(source), JSON.stringify(state));
    }
  }).immediate();
}

/**
 * Make a source's stored watched paths exactly `watched`, writing only the rows that differ: a whole walk finds most
 * folders as they were, and rewriting every row (~3,500 at 20,000 sessions) took ~25 ms of each walk's storing.
 */
function replaceWatched(db: Database, source: SourceId, watched: readonly WatchedPath[]): void {
  const stored = new Map(
    db
      .query<{ path: string; fingerprint: string; owner: string | null }, [string]>(
        "SELECT path, fingerprint, owner FROM watched_paths WHERE source = ?",
      )
      .all(source)
      .map((row) => [row.path, row]),
  );
  const kept = new Set<string>();
  const differing: WatchedPath[] = [];
  for (const path of watched) {
    kept.add(path.path);
    const row = stored.get(path.path);
    if (row?.fingerprint !== path.fingerprint || row.owner !== (path.owner ?? null)) differing.push(path);
  }
  const remove = db.query("DELETE FROM watched_paths WHERE path = ?");
  for (const path of stored.keys()) if (!kept.has(path)) remove.run(path);
  insertWatched(db, source, differing);
}

/** Store watched paths of a source (a path stored already is replaced). */
function insertWatched(db: Database, source: SourceId, watched: readonly WatchedPath[]): void {
  const watch = db.query("INSERT OR REPLACE INTO watched_paths(path, source, fingerprint, owner) VALUES (?, ?, ?, ?)");
  for (const path of watched) watch.run(path.path, source, path.fingerprint, path.owner ?? null);
}
