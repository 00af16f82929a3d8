/**
 * Snapshots protect the archive against damage to its own file (issue 9). After an index run that changed
 * something, when the last snapshot is older than `snapshotIntervalMs` (or there is none), `VACUUM INTO` writes a
 * compact copy of index.sqlite into `<data>/snapshots/.tmp-…/` (the first snapshot is a plain copy of the
 * checkpointed file: see copyCheckpointed), the vector segment files (immutable once written,
 * src/native/vector-store.ts) are hard-linked beside it, and the folder is renamed to `snapshot-<epoch ms>`;
 * older snapshots are then deleted (the last one is kept). `restoreSnapshot` puts one back under the index lock,
 * keeping the damaged file aside as `index.sqlite.damaged-<time>` (and its vectors as `vectors.damaged-<time>`).
 * Measured (2-vCPU EPYC, 2026-11-23): the real corpus (163 sessions, 4.6 MB index) 25–61 ms per snapshot, p50
 * ~40 ms; `VACUUM INTO` of a generated 25,292-session index (676 MB) 1.36 s. Files 0600, folders 0700.
 */
import { Database } from "bun:sqlite";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { IndexError, isRecallError } from "../../errors.ts";
import { createPrivateFile, databasePath, homeFiles, makePrivateDirs } from "../../home/paths.ts";
import { acquireIndexLock } from "./lock.ts";

/** A new snapshot is written when the last one is older than this (24 h, in ms) and the run changed something. */
export const snapshotIntervalMs = 24 * 60 * 60 * 1000;

/** One snapshot on disk. */
export interface SnapshotInfo {
  /** `<data>/snapshots/snapshot-<takenAtMs>` */
  dir: string;
  /** the snapshot's index.sqlite */
  databasePath: string;
  /** when it was written, epoch ms */
  takenAtMs: number;
  /** size of its index.sqlite, bytes */
  databaseBytes: number;
  /** size of its vector files, bytes (hard links: shared with the live vectors until they are compacted) */
  vectorBytes: number;
  /** sessions in it (from snapshot.json; undefined when unknown) */
  sessions: number | undefined;
}

/** Folder of the snapshots of a data folder. */
export function snapshotsDir(dataDir: string): string {
  return join(dataDir, homeFiles.snapshots);
}

const sizeOf = (path: string): number => statSync(path, { throwIfNoEntry: false })?.size ?? 0;
const folderBytes = (dir: string): number =>
  existsSync(dir) ? readdirSync(dir).reduce((sum, name) => sum + sizeOf(join(dir, name)), 0) : 0;

/** Every complete snapshot of `dataDir`, newest first. Reads names, stats and the small snapshot.json files. */
export function listSnapshots(dataDir: string): SnapshotInfo[] {
  const dir = snapshotsDir(dataDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^snapshot-(\d+)$/.exec(name))
    .filter((match): match is RegExpExecArray => match !== null && existsSync(join(dir, match[0], homeFiles.database)))
    .map((match) => describeSnapshot(join(dir, match[0]), Number(match[1])))
    .sort((a, b) => b.takenAtMs - a.takenAtMs);
}

/** The newest complete snapshot of `dataDir` (the one `restoreSnapshot` puts back), or undefined. */
export function findSnapshot(dataDir: string): SnapshotInfo | undefined {
  return listSnapshots(dataDir)[0];
}

function describeSnapshot(folder: string, takenAtMs: number): SnapshotInfo {
  let sessions: number | undefined;
  try {
    sessions = (JSON.parse(readFileSync(join(folder, "snapshot.json"), "utf8")) as { sessions?: number }).sessions;
  } catch {
    // unreadable: the count is unknown
  }
  const database = join(folder, homeFiles.database);
  return {
    dir: folder,
    databasePath: database,
    takenAtMs,
    databaseBytes: sizeOf(database),
    vectorBytes: folderBytes(join(folder, homeFiles.vectors)),
    sessions,
  };
}

/** Hard-links (or, where links fail, copies) the complete segment files of `from` into a new private folder `to`. */
function linkVectors(from: string, to: string): void {
  mkdirSync(to, { mode: 0o700 });
  chmodSync(to, 0o700);
  if (!existsSync(from)) return;
  for (const name of readdirSync(from)) {
    if (!/\.vec$/.test(name)) continue; // temp files of a writer are not part of the store
    try {
      linkSync(join(from, name), join(to, name));
    } catch {
      copyFileSync(join(from, name), join(to, name));
      chmodSync(join(to, name), 0o600);
    }
  }
}

/**
 * Copy `db`'s file to `target` (an existing private file), byte for byte, after moving its WAL into it: the way the
 * first snapshot is written. A read transaction begun on an empty WAL keeps the file unchanged during the copy (no
 * checkpoint can write past a reader's mark). Returns false, having copied nothing, when the WAL could not be emptied
 * (a reader of another process held it) or was written again before the read began: the caller uses VACUUM INTO.
 * Why only the first: VACUUM INTO reads every row, so an index damaged since the last snapshot fails there and that
 * snapshot stays; the first has no earlier one to keep, and its index was just written by this run. At the end of the
 * first index of the generated 20k corpus (1.03 GB): 4.3–4.5 s with VACUUM INTO (a 0.96 GB copy), 3.0–3.1 s this way,
 * most of both writing the gigabyte (2026-11-29, 2-core Xeon VM, two runs each).
 */
function copyCheckpointed(db: Database, target: string): boolean {
  const checkpoint = db.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get();
  if (checkpoint?.busy !== 0) return false;
  db.exec("BEGIN");
  try {
    db.query("SELECT count(*) FROM meta").get(); // the read transaction starts here
    if (sizeOf(`${db.filename}-wal`) !== 0) return false;
    copyFileSync(db.filename, target);
    chmodSync(target, 0o600); // a copy takes its source's mode, which an index made by an older version may not have
    return true;
  } finally {
    db.exec("COMMIT");
  }
}

/**
 * Write a snapshot of `db` now (the caller holds the index lock, so the vectors match the database) and delete the
 * older ones — except an older one that holds more sessions (the index was rebuilt after damage and lost sessions
 * whose sources are gone: that snapshot is their last copy; doctor names it). `dropOlder` deletes every older one
 * (`recall forget` must not leave the forgotten text in a snapshot). `db` should come from `openIndex`, so a
 * damaged database fails with IndexError INDEX_CORRUPT and the previous snapshot stays untouched.
 * @returns the new snapshot
 * @throws IndexError INDEX_CORRUPT when VACUUM meets damage; fs errors (ENOSPC, ...) as they come
 */
export function writeSnapshot(
  db: Database,
  dataDir: string,
  nowMs: number = Date.now(),
  options: { dropOlder?: boolean } = {},
): SnapshotInfo {
  const dir = snapshotsDir(dataDir);
  makePrivateDirs(dir);
  for (const name of readdirSync(dir))
    if (name.startsWith(".tmp-")) rmSync(join(dir, name), { recursive: true, force: true });
  const temp = join(dir, `.tmp-${process.pid}-${nowMs}`);
  try {
    mkdirSync(temp, { mode: 0o700 });
    chmodSync(temp, 0o700);
    const target = join(temp, homeFiles.database);
    createPrivateFile(target); // VACUUM INTO accepts an empty file and keeps its mode
    const first = listSnapshots(dataDir).length === 0;
    if (!(first && copyCheckpointed(db, target))) db.exec(`VACUUM INTO '${target.replaceAll("'", "''")}'`);
    linkVectors(join(dataDir, homeFiles.vectors), join(temp, homeFiles.vectors));
    const sessions = db.query<{ n: number }, []>("SELECT count(*) AS n FROM sessions").get()?.n;
    writeFileSync(
      join(temp, "snapshot.json"),
      `${JSON.stringify({ taken_at: new Date(nowMs).toISOString(), sessions })}\n`,
      { mode: 0o600 },
    );
    chmodSync(join(temp, "snapshot.json"), 0o600);
    renameSync(temp, join(dir, `snapshot-${nowMs}`));
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  const written = findSnapshot(dataDir)!;
  for (const older of listSnapshots(dataDir)) {
    if (older.takenAtMs === nowMs) continue;
    if (!options.dropOlder && (older.sessions ?? 0) > (written.sessions ?? 0)) continue;
    rmSync(older.dir, { recursive: true, force: true });
  }
  return written;
}

/**
 * The snapshot step of an index run: writes one when there is none, or when `changed` and the last one is older
 * than `snapshotIntervalMs`. A failure other than damage (disk full, ...) becomes a warning: the run itself succeeded.
 * @returns the snapshot written, or undefined
 * @throws IndexError INDEX_CORRUPT when the database turns out damaged (the run must not exit 0)
 */
export function snapshotIfDue(
  db: Database,
  dataDir: string,
  options: { changed: boolean; nowMs?: number; onWarning?: (message: string) => void },
): SnapshotInfo | undefined {
  const nowMs = options.nowMs ?? Date.now();
  const last = findSnapshot(dataDir);
  if (last && !(options.changed && nowMs - last.takenAtMs >= snapshotIntervalMs)) return undefined;
  try {
    return writeSnapshot(db, dataDir, nowMs);
  } catch (error) {
    if (isRecallError(error) && error.code === "INDEX_CORRUPT") throw error;
    options.onWarning?.(`could not write a snapshot into ${snapshotsDir(dataDir)}: ${(error as Error).message}`);
    return undefined;
  }
}

/** Files kept aside after a restore or rebuild (`index.sqlite.damaged-*`, `vectors.damaged-*`), with their sizes in bytes. */
export function listSetAside(dataDir: string): Array<{ path: string; bytes: number }> {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir)
    .filter((name) => /^(index\.sqlite|vectors)\.damaged-/.test(name))
    .sort()
    .map((name) => {
      const path = join(dataDir, name);
      return { path, bytes: statSync(path).isDirectory() ? folderBytes(path) : sizeOf(path) };
    });
}

/** `2026-11-23T13-35-00Z`: a time stamp that is a valid file name everywhere. */
function stamp(nowMs: number): string {
  return new Date(nowMs)
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-");
}

/**
 * Moves index.sqlite (with its WAL; the -shm is dropped) and vectors/ aside as `*.damaged-<time>` (the caller
 * holds the index lock). The WAL keeps its `-wal` suffix, so the pair still opens together for forensics.
 * @returns the new path of the database, or undefined when there was none
 */
function moveAside(dataDir: string, nowMs: number, keepLink: boolean): string | undefined {
  const db = databasePath(dataDir);
  let suffix = `damaged-${stamp(nowMs)}`;
  for (let n = 2; existsSync(`${db}.${suffix}`); n++) suffix = `damaged-${stamp(nowMs)}-${n}`;
  const vectors = join(dataDir, homeFiles.vectors);
  if (existsSync(vectors)) renameSync(vectors, `${vectors}.${suffix}`);
  if (!existsSync(db)) return undefined;
  const aside = `${db}.${suffix}`;
  if (existsSync(`${db}-wal`)) renameSync(`${db}-wal`, `${aside}-wal`);
  rmSync(`${db}-shm`, { force: true });
  // When a restored file replaces it next, a hard link keeps index.sqlite in place until the atomic rename.
  if (keepLink) {
    try {
      linkSync(db, aside);
      return aside;
    } catch {
      // no hard links on this filesystem: index.sqlite is absent until the caller's rename
    }
  }
  renameSync(db, aside);
  return aside;
}

/**
 * Sets a damaged index aside so `recall index --full` can rebuild from the sources still on disk. Takes the
 * index lock (waiting up to `lockWaitMs`).
 * @returns the path the damaged database now has, or undefined when there was none
 * @throws IndexError INDEX_LOCKED when another run holds the lock
 */
export async function setDamagedIndexAside(
  dataDir: string,
  options: { lockWaitMs?: number; nowMs?: number } = {},
): Promise<string | undefined> {
  const lock = await acquireIndexLock(join(dataDir, homeFiles.lock), options.lockWaitMs ?? 0);
  try {
    return moveAside(dataDir, options.nowMs ?? Date.now(), false);
  } finally {
    lock.release();
  }
}

/** What `restoreSnapshot` did. */
export interface RestoreResult {
  snapshot: SnapshotInfo;
  /** where the replaced index.sqlite was kept, or undefined when there was none */
  setAside: string | undefined;
  /** the restored index */
  databasePath: string;
}

/**
 * Puts the newest snapshot back as the index, under the index lock: the snapshot is copied to a temp file and
 * checked (`PRAGMA quick_check`), the current vectors and index are set aside (`*.damaged-<time>`), the snapshot's
 * vectors are linked into vectors/, and the copy is renamed over index.sqlite (atomic). The snapshot itself stays.
 * Run `recall index` afterwards: it adds what changed in the sources since the snapshot.
 * @throws IndexError INDEX_MISSING when there is no snapshot, INDEX_CORRUPT when the snapshot fails its check,
 *         INDEX_LOCKED when an index run holds the lock past `lockWaitMs`
 */
export async function restoreSnapshot(
  dataDir: string,
  options: { lockWaitMs?: number; nowMs?: number } = {},
): Promise<RestoreResult> {
  const snapshot = findSnapshot(dataDir);
  if (!snapshot) {
    throw new IndexError("INDEX_MISSING", `no snapshot in ${snapshotsDir(dataDir)}`, {
      hint: "rebuild with `recall index --full` (it keeps the damaged file aside); sessions whose sources are gone cannot come back without a snapshot",
    });
  }
  const lock = await acquireIndexLock(join(dataDir, homeFiles.lock), options.lockWaitMs ?? 10_000);
  const nowMs = options.nowMs ?? Date.now();
  const temp = join(dataDir, `.restore-${process.pid}-${nowMs}.sqlite`);
  const tempVectors = join(dataDir, `.restore-${process.pid}-${nowMs}.vectors`);
  try {
    createPrivateFile(temp);
    copyFileSync(snapshot.databasePath, temp);
    chmodSync(temp, 0o600);
    checkCopy(temp, snapshot);
    linkVectors(join(snapshot.dir, homeFiles.vectors), tempVectors);
    const target = databasePath(dataDir);
    const setAside = moveAside(dataDir, nowMs, true);
    renameSync(tempVectors, join(dataDir, homeFiles.vectors));
    renameSync(temp, target);
    return { snapshot, setAside, databasePath: target };
  } finally {
    for (const path of [temp, `${temp}-wal`, `${temp}-shm`, tempVectors])
      rmSync(path, { recursive: true, force: true });
    lock.release();
  }
}

/** Opens the restored copy and runs `PRAGMA quick_check` (closing it removes any WAL it made). */
function checkCopy(path: string, snapshot: SnapshotInfo): void {
  let problem: string | undefined;
  try {
    const db = new Database(path, { readwrite: true });
    try {
      const rows = db.query<{ quick_check: string }, []>("PRAGMA quick_check").all();
      if (rows.length !== 1 || rows[0]!.quick_check !== "ok")
        problem = rows
          .map((row) => row.quick_check)
          .slice(0, 2)
          .join("; ");
    } finally {
      db.close();
    }
  } catch (error) {
    problem = (error as Error).message;
  }
  if (problem) {
    throw new IndexError("INDEX_CORRUPT", `the snapshot ${snapshot.databasePath} is damaged too (${problem})`, {
      hint: "rebuild with `recall index --full` (it keeps the damaged file aside)",
    });
  }
}
