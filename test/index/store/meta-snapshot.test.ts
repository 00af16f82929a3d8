/**
 * `withMetaSnapshot` (index/schema.ts, issue 42): the freshness check reads ~4 `meta` keys per agent, so it reads every
 * row at once and `readMeta` answers from them. Checked on an index of the shipped examples: every key answers as the
 * table does, a key that is not there is undefined, the values are those of the snapshot's start (a write behind
 * `readMeta`'s back is not seen until the snapshot ends), `writeMeta` inside keeps them current, and nested calls
 * share one snapshot.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { databasePath, openIndex, runIndex } from "../../../src/index/index.ts";
import { readMeta, withMetaSnapshot, writeMeta } from "../../../src/index/schema.ts";

const repo = resolve(import.meta.dir, "../../..");
const work = mkdtempSync(join(tmpdir(), "recall-meta-snapshot-"));
let db: Database;

beforeAll(async () => {
  const home = join(work, "home");
  await runIndex({
    recallHome: home,
    roots: { "claude-code": [join(repo, "examples", "claude-code")], opencode: [join(repo, "examples", "opencode")] },
  });
  db = openIndex(databasePath(home));
});
afterAll(() => {
  db.close();
  rmSync(work, { recursive: true, force: true });
});

describe("withMetaSnapshot", () => {
  test("every key answers as the table does, and a missing key is undefined", () => {
    const keys = db
      .query<{ key: string }, []>("SELECT key FROM meta")
      .all()
      .map((row) => row.key);
    expect(keys.length).toBeGreaterThan(10); // an index run wrote its digests, scan states and versions
    const outside = keys.map((key) => readMeta(db, key));
    expect(withMetaSnapshot(db, () => keys.map((key) => readMeta(db, key)))).toEqual(outside);
    expect(withMetaSnapshot(db, () => readMeta(db, "no such key"))).toBeUndefined();
  });

  test("values are the snapshot's; writeMeta inside keeps them current; nested calls share it", () => {
    writeMeta(db, "snapshot test", "before");
    withMetaSnapshot(db, () => {
      db.query("UPDATE meta SET value = 'behind' WHERE key = 'snapshot test'").run();
      expect(readMeta(db, "snapshot test")).toBe("before"); // read once, at the start
      writeMeta(db, "snapshot test", "written");
      expect(readMeta(db, "snapshot test")).toBe("written");
      withMetaSnapshot(db, () => {
        db.query("UPDATE meta SET value = 'nested' WHERE key = 'snapshot test'").run();
        expect(readMeta(db, "snapshot test")).toBe("written"); // the outer snapshot, not a new one
      });
    });
    expect(readMeta(db, "snapshot test")).toBe("nested"); // after it, the table again
  });

  test("the snapshot ends when its reader throws", () => {
    writeMeta(db, "snapshot test", "kept");
    expect(() =>
      withMetaSnapshot(db, () => {
        throw new Error("reader failed");
      }),
    ).toThrow("reader failed");
    db.query("UPDATE meta SET value = 'after' WHERE key = 'snapshot test'").run();
    expect(readMeta(db, "snapshot test")).toBe("after");
  });
});
