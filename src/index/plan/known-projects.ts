/**
 * An agent without a home folder keeps its history in the repository it ran in (Aider: `.aider.chat.history.md` in
 * the repository root, formats.md §6; the parser's `projectHistoryFile`), so recall also reads that file in every
 * project folder the other agents' sessions name (issue 11), besides the folders given with its option or list. Only
 * the root of each known project is looked at (one stat per project, never a walk of the repository: this runs before
 * every search). Used by the indexer, the staleness check and the watcher, so all three read the same files.
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import { parsers, type SourceId, type SourceRootMap } from "../../parsers/index.ts";

/**
 * The history files named `fileName` that exist now at the root of the project folders of indexed sessions of sources
 * other than `source`.
 * @returns sorted absolute file paths
 */
export function knownProjectHistories(db: Database, source: SourceId, fileName: string): string[] {
  // From the per-project session counts (store/scope-counts.ts, kept by triggers: a few hundred rows), whose key is the
  // project path itself for every path that starts with "/". A skip scan of the sessions' project index read ~200 of its
  // pages: 2.9 ms of every search's freshness check at 20k sessions.
  const rows = db
    .query<{ path: string }, [string]>(
      `SELECT DISTINCT project_key AS path FROM session_counts WHERE sessions > 0 AND source != ? AND project_key > ''`,
    )
    .all(source);
  return rows
    .filter((row) => row.path.startsWith("/"))
    .map((row) => join(row.path, fileName))
    .filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true)
    .sort();
}

/**
 * `roots` with the known projects' history files added to the roots of each source that keeps one there (after the
 * given ones, duplicates dropped; a root that is a file is read as that one file).
 * @returns `roots` itself when nothing is added, else a new map whose other sources' roots are the same arrays
 */
export function withKnownProjectFolders(db: Database, roots: SourceRootMap): SourceRootMap {
  let result = roots;
  for (const parser of parsers) {
    if (!parser.projectHistoryFile) continue;
    const given = roots[parser.id] ?? [];
    const known = knownProjectHistories(db, parser.id, parser.projectHistoryFile).filter(
      (file) => !given.includes(file),
    );
    if (known.length > 0) result = { ...result, [parser.id]: [...given, ...known] };
  }
  return result;
}
