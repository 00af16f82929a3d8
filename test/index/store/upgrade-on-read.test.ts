import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { databasePath, openIndex, runIndex } from "../../../src/index/index.ts";
import { schemaVersion } from "../../../src/index/schema.ts";
import { searchIndex, type TurnResult } from "../../../src/search/index.ts";
import { runCli } from "../../helpers/cli.ts";

// After an upgrade of recall, the first command may be a read-only one (`recall status`): it migrates the index
// through a connection of its own instead of failing with "needs an upgrade" until `recall index` ran.
const repo = resolve(import.meta.dir, "../../..");
const work = mkdtempSync(join(tmpdir(), "recall-upgrade-on-read-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const examples = {
  "claude-code": [join(repo, "examples", "claude-code")],
  opencode: [join(repo, "examples", "opencode")],
};

/** An index of the examples as the previous schema left it (the latest migration writes nothing it reads). */
async function previousSchemaIndex(name: string): Promise<string> {
  const home = join(work, name);
  await runIndex({ recallHome: home, roots: examples });
  const db = new Database(databasePath(home));
  db.exec(`PRAGMA user_version = ${schemaVersion - 1}`);
  db.close();
  return home;
}

const versionOf = (path: string): number => {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ user_version: number }, []>("PRAGMA user_version").get()!.user_version;
  } finally {
    db.close();
  }
};

describe("a read-only open of an index an older recall wrote", () => {
  test("migrates it, then answers read-only", async () => {
    const home = await previousSchemaIndex("open");
    const db = openIndex(databasePath(home), { readonly: true });
    try {
      expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM sessions").get()!.n).toBeGreaterThan(5);
      expect(() => db.exec("DELETE FROM sessions")).toThrow(); // still a read-only connection
    } finally {
      db.close();
    }
    expect(versionOf(databasePath(home))).toBe(schemaVersion);
  });

  test("`recall status` answers on it (it failed with 'needs an upgrade' until `recall index` ran)", async () => {
    const home = await previousSchemaIndex("status");
    const sources = ["--claude-dir", examples["claude-code"][0]!, "--opencode-dir", examples.opencode[0]!];
    const result = runCli(["status", "--json", ...sources], {
      ...process.env,
      RECALL_HOME: home,
      HOME: join(work, "user-home"),
      RECALL_OFFLINE: "1",
      NO_COLOR: "1",
    });
    expect(result.stderr).not.toContain("needs an upgrade");
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).sessions).toBeGreaterThan(5);
  });

  test("an index of schema 23 gets the narrow indexes searches read by INDEXED BY (turns_time, chunks_owner)", async () => {
    const home = await previousSchemaIndex("turn-time");
    const old = new Database(databasePath(home));
    old.exec("DROP INDEX turns_time; DROP INDEX chunks_owner; PRAGMA user_version = 23");
    old.close();
    const fresh = join(work, "turn-time-fresh");
    await runIndex({ recallHome: fresh, roots: examples });
    const request = { query: "docker network", level: "turn", filters: { since: 1 }, mode: "keyword" } as const;
    const answers = [];
    for (const path of [databasePath(home), databasePath(fresh)]) {
      const db = openIndex(path, { readonly: true });
      try {
        const turns = (await searchIndex(db, request)).results as TurnResult[];
        answers.push(turns.map((turn) => [turn.sessionId, turn.turn]));
      } finally {
        db.close();
      }
    }
    expect(answers[0]!.length).toBeGreaterThan(0);
    expect(answers[0]).toEqual(answers[1]!);
    expect(versionOf(databasePath(home))).toBe(schemaVersion);
    // the vector leg's owner lookup (search/ranking/vector.ts chunkOwners) names chunks_owner
    const db = new Database(databasePath(home), { readonly: true });
    try {
      expect(db.query("SELECT count(*) AS n FROM chunks INDEXED BY chunks_owner WHERE id > 0").get()).toEqual({
        n: db.query<{ n: number }, []>("SELECT count(*) AS n FROM chunks").get()!.n,
      });
    } finally {
      db.close();
    }
  });

  test("a file still being created (version 0) is left alone: the reader is told there is no index yet", () => {
    const path = join(work, "creating.sqlite");
    new Database(path).close();
    expect(() => openIndex(path, { readonly: true })).toThrow("needs an upgrade");
    expect(versionOf(path)).toBe(0);
  });
});
