/**
 * Merging the keyword indexes' segments. FTS5 writes each committed batch as a new b-tree segment and merges them
 * only a few at a time (automerge), so a first index of 20k sessions ends with 11 segments, and every query reads every
 * segment's part of each term. Merged into one ('optimize', sqlite.org/fts5.html §6.9), a search page at 20k sessions
 * took 5–12% less (p50 45–46 → 40–44 ms, one run each); optimizing that index took 1.9 s, 6% of its 31.6 s first run.
 */
import type { Database } from "bun:sqlite";
import { readDocumentCount } from "../store/scope-counts.ts";
import { optimizeKeywordPostings } from "../postings/keyword-postings.ts";

/**
 * Merge every segment of the keyword index, of its own posting lists and of the CJK side index into one (rewrites all
 * three: seconds at 20k sessions). Nothing of a deleted or replaced document is left in them: `forget` and the
 * redaction of stored text rely on it.
 */
export function optimizeKeywordIndexes(db: Database): void {
  db.exec("INSERT INTO documents_fts(documents_fts) VALUES ('optimize')");
  optimizeKeywordPostings(db); // issue 42: postings/keyword-postings.ts
  db.exec("INSERT INTO documents_cjk(documents_cjk) VALUES ('optimize')"); // issue 13: the CJK side index (cjk.ts)
}

/**
 * After an index run: optimize when the run wrote at least half of the documents now indexed (a first index, an
 * import of a large history, a re-parse of every session), so the cost stays a small share of that run and incremental
 * runs never pay it.
 * @param written documents the run wrote: its turns plus the sessions it added or updated (one document each)
 * @returns true when the indexes were optimized
 */
export function optimizeIfMostlyNew(db: Database, written: number): boolean {
  if (written < minimumNewDocuments) return false;
  if (2 * written < readDocumentCount(db)) return false;
  optimizeKeywordIndexes(db);
  return true;
}

/** Below this many documents written the new segments are few and small: nothing to gain. */
const minimumNewDocuments = 1000;
