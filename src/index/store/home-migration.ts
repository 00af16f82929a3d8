/**
 * The one-time move out of the old default place. Before issue 9 recall kept everything in
 * `$XDG_CACHE_HOME/recall` (else `~/.cache/recall`), which is now only the cache folder (models, runtime).
 * The index (index.sqlite, vectors/, examples/) moves to the data folder and `.env` to the config folder, once:
 * a rename when both are on one filesystem, else a copy into a temp name beside the target and a rename, so a
 * crash leaves either the old place or the new one complete. The database moves last, through a
 * `index.sqlite.moving` step name, so an interrupted move resumes on the next run. Two recall processes that
 * start together are serialized by the flock on the old folder's `index.lock`; the second finds nothing to do.
 * Commands call `prepareRecallPaths`, which costs a few stats when there is nothing to move.
 */
import { Database } from "bun:sqlite";
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { IndexError } from "../../errors.ts";
import type { Environment } from "../../parsers/paths.ts";
import {
  assertNotAFile,
  databasePath,
  describeExposure,
  dotEnvPath,
  ensureRecallHome,
  homeFiles,
  resolveRecallPaths,
  type RecallPaths,
} from "../../home/paths.ts";
import { tryAcquireIndexLock, type IndexLock } from "./lock.ts";

/** Messages of the folder checks and the move; commands send them to stderr. */
export interface HomeHooks {
  /** once, when something was moved */
  onNotice?(line: string): void;
  /** each run: a shared data folder, an old index or .env left beside a new one */
  onWarning?(line: string): void;
}

/** How long a process waits for another one that is moving the index, in ms (a cross-filesystem copy of a large index). */
export const migrationWaitMs = 120_000;

/** Name of the database while it is between the old and the new place. */
const movingName = `${homeFiles.database}.moving`;

/**
 * The recall folders for this run, ready to use: resolves them (RECALL_HOME or XDG), moves an index left in the
 * old cache location (once), and warns when the data folder is open to other users.
 * @returns the resolved paths (the data folder is not created here: the first index run creates it)
 * @throws IndexError INDEX_LOCKED when another process is still moving the index after `migrationWaitMs`,
 *         HOME_UNUSABLE when the data folder is a file or cannot be created for the move
 */
export function prepareRecallPaths(env: Environment = process.env, hooks: HomeHooks = {}): RecallPaths {
  const paths = resolveRecallPaths(env);
  assertNotAFile(paths.data);
  if (!paths.overridden) migrateLegacyHome(paths, hooks);
  const exposure = describeExposure(paths.data);
  if (exposure) hooks.onWarning?.(exposure);
  return paths;
}

/** Folder of the separate index of the example history (service/context.ts), inside the data folder. */
const examplesName = "examples";

/** What the old cache folder holds that belongs elsewhere now (a few stats). */
function legacyEntries(legacy: string): string[] {
  return [homeFiles.database, movingName, examplesName, homeFiles.dotenv].filter((name) =>
    existsSync(join(legacy, name)),
  );
}

/**
 * Move the index and `.env` from the old cache folder (`paths.cache`) to `paths.data` / `paths.config`, once.
 * Never overwrites: when the new place already has an index (or a .env), the old one stays and a warning says so.
 * @returns the names moved ([] when there was nothing to do)
 * @throws IndexError INDEX_LOCKED (another process is moving it, past `waitMs`), HOME_UNUSABLE
 */
export function migrateLegacyHome(paths: RecallPaths, hooks: HomeHooks = {}, waitMs = migrationWaitMs): string[] {
  const legacy = paths.cache;
  if (paths.overridden || legacy === paths.data || legacyEntries(legacy).length === 0) return [];
  const lock = waitForLock(join(legacy, homeFiles.lock), waitMs, legacy, paths.data);
  try {
    const moved = [
      ...moveIndex(legacy, paths.data, hooks),
      ...moveExamples(legacy, paths.data),
      ...moveDotEnv(legacy, paths, hooks),
    ];
    if (moved.length > 0) {
      const what = moved.includes(homeFiles.database)
        ? `moved the index from ${legacy} to ${paths.data} (it keeps sessions after the agents delete them: an archive, not a cache)`
        : `moved ${moved.join(", ")} out of ${legacy}`;
      hooks.onNotice?.(moved.includes(homeFiles.dotenv) ? `${what}; settings moved to ${dotEnvPath(paths)}` : what);
    }
    return moved;
  } finally {
    lock.release();
  }
}

function waitForLock(path: string, waitMs: number, legacy: string, data: string): IndexLock {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = tryAcquireIndexLock(path);
    if (lock) return lock;
    if (Date.now() >= deadline) {
      throw new IndexError("INDEX_LOCKED", `another recall process is moving the index from ${legacy} to ${data}`, {
        hint: "wait for it to finish, then run the command again",
      });
    }
    Bun.sleepSync(50);
  }
}

/** Moves vectors/ and then index.sqlite; returns the names moved. */
function moveIndex(legacy: string, data: string, hooks: HomeHooks): string[] {
  const legacyDb = join(legacy, homeFiles.database);
  const moving = join(legacy, movingName);
  const target = databasePath(data);
  if (!existsSync(moving) && !existsSync(legacyDb)) return [];
  if (existsSync(target)) {
    if (existsSync(moving))
      for (const suffix of ["", "-wal"]) rmSync(moving + suffix, { force: true }); // a finished copy whose source was not yet removed
    else
      hooks.onWarning?.(
        `an older index is still at ${legacyDb}; recall uses ${target}. Delete the old one when you no longer need it`,
      );
    return [];
  }
  ensureRecallHome(data);
  removeStaleTemps(data);
  if (!existsSync(moving)) {
    checkpoint(legacyDb);
    for (const suffix of ["-wal", ""])
      if (existsSync(legacyDb + suffix)) renameSync(legacyDb + suffix, moving + suffix);
    rmSync(`${legacyDb}-shm`, { force: true });
  }
  const moved: string[] = [];
  const vectors = join(legacy, homeFiles.vectors);
  if (existsSync(vectors)) {
    // Without index.sqlite, vectors at the new place were derived from a database that no longer exists.
    rmSync(join(data, homeFiles.vectors), { recursive: true, force: true });
    moveEntry(vectors, join(data, homeFiles.vectors));
    moved.push(homeFiles.vectors);
  }
  // A WAL left by a failed checkpoint moves first, so the database never appears without it.
  if (existsSync(`${moving}-wal`)) moveEntry(`${moving}-wal`, `${target}-wal`);
  moveEntry(moving, target);
  return [...moved, homeFiles.database];
}

/** Moves the example history's own index folder unless the data folder has one (it is rebuilt from shipped files anyway). */
function moveExamples(legacy: string, data: string): string[] {
  const from = join(legacy, examplesName);
  if (!existsSync(from)) return [];
  if (existsSync(join(data, examplesName))) {
    rmSync(from, { recursive: true, force: true }); // holds no user data: the new place has its own
    return [];
  }
  ensureRecallHome(data);
  moveEntry(from, join(data, examplesName));
  return [examplesName];
}

/** Folds the WAL into the database file so one file moves; a damaged database is moved as it is, WAL and all. */
function checkpoint(path: string): void {
  if (!existsSync(`${path}-wal`)) return;
  try {
    const db = new Database(path, { readwrite: true });
    try {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      db.close(); // the last connection to close removes the WAL
    }
  } catch {
    // damaged or busy: the WAL travels with it
  }
}

/** Moves `.env` to the config folder (0600) unless one is there already. */
function moveDotEnv(legacy: string, paths: RecallPaths, hooks: HomeHooks): string[] {
  const from = join(legacy, homeFiles.dotenv);
  if (!existsSync(from) || paths.config === legacy) return [];
  const to = dotEnvPath(paths);
  if (existsSync(to)) {
    hooks.onWarning?.(
      `${from} is no longer read; recall reads ${to}. Move any setting you still need there and delete the old file`,
    );
    return [];
  }
  ensureRecallHome(paths.config);
  moveEntry(from, to);
  chmodSync(to, 0o600); // it may hold EMBEDDINGS_API_KEY, and recall created it at this place
  return [homeFiles.dotenv];
}

/**
 * Moves a file or folder: rename, or (across filesystems, EXDEV) copy into a temp name beside `to`, rename that
 * into place, then delete `from`. A crash leaves `from` complete, plus at most a temp copy that the next move removes.
 * @throws Error from fs (other than EXDEV)
 */
export function moveEntry(from: string, to: string): void {
  try {
    renameSync(from, to);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
  }
  const temp = join(dirname(to), `.${basename(to)}.migrate-${process.pid}-${Date.now()}`);
  try {
    copyPrivate(from, temp);
    renameSync(temp, to);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  rmSync(from, { recursive: true, force: true });
}

/** Copies a file (0600) or a folder tree (folders 0700, files 0600) whatever the umask; symlinks are not followed. */
export function copyPrivate(from: string, to: string): void {
  const stat = lstatSync(from);
  if (stat.isDirectory()) {
    mkdirSync(to, { mode: 0o700 });
    chmodSync(to, 0o700);
    for (const name of readdirSync(from)) copyPrivate(join(from, name), join(to, name));
  } else if (stat.isFile()) {
    copyFileSync(from, to);
    chmodSync(to, 0o600);
  }
}

/** Removes temp copies of an interrupted cross-filesystem move (the caller holds the migration lock). */
function removeStaleTemps(dir: string): void {
  for (const name of readdirSync(dir))
    if (/^\..+\.migrate-\d+-\d+$/.test(name)) rmSync(join(dir, name), { recursive: true, force: true });
}
