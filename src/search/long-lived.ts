/**
 * What a long-lived reader (`recall ui`, `recall mcp`, `recall pick`) attaches to its index connection for the many
 * searches it answers: a worker thread that ranks what FTS5 ranks in two halves at once (ranking/match-window.ts), and
 * the keyword scorings and posting lists kept from one search to the next while the index stays as it was
 * (ranking/postings-ranking.ts `keepScorings`: a session's turns picked out of the scoring its list was ranked by, a
 * query typed on reading only its new words). One-shot commands attach neither: a worker takes longer to start than it
 * saves once, and a single search has no next one.
 */
import type { Database } from "bun:sqlite";
import { attachMatchWorkers } from "./ranking/match-window.ts";
import { keepScorings } from "./ranking/postings-ranking.ts";

/**
 * Attach both to `db` (idempotent).
 * @returns a function that detaches them: call it before closing `db`
 */
export function attachLongLivedSearch(db: Database): () => void {
  const stopMatchWorkers = attachMatchWorkers(db);
  const forgetScorings = keepScorings(db);
  return () => {
    forgetScorings();
    stopMatchWorkers();
  };
}
