/**
 * Issue 9: a damaged index.sqlite gave "unexpected error … report it" and `recall index` exited 0. Real indexes
 * (examples/, and the real corpus when ../shared/corpus is there) are damaged for real — pages overwritten with
 * garbage, the file truncated, the header overwritten — and every way the index is read or written must then
 * throw IndexError INDEX_CORRUPT naming the file, with the snapshot restore or the rebuild as the hint, and
 * must leave the damaged bytes as they were.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { damagedIndexError, databasePath, isDamagedIndexError, openIndex, runIndex } from "../../../src/index/index.ts";
import { claudeCorpusRoots, hasCorpus } from "../../helpers/corpus.ts";

const repo = resolve(import.meta.dir, "../../..");
const work = mkdtempSync(join(tmpdir(), "recall-damage-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const examples = {
  "claude-code": [join(repo, "examples", "claude-code")],
  opencode: [join(repo, "examples", "opencode")],
};
let counter = 0;

type Damage = "pages" | "truncate" | "header";

/** Damages the index in `home` the way disks and careless copies do; returns the damaged bytes. */
async function damage(home: string, kind: Damage): Promise<Uint8Array> {
  const path = databasePath(home);
  for (const suffix of ["-wal", "-shm"]) rmSync(path + suffix, { force: true });
  const bytes = await Bun.file(path).bytes();
  if (kind === "truncate") {
    truncateSync(path, Math.floor(bytes.length / 2 / 4096) * 4096 + 100);
    return Bun.file(path).bytes();
  }
  const from = kind === "header" ? 0 : 4096;
  const to = kind === "header" ? 100 : bytes.length;
  for (let offset = from; offset < to; offset += kind === "header" ? 1 : 97) bytes[offset] = (offset * 31) & 0xff;
  writeFileSync(path, bytes);
  return bytes;
}

async function indexedCopy(roots = examples, snapshot = true): Promise<string> {
  const home = join(work, `home-${++counter}`);
  await runIndex({ recallHome: home, roots });
  if (!snapshot) rmSync(join(home, "snapshots"), { recursive: true, force: true });
  return home;
}

/** Runs `read` and returns what it threw. */
function thrown(read: () => unknown): unknown {
  try {
    read();
  } catch (error) {
    return error;
  }
  throw new Error("expected the read to fail");
}

describe("issue 9: a damaged index is detected and named, never reported as an unexpected error", () => {
  for (const kind of ["pages", "truncate", "header"] as const) {
    test(`${kind}: opening and reading it throws INDEX_CORRUPT with the path, what SQLite said and the snapshot restore`, async () => {
      const home = await indexedCopy();
      await damage(home, kind);
      const error = thrown(() => {
        const db = openIndex(databasePath(home), { readonly: true });
        try {
          db.query("SELECT sum(length(prompt)) + sum(length(response)) FROM turns").get();
          db.query("SELECT count(*) FROM documents_fts WHERE documents_fts MATCH 'docker'").get();
        } finally {
          db.close();
        }
      });
      expect(isDamagedIndexError(error)).toBe(true);
      const { code, message, hint } = error as { code: string; message: string; hint: string };
      expect(code).toBe("INDEX_CORRUPT");
      expect(message).toStartWith(`the index at ${databasePath(home)} is damaged (`);
      expect(message).toMatch(/malformed|not a database/);
      expect(hint).toContain("recall doctor --restore-snapshot");
      expect(hint).toContain("recall index --full");
      expect(hint).toContain("come back only from the snapshot");
    }, 30_000);
  }

  test("every statement method and transactions are guarded: get, all, values, iterate, run, exec, transaction", async () => {
    const home = await indexedCopy();
    // Garbage over the root page of `turns` only: the schema still opens, every read of turns fails.
    const probe = openIndex(databasePath(home), { readonly: true });
    const root = (probe.query("SELECT rootpage FROM sqlite_schema WHERE name = 'turns'").get() as { rootpage: number })
      .rootpage;
    probe.close();
    for (const suffix of ["-wal", "-shm"]) rmSync(databasePath(home) + suffix, { force: true });
    const bytes = await Bun.file(databasePath(home)).bytes();
    bytes.fill(0xa5, (root - 1) * 4096, root * 4096);
    writeFileSync(databasePath(home), bytes);
    const db = openIndex(databasePath(home), { readonly: false });
    try {
      const sql = "SELECT prompt FROM turns ORDER BY number";
      const reads: Array<() => unknown> = [
        () => db.query(sql).all(),
        () => db.query(sql).values(),
        () => [...db.query(sql).iterate()],
        () => db.prepare(sql).get(),
        () => db.exec("UPDATE turns SET prompt = prompt || ''"),
        () => db.run("DELETE FROM turns WHERE number > 1"),
        () => db.transaction(() => db.query("UPDATE turns SET prompt = prompt").run()).immediate(),
      ];
      for (const read of reads) expect(isDamagedIndexError(thrown(read))).toBe(true);
    } finally {
      db.close();
    }
  }, 30_000);

  test("without a snapshot the hint says that sessions whose sources are gone cannot come back", async () => {
    const home = await indexedCopy(examples, false);
    await damage(home, "header");
    const error = thrown(() => openIndex(databasePath(home), { readonly: true })) as { hint: string };
    expect(error.hint).toContain("there is no snapshot, so sessions whose sources are gone cannot come back");
  }, 30_000);

  test("an index run on a damaged index fails with INDEX_CORRUPT and leaves every damaged byte in place", async () => {
    for (const kind of ["pages", "truncate", "header"] as const) {
      const home = await indexedCopy();
      const bytes = await damage(home, kind);
      await expect(runIndex({ recallHome: home, roots: examples, full: true })).rejects.toMatchObject({
        code: "INDEX_CORRUPT",
      });
      expect(Buffer.compare(await Bun.file(databasePath(home)).bytes(), bytes)).toBe(0);
      expect(readdirSync(home).filter((name) => name.includes("damaged"))).toEqual([]);
    }
  }, 60_000);

  test("damagedIndexError is the only INDEX_CORRUPT that counts as damage (not 'written by a newer recall')", () => {
    expect(isDamagedIndexError(damagedIndexError("/x/index.sqlite", new Error("file is not a database")))).toBe(true);
    expect(isDamagedIndexError(new Error("file is not a database"))).toBe(false);
  });
});

describe.skipIf(!hasCorpus)("issue 9: damage to an index of the real corpus (needs ../shared/corpus)", () => {
  test("garbage over the pages of the real index is found by a full read and named, with the snapshot offered", async () => {
    const roots = { "claude-code": claudeCorpusRoots(), opencode: [] as string[] };
    const home = join(work, "corpus");
    await runIndex({ recallHome: home, roots });
    const copy = join(work, "corpus-damaged");
    cpSync(home, copy, { recursive: true });
    await damage(copy, "pages");
    const error = thrown(() => {
      const db = openIndex(databasePath(copy), { readonly: true });
      try {
        db.query("SELECT sum(length(prompt)) FROM turns").get();
      } finally {
        db.close();
      }
    }) as { code: string; hint: string };
    expect(error.code).toBe("INDEX_CORRUPT");
    expect(error.hint).toContain("recall doctor --restore-snapshot");
  }, 120_000);
});
