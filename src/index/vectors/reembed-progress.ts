/**
 * How far a re-embed under way has come (issue 12; index/vectors/generations.ts does the re-embed): what `recall
 * sessions` and `recall status` show. Apart from generations.ts, which loads the vector store, so a search that lists
 * sessions (`findSession`, search/listing/sessions.ts) does not load the native vector code (issue 42, cold start).
 */
import type { Database } from "bun:sqlite";
import { chunkStatus, readMeta } from "../schema.ts";

/** Meta key of the fingerprint of the model being swapped in (absent when no re-embed is under way). */
export const nextFingerprintKey = "embed_fingerprint_next";

/**
 * Progress of a re-embed under way: the incoming model's fingerprint string and its chunks done (embedded, skipped or
 * rejected) of all chunked so far.
 */
export interface ReembedProgress {
  fingerprintKey: string;
  doneChunks: number;
  totalChunks: number;
  /** documents not chunked for the incoming model yet */
  unchunkedDocuments: number;
}

/** Returns the re-embed under way, or undefined. Reads only. */
export function readReembedProgress(db: Database): ReembedProgress | undefined {
  const fingerprintKey = readMeta(db, nextFingerprintKey);
  if (fingerprintKey === undefined) return undefined;
  const counts = db
    .query<{ total: number; done: number }, [number, number]>(
      "SELECT count(*) AS total, coalesce(sum(status NOT IN (?, ?)), 0) AS done FROM next_chunks",
    )
    .get(chunkStatus.pending, chunkStatus.failed)!;
  const unchunked = db
    .query<{ n: number }, []>(
      "SELECT count(*) AS n FROM documents d WHERE NOT EXISTS (SELECT 1 FROM next_chunks c WHERE c.document_id = d.id)",
    )
    .get()!.n;
  return { fingerprintKey, doneChunks: counts.done, totalChunks: counts.total, unchunkedDocuments: unchunked };
}
