import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SourceError } from "../../src/errors.ts";
import {
  closeOpencodeDatabases,
  createOpencodeParser,
  opencodeParser,
  openOpencodeDatabase,
} from "../../src/parsers/opencode.ts";
import type { SourceUnit } from "../../src/parsers/types.ts";
import {
  createSchema,
  insertExchange,
  insertMessage,
  insertPart,
  insertSession,
  type SchemaGeneration,
} from "../fixtures/opencode/make-db.ts";

const bunPath = process.execPath;
const parserModule = resolve(import.meta.dir, "../../src/parsers/opencode.ts");
const tempDirs: string[] = [];
afterAll(() => {
  closeOpencodeDatabases();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function makeTempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "recall-oc-test-"));
  tempDirs.push(dir);
  return dir;
}

/** A closed database in rollback-journal mode with one two-exchange session. */
function makeDb(generation: SchemaGeneration, dir = makeTempDir(), name = "opencode.db"): string {
  const path = join(dir, name);
  const db = new Database(path);
  createSchema(db, generation);
  insertSession(db, {
    id: "ses_a",
    timeCreated: 1000,
    timeUpdated: 2000,
    directory: "/home/dev/shop",
    title: "Cart bug",
  });
  insertExchange(db, "ses_a", "1", 1100, "why is the cart empty", "The session cookie is dropped.");
  insertExchange(db, "ses_a", "2", 1900, "fix it", "Fixed.");
  db.close();
  return path;
}

function listAll(
  parser = opencodeParser,
  roots: string[],
): { units: SourceUnit[]; warnings: string[]; unavailable: Array<[string, string]> } {
  const warnings: string[] = [];
  const unavailable: Array<[string, string]> = [];
  const units = parser.listUnits(parser.scan(roots).containers, {
    onWarning: (message) => warnings.push(message),
    onUnavailable: (path, reason) => unavailable.push([path, reason]),
  });
  return { units, warnings, unavailable };
}

/** Run a script in a child bun process (another connection in another process, as OpenCode would be). */
function spawnBun(script: string, args: string[] = []): ReturnType<typeof Bun.spawn> {
  return Bun.spawn([bunPath, "-e", script, ...args], { stdout: "pipe", stderr: "pipe" });
}

async function readFirstLine(child: ReturnType<typeof Bun.spawn>): Promise<string> {
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  return new TextDecoder().decode(value).trim();
}

describe("OpenCode SQLite databases (formats.md §2.1, runtime-notes §5)", () => {
  for (const generation of ["1.2", "1.17"] as const) {
    test(`a ${generation}-generation database parses into turns joined on the id columns`, () => {
      const path = makeDb(generation);
      const { units } = listAll(opencodeParser, [path]);
      expect(units.map((unit) => unit.key)).toEqual([`${path}#ses_a`]);
      const { session, turns } = opencodeParser.parse(units[0]!);
      expect(session).toMatchObject({
        id: "ses_a",
        projectPath: "/home/dev/shop",
        projectName: "shop",
        title: "Cart bug",
        startedAt: 1000,
        endedAt: 2000,
        location: path,
      });
      expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([
        ["why is the cart empty", "The session cookie is dropped."],
        ["fix it", "Fixed."],
      ]);
    });
  }

  test("messages are ordered by time then id, parts by id, whatever the insertion order", () => {
    const dir = makeTempDir();
    const db = new Database(join(dir, "opencode.db"));
    createSchema(db);
    insertSession(db, { id: "ses_o", timeCreated: 1, timeUpdated: 9 });
    insertMessage(db, "ses_o", "msg_2", 5, { role: "assistant", parentID: "msg_1" });
    insertPart(db, "ses_o", "msg_2", "prt_b", { type: "text", text: "second" });
    insertPart(db, "ses_o", "msg_2", "prt_a", { type: "text", text: "first" });
    insertMessage(db, "ses_o", "msg_1", 5, { role: "user" });
    insertPart(db, "ses_o", "msg_1", "prt_0", { type: "text", text: "go" });
    insertPart(db, "ses_o", "msg_1", "prt_x", "{broken json");
    db.close();
    const { units } = listAll(opencodeParser, [dir]);
    const result = opencodeParser.parse(units[0]!);
    expect(result.turns.map((turn) => [turn.prompt, turn.response])).toEqual([["go", "first\n\nsecond"]]);
    expect(result.skipped.count).toBe(1);
  });

  test("newest data in an uncheckpointed WAL is visible, also through the cached connection", () => {
    const dir = makeTempDir();
    const path = join(dir, "opencode.db");
    const writer = new Database(path);
    writer.run("pragma journal_mode = wal");
    writer.run("pragma wal_autocheckpoint = 0");
    createSchema(writer);
    insertSession(writer, { id: "ses_w", timeCreated: 1, timeUpdated: 2 });
    insertExchange(writer, "ses_w", "1", 10, "first prompt", "first reply");
    try {
      const { containers } = opencodeParser.scan([dir]);
      expect(containers[0]?.fingerprint).not.toContain("wal-");
      const units = opencodeParser.listUnits(containers);
      expect(opencodeParser.parse(units[0]!).turns).toHaveLength(1);
      insertExchange(writer, "ses_w", "2", 20, "second prompt", "second reply");
      expect(opencodeParser.parse(units[0]!).turns.map((turn) => turn.prompt)).toEqual([
        "first prompt",
        "second prompt",
      ]);
      expect(opencodeParser.scan([dir]).containers[0]?.fingerprint).not.toBe(containers[0]?.fingerprint);
    } finally {
      writer.close();
    }
  });

  test("a WAL-mode database without a -wal file is opened immutable and leaves no side files", () => {
    const dir = makeTempDir();
    const path = join(dir, "opencode-stable.db");
    const writer = new Database(path);
    writer.run("pragma journal_mode = wal");
    createSchema(writer);
    insertSession(writer, { id: "ses_i", timeCreated: 1, timeUpdated: 2 });
    insertExchange(writer, "ses_i", "1", 10, "hello", "hi");
    writer.close();
    expect(readdirSync(dir)).toEqual(["opencode-stable.db"]);
    const { units } = listAll(opencodeParser, [dir]);
    expect(opencodeParser.parse(units[0]!).turns[0]?.prompt).toBe("hello");
    expect(openOpencodeDatabase(path, { busyTimeoutMs: 100 }).mode).toBe("immutable");
    expect(readdirSync(dir)).toEqual(["opencode-stable.db"]);
  });

  test("one connection per database is cached for the process", () => {
    const path = makeDb("1.17");
    expect(openOpencodeDatabase(path, { busyTimeoutMs: 100 })).toBe(openOpencodeDatabase(path, { busyTimeoutMs: 100 }));
  });

  test("a session in both the database and JSON storage is listed once, from the database", () => {
    const root = makeTempDir();
    cpSync(resolve(import.meta.dir, "../fixtures/opencode/json-storage/storage"), join(root, "storage"), {
      recursive: true,
    });
    const db = new Database(join(root, "opencode.db"));
    createSchema(db);
    insertSession(db, { id: "ses_shared", timeCreated: 500, timeUpdated: 600 });
    insertExchange(db, "ses_shared", "1", 550, "prompt from the db", "reply");
    db.close();
    const { containers } = opencodeParser.scan([root]);
    const units = opencodeParser.listUnits([...containers].reverse());
    const shared = units.filter((unit) => unit.sessionId === "ses_shared");
    expect(shared.map((unit) => unit.containerPath)).toEqual([join(root, "opencode.db")]);
    expect(opencodeParser.parse(shared[0]!).turns[0]?.prompt).toBe("prompt from the db");
    expect(units.map((unit) => unit.sessionId).sort()).toEqual(["ses_child", "ses_main", "ses_shared"]);
  });

  test("issue 9: a file that is not a database is unavailable, not empty, and parsing it throws SourceError", () => {
    const dir = makeTempDir();
    const path = join(dir, "opencode.db");
    writeFileSync(path, "this is not a database ".repeat(200));
    const { units, warnings, unavailable } = listAll(opencodeParser, [dir]);
    expect(units).toEqual([]);
    expect(unavailable).toEqual([[path, "file is not a database"]]);
    expect(warnings).toEqual([]);
    // A caller without onUnavailable still hears about it as a warning.
    const warned: string[] = [];
    expect(
      opencodeParser.listUnits(opencodeParser.scan([dir]).containers, { onWarning: (message) => warned.push(message) }),
    ).toEqual([]);
    expect(warned).toEqual([`${path}: file is not a database`]);
    const unit: SourceUnit = {
      source: "opencode",
      key: `${path}#ses_x`,
      sessionId: "ses_x",
      containerPath: path,
      changeKey: "1",
    };
    expect(() => opencodeParser.parse(unit)).toThrow(SourceError);
  });

  test("issue 9: a zero-byte database or one without the transcript tables is unavailable, with the reason", () => {
    const dir = makeTempDir();
    const empty = join(dir, "opencode.db");
    writeFileSync(empty, "");
    const foreign = join(dir, "opencode-beta.db");
    const db = new Database(foreign);
    db.run("create table session (id text primary key)");
    db.close();
    const { units, unavailable } = listAll(opencodeParser, [dir]);
    expect(units).toEqual([]);
    expect(unavailable).toEqual([
      [foreign, "not an opencode database (no message, part table)"],
      [empty, "empty database file (0 bytes)"],
    ]);
    const unit: SourceUnit = {
      source: "opencode",
      key: `${empty}#ses_a`,
      sessionId: "ses_a",
      containerPath: empty,
      changeKey: "1",
    };
    expect(() => opencodeParser.parse(unit)).toThrow(`${empty}: empty database file (0 bytes)`);
  });

  test("issue 9: a database locked exclusively by another process is unavailable after the busy timeout", async () => {
    const path = makeDb("1.17");
    const holder = spawnBun(
      `const { Database } = require("bun:sqlite"); const db = new Database(process.argv[1]);
       db.run("begin exclusive"); db.run("update session set title = 'locked'"); console.log("locked"); setTimeout(() => {}, 20000);`,
      [path],
    );
    try {
      expect(await readFirstLine(holder)).toBe("locked");
      const { units, unavailable } = listAll(createOpencodeParser({ busyTimeoutMs: 200 }), [path]);
      expect(units).toEqual([]);
      expect(unavailable).toEqual([[path, "database is locked"]]);
    } finally {
      holder.kill();
      await holder.exited;
    }
  });

  test("a WAL database stays readable while another process holds a write transaction", async () => {
    const dir = makeTempDir();
    const path = join(dir, "opencode.db");
    const setup = new Database(path);
    setup.run("pragma journal_mode = wal");
    createSchema(setup);
    insertSession(setup, { id: "ses_l", timeCreated: 1, timeUpdated: 2 });
    insertExchange(setup, "ses_l", "1", 10, "committed prompt", "reply");
    const holder = spawnBun(
      `const { Database } = require("bun:sqlite"); const db = new Database(process.argv[1]);
       db.run("begin immediate"); db.run("update session set title = 'uncommitted'"); console.log("locked"); setTimeout(() => {}, 20000);`,
      [path],
    );
    try {
      expect(await readFirstLine(holder)).toBe("locked");
      const { units, warnings } = listAll(createOpencodeParser({ busyTimeoutMs: 200 }), [dir]);
      expect(warnings).toEqual([]);
      const result = opencodeParser.parse(units[0]!);
      expect(result.session.title).toBe("A session");
      expect(result.turns[0]?.prompt).toBe("committed prompt");
    } finally {
      holder.kill();
      await holder.exited;
      setup.close();
    }
  });
});

describe("OpenCode database copy fallback for folders we cannot write to", () => {
  /** db + uncheckpointed -wal left by a writer that was killed, -shm removed (so SQLite must create it). */
  async function makeCrashedWalDb(): Promise<string> {
    const dir = makeTempDir();
    const path = join(dir, "opencode.db");
    const writer = spawnBun(
      `const { Database } = require("bun:sqlite"); const m = require(process.argv[2]); const db = new Database(process.argv[1]);
       db.run("pragma journal_mode = wal"); db.run("pragma wal_autocheckpoint = 0"); m.createSchema(db);
       m.insertSession(db, { id: "ses_c", timeCreated: 1, timeUpdated: 2 });
       m.insertExchange(db, "ses_c", "1", 10, "prompt only in the wal", "reply"); process.kill(process.pid, "SIGKILL");`,
      [path, resolve(import.meta.dir, "../fixtures/opencode/make-db.ts")],
    );
    await writer.exited;
    rmSync(`${path}-shm`, { force: true });
    expect(existsSync(`${path}-wal`)).toBe(true);
    return dir;
  }

  test("a forced copy reads the WAL data and the temp copy is deleted on close", async () => {
    const dir = await makeCrashedWalDb();
    const parser = createOpencodeParser({ forceCopy: true });
    const units = parser.listUnits(parser.scan([dir]).containers);
    expect(parser.parse(units[0]!).turns[0]?.prompt).toBe("prompt only in the wal");
    const handle = openOpencodeDatabase(join(dir, "opencode.db"), { busyTimeoutMs: 100 });
    expect(handle.mode).toBe("copy");
    const copyDir = handle.copyDir!;
    expect(existsSync(copyDir)).toBe(true);
    closeOpencodeDatabases();
    expect(existsSync(copyDir)).toBe(false);
  });

  // Tests run as root, where chmod does not stop writes; an unprivileged user (setpriv to nobody)
  // meets the real SQLITE_CANTOPEN that runtime-notes §5 measured, so the fallback runs for real.
  const canDropPrivileges = process.getuid?.() === 0 && existsSync("/usr/bin/setpriv");
  test.skipIf(!canDropPrivileges)(
    "as an unprivileged user, a read-only folder with a -wal but no -shm is read through a copy (needs root + setpriv)",
    async () => {
      const dir = await makeCrashedWalDb();
      chmodSync(dir, 0o555);
      const script = `const p = require(process.argv[1]); const parser = p.opencodeParser; const w = [];
      const units = parser.listUnits(parser.scan([process.argv[2]]).containers, { onWarning: (m) => w.push(m) });
      const turns = units.length ? parser.parse(units[0]).turns : [];
      const h = p.openOpencodeDatabase(process.argv[2] + "/opencode.db", { busyTimeoutMs: 100 });
      const copyDir = h.copyDir; p.closeOpencodeDatabases();
      console.log(JSON.stringify({ warnings: w, prompt: turns[0]?.prompt, mode: h.mode, copyLeft: require("fs").existsSync(copyDir) }));`;
      const child = Bun.spawn(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bunPath, "-e", script, parserModule, dir],
        {
          stdout: "pipe",
          stderr: "pipe",
          env: { ...process.env, HOME: tmpdir() },
        },
      );
      const [stdout, stderr] = [await new Response(child.stdout).text(), await new Response(child.stderr).text()];
      await child.exited;
      expect(stderr).toBe("");
      expect(JSON.parse(stdout)).toEqual({
        warnings: [],
        prompt: "prompt only in the wal",
        mode: "copy",
        copyLeft: false,
      });
      expect(readdirSync(dir).sort()).toEqual(["opencode.db", "opencode.db-wal"]);
    },
  );
});
