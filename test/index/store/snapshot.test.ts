/**
 * Issue 9: the index protects itself with a snapshot (a copy, then VACUUM INTO, vectors hard-linked, last one kept, 0600/0700)
 * written by index runs that change something once a day, and `restoreSnapshot` puts it back atomically under the
 * index lock, keeping the replaced file aside. Real indexes built from examples/, real vector segment files.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  databasePath,
  findSnapshot,
  listSnapshots,
  openIndex,
  restoreSnapshot,
  runIndex,
  snapshotIfDue,
  snapshotIntervalMs,
  snapshotsDir,
  tryAcquireIndexLock,
  writeSnapshot,
} from "../../../src/index/index.ts";
import { openVectorStore } from "../../../src/native/index.ts";

const repo = resolve(import.meta.dir, "../../..");
const work = mkdtempSync(join(tmpdir(), "recall-snapshot-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const examples = {
  "claude-code": [join(repo, "examples", "claude-code")],
  opencode: [join(repo, "examples", "opencode")],
};
const mode = (path: string) => statSync(path).mode & 0o777;
let counter = 0;

/** A data folder with a real index of the examples (13 sessions), one real vector segment per level, and a snapshot of both. */
async function indexedHome(): Promise<string> {
  const home = join(work, `home-${++counter}`);
  await runIndex({ recallHome: home, roots: examples });
  for (const level of ["session", "turn"] as const) {
    const store = openVectorStore({ dir: join(home, "vectors"), level, dims: 4, fingerprint: "test-model" });
    store.append([1, 2], [new Float32Array([1, 0, 0, 0]), new Float32Array([0, 1, 0, 0])]);
    store.close();
  }
  const db = openIndex(databasePath(home));
  writeSnapshot(db, home); // now with the vectors in it
  db.close();
  return home;
}

/** The one number a query of the database at `path` answers (opened read-only). */
const readNumber = (path: string, sql: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return Object.values(db.query(sql).get() as Record<string, number>)[0]!;
  } finally {
    db.close();
  }
};
const sessions = (path: string) => readNumber(path, "SELECT count(*) FROM sessions");
const freePages = (path: string) => readNumber(path, "PRAGMA freelist_count");

describe("issue 9: snapshots of the index", () => {
  test("the first index run writes one: a private copy with the vector files hard-linked beside it", async () => {
    const home = join(work, `first-${++counter}`);
    await runIndex({ recallHome: home, roots: examples });
    const snapshot = findSnapshot(home)!;
    expect(snapshot.sessions).toBe(13);
    expect(sessions(snapshot.databasePath)).toBe(13);
    expect(mode(snapshotsDir(home))).toBe(0o700);
    expect(mode(snapshot.dir)).toBe(0o700);
    expect(mode(snapshot.databasePath)).toBe(0o600);
    expect(mode(join(snapshot.dir, "snapshot.json"))).toBe(0o600);
    // With vectors present, a forced snapshot links (same inode: no extra disk) instead of copying.
    const withVectors = await indexedHome();
    const db = openIndex(databasePath(withVectors));
    const written = writeSnapshot(db, withVectors, Date.now() + 1);
    db.close();
    const segment = readdirSync(join(withVectors, "vectors")).find((name) => name.endsWith(".vec"))!;
    expect(statSync(join(written.dir, "vectors", segment)).ino).toBe(
      statSync(join(withVectors, "vectors", segment)).ino,
    );
    expect(written.vectorBytes).toBeGreaterThan(0);
    expect(listSnapshots(withVectors)).toHaveLength(1); // the last one only
  }, 30_000);

  test("the first snapshot copies the checkpointed file byte for byte; later ones are VACUUM INTO's compact copies", async () => {
    const home = await indexedHome();
    rmSync(snapshotsDir(home), { recursive: true }); // no snapshot yet: the next one is the first
    const db = openIndex(databasePath(home));
    try {
      db.exec("PRAGMA foreign_keys = ON; DELETE FROM sessions WHERE id IN (SELECT id FROM sessions LIMIT 5)");
      chmodSync(databasePath(home), 0o644); // as an index made by an older version may be: the copy is private anyway
      const first = writeSnapshot(db, home, Date.now() + 1);
      expect(statSync(`${databasePath(home)}-wal`).size).toBe(0); // its WAL was moved into the file first
      expect(Buffer.compare(readFileSync(first.databasePath), readFileSync(databasePath(home)))).toBe(0);
      expect(freePages(first.databasePath)).toBeGreaterThan(0); // the deleted rows' pages, as in the index
      expect(sessions(first.databasePath)).toBe(8);
      expect(mode(first.databasePath)).toBe(0o600);
      const next = writeSnapshot(db, home, Date.now() + 2);
      expect(freePages(next.databasePath)).toBe(0);
      expect(sessions(next.databasePath)).toBe(8);
    } finally {
      db.close();
    }
  }, 30_000);

  test("a first snapshot while another process reads the WAL is VACUUM INTO's, with every committed row", async () => {
    const home = await indexedHome();
    rmSync(snapshotsDir(home), { recursive: true });
    const db = openIndex(databasePath(home));
    const reader = new Database(databasePath(home), { readonly: true });
    try {
      db.exec("PRAGMA foreign_keys = ON; DELETE FROM sessions WHERE id IN (SELECT id FROM sessions LIMIT 2)");
      reader.exec("BEGIN");
      reader.query("SELECT count(*) FROM sessions").get(); // holds the WAL: it cannot be emptied
      db.exec("DELETE FROM sessions WHERE id IN (SELECT id FROM sessions LIMIT 1)");
      const first = writeSnapshot(db, home, Date.now() + 1);
      expect(statSync(`${databasePath(home)}-wal`).size).toBeGreaterThan(0);
      expect(sessions(first.databasePath)).toBe(10);
    } finally {
      reader.exec("COMMIT");
      reader.close();
      db.close();
    }
  }, 30_000);

  test("a new one is due only when the run changed something and the last is older than a day", async () => {
    const home = await indexedHome();
    const first = findSnapshot(home)!;
    const db = openIndex(databasePath(home));
    try {
      const later = first.takenAtMs + snapshotIntervalMs;
      expect(snapshotIfDue(db, home, { changed: true, nowMs: later - 1 })).toBeUndefined();
      expect(snapshotIfDue(db, home, { changed: false, nowMs: later + 1 })).toBeUndefined();
      const next = snapshotIfDue(db, home, { changed: true, nowMs: later + 1 })!;
      expect(next.takenAtMs).toBe(later + 1);
      expect(listSnapshots(home).map((snapshot) => snapshot.takenAtMs)).toEqual([later + 1]);
    } finally {
      db.close();
    }
  }, 30_000);

  test("an older snapshot holding more sessions is kept (the last copy of sessions a rebuild lost), unless dropOlder", async () => {
    const home = await indexedHome();
    const db = openIndex(databasePath(home));
    try {
      db.exec("PRAGMA foreign_keys = ON; DELETE FROM sessions WHERE id IN (SELECT id FROM sessions LIMIT 3)");
      const now = Date.now() + 2 * snapshotIntervalMs;
      writeSnapshot(db, home, now);
      expect(listSnapshots(home).map((snapshot) => snapshot.sessions)).toEqual([10, 13]);
      writeSnapshot(db, home, now + 1, { dropOlder: true });
      expect(listSnapshots(home).map((snapshot) => snapshot.sessions)).toEqual([10]);
    } finally {
      db.close();
    }
  }, 30_000);

  test("a snapshot that cannot be written (a file where vectors/ should be) is a warning, the previous one stays, no temp is left", async () => {
    const home = await indexedHome();
    const before = findSnapshot(home)!;
    const db = openIndex(databasePath(home));
    const warnings: string[] = [];
    try {
      rmSync(join(home, "vectors"), { recursive: true });
      writeFileSync(join(home, "vectors"), "a file where the vectors folder should be"); // linking fails: ENOTDIR
      const result = snapshotIfDue(db, home, {
        changed: true,
        nowMs: before.takenAtMs + snapshotIntervalMs + 1,
        onWarning: (line) => warnings.push(line),
      });
      expect(result).toBeUndefined();
    } finally {
      db.close();
    }
    expect(warnings[0]).toContain("could not write a snapshot");
    expect(findSnapshot(home)!.takenAtMs).toBe(before.takenAtMs);
    expect(readdirSync(snapshotsDir(home)).filter((name) => name.startsWith(".tmp-"))).toEqual([]);
  }, 30_000);
});

describe("issue 9: restoring a snapshot", () => {
  test("puts the snapshot back atomically, keeps the replaced index and its vectors aside, and leaves the snapshot", async () => {
    const home = await indexedHome();
    const snapshot = findSnapshot(home)!;
    const damaged = await Bun.file(databasePath(home)).bytes();
    for (let offset = 4096; offset < damaged.length; offset += 97) damaged[offset] = 0xff;
    writeFileSync(databasePath(home), damaged);
    rmSync(`${databasePath(home)}-wal`, { force: true });
    rmSync(`${databasePath(home)}-shm`, { force: true });
    const result = await restoreSnapshot(home, { nowMs: Date.parse("2026-11-23T10:00:00Z") });
    expect(result.setAside).toBe(`${databasePath(home)}.damaged-2026-11-23T10-00-00Z`);
    expect(statSync(result.setAside!).size).toBe(damaged.length);
    expect(existsSync(join(home, "vectors.damaged-2026-11-23T10-00-00Z"))).toBe(true);
    const db = openIndex(databasePath(home));
    expect((db.query("PRAGMA quick_check").get() as { quick_check: string }).quick_check).toBe("ok");
    db.close();
    expect(sessions(databasePath(home))).toBe(13);
    expect(mode(databasePath(home))).toBe(0o600);
    expect(readdirSync(join(home, "vectors")).filter((name) => name.endsWith(".vec")).length).toBeGreaterThan(0);
    expect(findSnapshot(home)!.dir).toBe(snapshot.dir);
    expect(readdirSync(home).filter((name) => name.startsWith(".restore-"))).toEqual([]);
  }, 30_000);

  test("no snapshot is INDEX_MISSING, a damaged snapshot is INDEX_CORRUPT (nothing replaced), a held lock is INDEX_LOCKED", async () => {
    await expect(restoreSnapshot(join(work, "nothing"))).rejects.toMatchObject({ code: "INDEX_MISSING" });
    const home = await indexedHome();
    const original = await Bun.file(databasePath(home)).bytes();
    const lock = tryAcquireIndexLock(join(home, "index.lock"))!;
    try {
      await expect(restoreSnapshot(home, { lockWaitMs: 0 })).rejects.toMatchObject({ code: "INDEX_LOCKED" });
    } finally {
      lock.release();
    }
    const snapshotDb = findSnapshot(home)!.databasePath;
    const bytes = await Bun.file(snapshotDb).bytes();
    for (let offset = 4096; offset < bytes.length; offset += 97) bytes[offset] = 0xff;
    writeFileSync(snapshotDb, bytes);
    await expect(restoreSnapshot(home)).rejects.toMatchObject({
      code: "INDEX_CORRUPT",
      message: expect.stringContaining("is damaged too"),
    });
    expect(Buffer.compare(await Bun.file(databasePath(home)).bytes(), original)).toBe(0);
    expect(readdirSync(home).filter((name) => name.includes("damaged-") || name.startsWith(".restore-"))).toEqual([]);
  }, 30_000);

  test("a restored index keeps working: the next index run brings it up to date from the sources", async () => {
    const home = await indexedHome();
    const sources = join(work, `sources-${++counter}`);
    cpSync(join(repo, "examples"), sources, { recursive: true });
    const roots = { "claude-code": [join(sources, "claude-code")], opencode: [join(sources, "opencode")] };
    await runIndex({ recallHome: home, roots });
    await restoreSnapshot(home);
    const summary = await runIndex({ recallHome: home, roots });
    expect(summary.added + summary.updated + summary.unchanged).toBeGreaterThan(0);
    expect(sessions(databasePath(home))).toBe(13);
  }, 30_000);
});
