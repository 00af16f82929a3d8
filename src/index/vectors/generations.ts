/**
 * Vector generations (issue 12): the chunks and vectors of the model in use (`chunks`, `vectors/`, meta
 * `embed_fingerprint`) and, while the embedding model changes, those of the model being swapped in (`next_chunks`,
 * `vectors-next/`, meta `embed_fingerprint_next`). A re-embed writes only the next generation, so the vectors in use
 * stay whole until the new ones are complete; then `swapInNextGeneration` makes them current with two folder renames
 * and one transaction. A crash between the renames and the commit is undone by `recoverInterruptedSwap`, which every
 * index run calls before it trusts the vector files. The caller holds the index lock for every write here.
 */
import type { Database } from "bun:sqlite";
import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { homeFiles } from "../../home/paths.ts";
import { chunkStatus, readMeta, writeMeta } from "../schema.ts";
import { nextFingerprintKey } from "./reembed-progress.ts";
import { embedFingerprintKey, recordVectorFiles } from "./vector-files.ts";

/** Meta key of the embedding configuration (embed/config.ts identity, no model loaded) the current vectors were checked against. */
export const embedConfigMetaKey = "embed_config";

/** Where one generation lives: its chunk table, its vector folder and the meta key of its model's fingerprint. */
export interface VectorGeneration {
  readonly name: "current" | "next";
  readonly table: "chunks" | "next_chunks";
  /** absolute folder of its vector segment files */
  readonly dir: string;
  readonly fingerprintMetaKey: string;
}

/** The generation searches use. */
export function currentGeneration(recallHome: string): VectorGeneration {
  return {
    name: "current",
    table: "chunks",
    dir: join(recallHome, homeFiles.vectors),
    fingerprintMetaKey: embedFingerprintKey,
  };
}

/** The generation a model change builds. */
export function nextGeneration(recallHome: string): VectorGeneration {
  return {
    name: "next",
    table: "next_chunks",
    dir: join(recallHome, homeFiles.nextVectors),
    fingerprintMetaKey: nextFingerprintKey,
  };
}

/** Drops the next generation (its chunks, vector files and fingerprint): the model change was undone, or `forget` ran. */
export function dropNextGeneration(db: Database, recallHome: string): void {
  db.transaction(() => {
    db.exec("DELETE FROM next_chunks");
    db.query("DELETE FROM meta WHERE key = ?").run(nextFingerprintKey);
  }).immediate();
  rmSync(nextGeneration(recallHome).dir, { recursive: true, force: true });
}

/**
 * Starts (or restarts) a next generation for `fingerprintKey`: any other next generation is dropped first.
 * Returns true when one was already under way for this model (a resumed re-embed).
 */
export function beginNextGeneration(db: Database, recallHome: string, fingerprintKey: string): boolean {
  if (readMeta(db, nextFingerprintKey) === fingerprintKey) return true;
  dropNextGeneration(db, recallHome);
  db.transaction(() => writeMeta(db, nextFingerprintKey, fingerprintKey)).immediate();
  return false;
}

/** True when every document has chunks in `generation` and none of them is pending or failed. */
export function isGenerationComplete(db: Database, generation: VectorGeneration): boolean {
  const unchunked = db
    .query(
      `SELECT 1 FROM documents d WHERE NOT EXISTS (SELECT 1 FROM ${generation.table} c WHERE c.document_id = d.id) LIMIT 1`,
    )
    .get();
  const open = db
    .query(`SELECT 1 FROM ${generation.table} WHERE status IN (?, ?) LIMIT 1`)
    .get(chunkStatus.pending, chunkStatus.failed);
  return unchunked === null && open === null;
}

/**
 * Makes the complete next generation current: `vectors/` → `vectors-old/`, `vectors-next/` → `vectors/`, then one
 * transaction moves `next_chunks` into `chunks` (ids kept: they are the vector row ids) and the fingerprint into
 * `embed_fingerprint`, then `vectors-old/` is deleted. The caller has closed every store of both generations.
 * Throws node:fs errors when a rename fails (nothing is committed then; `recoverInterruptedSwap` undoes a half swap).
 */
export function swapInNextGeneration(db: Database, recallHome: string): void {
  const current = currentGeneration(recallHome).dir;
  const next = nextGeneration(recallHome).dir;
  const old = join(recallHome, homeFiles.oldVectors);
  rmSync(old, { recursive: true, force: true });
  if (existsSync(current)) renameSync(current, old);
  if (existsSync(next)) renameSync(next, current);
  db.transaction(() => {
    db.exec("DELETE FROM chunks");
    db.exec(
      "INSERT INTO chunks(id, document_id, chunk_index, text, status, parts) SELECT id, document_id, chunk_index, text, status, parts FROM next_chunks",
    );
    db.exec("DELETE FROM next_chunks");
    writeMeta(db, embedFingerprintKey, readMeta(db, nextFingerprintKey)!);
    db.query("DELETE FROM meta WHERE key = ?").run(nextFingerprintKey);
    recordVectorFiles(db, recallHome);
  }).immediate();
  rmSync(old, { recursive: true, force: true });
}

/**
 * Undoes or finishes a swap a crash interrupted: with `vectors-old/` present and the next fingerprint still in
 * `meta` (not committed), the folders are renamed back; when the commit happened, `vectors-old/` is deleted.
 * Returns true when it changed something. Call under the index lock, before anything reads `vectors/`.
 */
export function recoverInterruptedSwap(db: Database, recallHome: string): boolean {
  const old = join(recallHome, homeFiles.oldVectors);
  if (!existsSync(old)) return false;
  if (readMeta(db, nextFingerprintKey) !== undefined) {
    const current = currentGeneration(recallHome).dir;
    const next = nextGeneration(recallHome).dir;
    if (existsSync(current) && !existsSync(next)) renameSync(current, next);
    rmSync(current, { recursive: true, force: true });
    renameSync(old, current);
  } else {
    rmSync(old, { recursive: true, force: true });
  }
  return true;
}
