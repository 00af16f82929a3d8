/**
 * Where recall keeps things (issue 9: the index holds the only copy of sessions whose source is gone, so it is
 * an archive, not a cache). One resolver, three folders (XDG base directories):
 *   data   `$XDG_DATA_HOME/recall`, else `~/.local/share/recall`: index.sqlite, index.lock, vectors/, snapshots/
 *   config `$XDG_CONFIG_HOME/recall`, else `~/.config/recall`: .env (may hold EMBEDDINGS_API_KEY)
 *   cache  `$XDG_CACHE_HOME/recall`, else `~/.cache/recall`: models/, runtime/ (re-downloadable)
 * `RECALL_HOME` overrides all three (everything under it). Folders recall creates are 0700 and files 0600
 * whatever the umask; a folder or file recall did not create never has its mode changed. The one-time move
 * out of the old cache location is in index/store/home-migration.ts.
 */
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  mkdirSync,
  openSync,
  statSync,
  type Stats,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { IndexError } from "../errors.ts";
import { expandPath, type Environment } from "../parsers/paths.ts";

/** File and folder names inside the recall folders (data unless noted). */
export const homeFiles = {
  database: "index.sqlite",
  lock: "index.lock",
  vectors: "vectors",
  /** the vectors of a model being swapped in (index/vectors/generations.ts) */
  nextVectors: "vectors-next",
  /** the old vectors during the two renames of a swap */
  oldVectors: "vectors-old",
  snapshots: "snapshots",
  /** in the cache folder */
  models: "models",
  /** in the cache folder */
  runtime: "runtime",
  /** in the config folder */
  dotenv: ".env",
} as const;

/** The three folders of one recall installation, absolute. */
export interface RecallPaths {
  /** the archive: index.sqlite, index.lock, vectors/, snapshots/ (and examples/ for the shipped example history) */
  data: string;
  /** settings: .env */
  config: string;
  /** re-downloadable: models/, runtime/ */
  cache: string;
  /** true when RECALL_HOME put all three in one folder (no migration, no XDG folders) */
  overridden: boolean;
}

/** An XDG base directory variable, ignored when unset, empty or relative (as the XDG spec says), with `~` expanded. */
function xdgBase(value: string | undefined, home: string, fallback: string[]): string {
  if (value === "~" || value?.startsWith("~/")) return expandPath(value, home);
  return value && isAbsolute(value) ? value : join(home, ...fallback);
}

/**
 * Resolve the data, config and cache folders without touching the disk.
 * @returns `RECALL_HOME` (expanded) for all three when set; else the XDG folders (`HOME` wins over os.homedir())
 */
export function resolveRecallPaths(env: Environment = process.env): RecallPaths {
  const home = env.HOME || homedir();
  if (env.RECALL_HOME) return pathsUnder(expandPath(env.RECALL_HOME, home));
  return {
    data: join(xdgBase(env.XDG_DATA_HOME, home, [".local", "share"]), "recall"),
    config: join(xdgBase(env.XDG_CONFIG_HOME, home, [".config"]), "recall"),
    cache: join(xdgBase(env.XDG_CACHE_HOME, home, [".cache"]), "recall"),
    overridden: false,
  };
}

/** All three folders in one (what `RECALL_HOME=folder` means; tests pass a temp folder). */
export function pathsUnder(folder: string): RecallPaths {
  return { data: folder, config: folder, cache: folder, overridden: true };
}

/** A folder string means "everything under it" (as RECALL_HOME); RecallPaths pass through. */
export function asRecallPaths(home: string | RecallPaths): RecallPaths {
  return typeof home === "string" ? pathsUnder(home) : home;
}

/**
 * The data folder (where the index lives), without touching the disk: RECALL_HOME, else
 * `$XDG_DATA_HOME/recall`, else `~/.local/share/recall`. Commands use `prepareRecallPaths` (home-migration.ts),
 * which also moves an index left in the old cache location.
 */
export function resolveRecallHome(env: Environment = process.env): string {
  return resolveRecallPaths(env).data;
}

/** Path of the `.env` settings file: `<config>/.env`. */
export function dotEnvPath(paths: RecallPaths): string {
  return join(paths.config, homeFiles.dotenv);
}

/** Folder of downloaded embedding models: `<cache>/models`. */
export function modelsDir(paths: RecallPaths): string {
  return join(paths.cache, homeFiles.models);
}

/** Folder of the compiled binary's runtime extractions: `<cache>/runtime`. */
export function runtimeDir(paths: RecallPaths): string {
  return join(paths.cache, homeFiles.runtime);
}

/** Path of the SQLite index inside a data folder. */
export function databasePath(recallHome: string): string {
  return join(recallHome, homeFiles.database);
}

/**
 * Create `path` and any missing parents, each 0700 whatever the umask (chmod after mkdir, only on the folders
 * created here). An existing folder is left as it is.
 * @returns the folders created, outermost first ([] when `path` existed)
 * @throws Error from fs (ENOTDIR, EACCES, ...) — callers word it
 */
export function makePrivateDirs(path: string): string[] {
  const missing: string[] = [];
  for (let dir = path; !statSync(dir, { throwIfNoEntry: false }); dir = dirname(dir)) {
    missing.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error; // another process made it first: not ours
      continue;
    }
    chmodSync(dir, 0o700);
  }
  return missing;
}

/**
 * Create an empty file 0600 whatever the umask (O_EXCL, then fchmod).
 * @throws Error EEXIST when it exists; other fs errors as they come
 */
export function createPrivateFile(path: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/** The error for a recall folder that cannot be used, worded for people (never a bare ENOTDIR). */
function homeError(path: string, why: string, cause?: unknown): IndexError {
  return new IndexError("HOME_UNUSABLE", `cannot use ${path} as recall's folder: ${why}`, {
    hint: "point RECALL_HOME at a folder you own (or unset it to use ~/.local/share/recall)",
    cause,
  });
}

const fsReasons: Record<string, string> = {
  ENOTDIR: "a file is in the way on its path",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the filesystem is read-only",
  ENOSPC: "the disk is full",
};

/** `statSync` that also answers undefined below a file (ENOTDIR) instead of throwing. */
export function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * Fails early when a recall folder's path is taken by a file (e.g. RECALL_HOME pointed at a regular file), so
 * commands that only read say so in words too. A missing folder is fine (the first index run creates it).
 * @throws IndexError HOME_UNUSABLE
 */
export function assertNotAFile(path: string): void {
  const blocked = describeBlockedFolder(path);
  if (blocked) throw homeError(path, blocked);
}

/**
 * Why a recall folder cannot be used because of a file, in words, or undefined when it can (a missing folder can:
 * the first index run creates it). For `recall doctor`, which reports instead of throwing.
 *   `/tmp/file` (a regular file) → "it is a file, not a folder";  `/tmp/file/sub` → "a file is in the way on its path (/tmp/file)"
 */
export function describeBlockedFolder(path: string): string | undefined {
  const stat = statOrUndefined(path);
  if (stat) return stat.isDirectory() ? undefined : "it is a file, not a folder";
  for (let parent = dirname(path); parent !== dirname(parent); parent = dirname(parent)) {
    const parentStat = statOrUndefined(parent);
    if (parentStat) return parentStat.isDirectory() ? undefined : `a file is in the way on its path (${parent})`;
  }
  return undefined;
}

/**
 * Make sure a recall folder exists and is usable: create it (and parents) 0700 when missing; an existing folder
 * keeps its mode (see `describeExposure` for the warning).
 * @returns `path`
 * @throws IndexError HOME_UNUSABLE when `path` is a file, cannot be created or cannot be written
 */
export function ensureRecallHome(path: string): string {
  const stat = statOrUndefined(path);
  if (stat && !stat.isDirectory()) throw homeError(path, "it is a file, not a folder");
  try {
    if (!stat) makePrivateDirs(path);
    accessSync(path, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    throw homeError(path, fsReasons[code] ?? (error as Error).message, error);
  }
  return path;
}

/**
 * A warning when an existing recall folder is open to other users (any group/other permission bit), e.g.
 * `RECALL_HOME` pointed at a shared folder. recall never chmods a folder it did not create, so it says so instead.
 * @returns one line, or undefined when the folder is private or absent
 */
export function describeExposure(path: string): string | undefined {
  const stat = statOrUndefined(path);
  if (!stat?.isDirectory() || (stat.mode & 0o077) === 0) return undefined;
  const mode = (stat.mode & 0o7777).toString(8).padStart(4, "0");
  return `${path} is open to other users (mode ${mode}); recall's files in it are private (0600), but others can list them: run \`chmod 700 ${path}\` or use a private folder`;
}
