/**
 * Aider keeps its history in the repository it ran in (`.aider.chat.history.md` in the repository root, formats.md
 * §6) and has no home folder, so recall also reads that file in every project folder the other agents' sessions name
 * (issue 11), besides the folders given with `--aider-dir` / `RECALL_AIDER_DIRS`. Only the root of each known project
 * is looked at (one stat per project, never a walk of the repository: this runs before every search). Used by the
 * indexer, the staleness check and the watcher, so all three read the same files.
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import { aiderHistoryFileName, type SourceRootMap } from "../../parsers/index.ts";

/**
 * The Aider history files that exist now at the root of the project folders of indexed sessions of other sources.
 * @returns sorted absolute file paths
 */
export function knownProjectAiderHistories(db: Database): string[] {
  const rows = db
    .query<{ path: string }, []>(
      "SELECT DISTINCT project_path AS path FROM sessions WHERE project_path != '' AND source != 'aider'",
    )
    .all();
  return rows
    .filter((row) => row.path.startsWith("/"))
    .map((row) => join(row.path, aiderHistoryFileName))
    .filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true)
    .sort();
}

/**
 * `roots` with the known projects' Aider history files added to Aider's roots (after the given ones, duplicates
 * dropped; a root that is a file is read as that one file).
 * @returns `roots` itself when nothing is added, else a new map whose other sources' roots are the same arrays
 */
export function withKnownProjectFolders(db: Database, roots: SourceRootMap): SourceRootMap {
  const given = roots.aider ?? [];
  const known = knownProjectAiderHistories(db).filter((file) => !given.includes(file));
  return known.length === 0 ? roots : { ...roots, aider: [...given, ...known] };
}
