/**
 * RECALL_HOME: where the index lives (database, vector files, models, runtime extractions).
 * Default `$XDG_CACHE_HOME/recall`, else `~/.cache/recall` (DESIGN.md "Store"). The index holds
 * private data, so the folder is created 0700 and files 0600; existing folders are tightened.
 */
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { expandPath, type Environment } from "../parsers/paths.ts";

/** File names inside RECALL_HOME. */
export const homeFiles = {
  database: "index.sqlite",
  lock: "index.lock",
  vectors: "vectors",
  models: "models",
  dotenv: ".env",
} as const;

/**
 * Resolve RECALL_HOME without touching the disk.
 * @returns absolute path; `RECALL_HOME` wins, then `$XDG_CACHE_HOME/recall`, then `~/.cache/recall`
 */
export function resolveRecallHome(env: Environment = process.env): string {
  const home = env.HOME || homedir();
  if (env.RECALL_HOME) return expandPath(env.RECALL_HOME, home);
  if (env.XDG_CACHE_HOME) return join(expandPath(env.XDG_CACHE_HOME, home), "recall");
  return join(home, ".cache", "recall");
}

/**
 * Create RECALL_HOME (and parents) with mode 0700, or tighten an existing one to 0700.
 * @throws Error from fs when the folder cannot be created (caller turns it into an IndexError)
 */
export function ensureRecallHome(path: string): string {
  if (!existsSync(path)) mkdirSync(path, { recursive: true, mode: 0o700 });
  if ((statSync(path).mode & 0o777) !== 0o700) chmodSync(path, 0o700);
  return path;
}

/** Path of the SQLite index inside a RECALL_HOME. */
export function databasePath(recallHome: string): string {
  return join(recallHome, homeFiles.database);
}
