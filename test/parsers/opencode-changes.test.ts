import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, cpSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { closeOpencodeDatabases, opencodeParser } from "../../src/parsers/opencode.ts";
import type { SourceUnit } from "../../src/parsers/types.ts";
import { createSchema, insertExchange, insertPart, insertSession } from "../fixtures/opencode/make-db.ts";
import { canDropPrivileges, makeSharedTempDir, runAsNobody } from "../helpers/unprivileged.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/opencode");
const parserModule = resolve(import.meta.dir, "../../src/parsers/opencode.ts");
const tempDirs: string[] = [];
afterAll(() => {
  closeOpencodeDatabases();
  for (const dir of tempDirs) {
    Bun.spawnSync(["chmod", "-R", "u+rwx", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

function tempDir(): string {
  const dir = makeSharedTempDir("recall-oc-changes-");
  tempDirs.push(dir);
  return dir;
}

/** A database with one session of one exchange, written by a connection the test keeps (OpenCode's role). */
function liveDb(): { path: string; writer: Database } {
  const path = join(tempDir(), "opencode.db");
  const writer = new Database(path);
  createSchema(writer);
  insertSession(writer, { id: "ses_a", timeCreated: 1000, timeUpdated: 2000 });
  insertExchange(writer, "ses_a", "1", 1100, "why is the cart empty", "Looking.");
  return { path, writer };
}

/** List and parse in a fresh process state (no cached connection), as a new `recall index` run would. */
function listFresh(root: string): SourceUnit[] {
  closeOpencodeDatabases();
  return opencodeParser.listUnits(opencodeParser.scan([root]).containers);
}

describe("OpenCode change keys see every change (issue 9)", () => {
  test("a part added to the newest message, with no message or session time moving, changes the key", () => {
    const { path, writer } = liveDb();
    try {
      const before = listFresh(path)[0]!;
      // The real pattern: parts land after the message's last update (6 of 91 messages in the corpus db).
      writer.run("insert into part values ('prt_1w', 'msg_1v', 'ses_a', 1500, 1500, ?)", [
        JSON.stringify({ type: "text", text: "Found it: the cookie." }),
      ]);
      const after = listFresh(path)[0]!;
      expect(after.changeKey).not.toBe(before.changeKey);
      expect(opencodeParser.parse(after).turns[0]?.response).toBe("Looking.\n\nFound it: the cookie.");
    } finally {
      writer.close();
    }
  });

  test("a part updated in place (a tool call completing) changes the key", () => {
    const { path, writer } = liveDb();
    try {
      insertPart(writer, "ses_a", "msg_1v", "prt_1t", {
        type: "tool",
        callID: "c1",
        tool: "bash",
        state: { status: "running", input: { command: "ls" } },
      });
      const before = listFresh(path)[0]!;
      const completed = {
        type: "tool",
        callID: "c1",
        tool: "bash",
        state: { status: "completed", input: { command: "ls" }, output: "cart.ts", title: "ls", metadata: {} },
      };
      writer.run("update part set data = ?, time_updated = 1600 where id = 'prt_1t'", [JSON.stringify(completed)]);
      expect(listFresh(path)[0]!.changeKey).not.toBe(before.changeKey);
    } finally {
      writer.close();
    }
  });

  test("a same-size rewrite of the database with its mtime put back changes the container fingerprint", async () => {
    const { path, writer } = liveDb();
    writer.close();
    const fingerprint = () => opencodeParser.scan([path]).containers[0]!.fingerprint;
    const stamp = new Date("2026-03-01T10:00:00Z");
    utimesSync(path, stamp, stamp);
    const before = fingerprint();
    const { ino, size } = statSync(path);
    await Bun.sleep(15);
    writeFileSync(path, readFileSync(path));
    utimesSync(path, stamp, stamp);
    expect(statSync(path)).toMatchObject({ ino, size, mtimeMs: stamp.getTime() });
    expect(fingerprint()).not.toBe(before);
  });

  test("JSON storage: a part file of the newest message rewritten in place changes the fingerprint and the change key", async () => {
    const root = tempDir();
    cpSync(join(fixtures, "json-storage", "storage"), join(root, "storage"), { recursive: true });
    const storage = join(root, "storage");
    const scanOnce = () => {
      const containers = opencodeParser.scan([storage]).containers;
      return {
        fingerprint: containers[0]!.fingerprint,
        key: opencodeParser.listUnits(containers).find((unit) => unit.sessionId === "ses_child")!.changeKey,
      };
    };
    const before = scanOnce();
    const partDir = join(storage, "part", "msg_c02");
    const folderTimes = statSync(partDir);
    await Bun.sleep(15);
    const file = join(partDir, "prt_c02b.json");
    writeFileSync(file, readFileSync(file, "utf8").replace(/"text": "[^"]*"/, '"text": "rewritten in place"'));
    utimesSync(partDir, folderTimes.atime, folderTimes.mtime);
    const after = scanOnce();
    expect(after.fingerprint).not.toBe(before.fingerprint);
    expect(after.key).not.toBe(before.key);
  });
});

describe.skipIf(!canDropPrivileges)("OpenCode sources that cannot be read (issue 9; needs root + setpriv)", () => {
  const listScript = `const p = require(process.argv[1]); const parser = p.opencodeParser; const scan = parser.scan([process.argv[2]]);
    const unavailable = [...scan.unavailable.map((e) => [e.path, e.reason])];
    const units = parser.listUnits(scan.containers, { onUnavailable: (path, reason) => unavailable.push([path, reason]) });
    const errors = []; for (const unit of units) { try { parser.parse(unit); } catch (e) { errors.push([unit.sessionId, e.name, e.message]); } }
    console.log(JSON.stringify({ containers: scan.containers.map((c) => c.path), units: units.map((u) => u.sessionId).sort(), unavailable, errors }));`;

  function storageCopy(): { root: string; storage: string } {
    const root = tempDir();
    cpSync(join(fixtures, "json-storage", "storage"), join(root, "storage"), { recursive: true });
    Bun.spawnSync(["chmod", "-R", "a+rX", root]);
    return { root, storage: join(root, "storage") };
  }

  test("an unreadable database file is unavailable, not empty", () => {
    const { path, writer } = liveDb();
    writer.close();
    chmodSync(path, 0o000);
    const result = JSON.parse(runAsNobody(listScript, [parserModule, path]).stdout);
    expect(result).toEqual({ containers: [path], units: [], unavailable: [[path, "permission denied"]], errors: [] });
  });

  test("a JSON storage folder with an unreadable folder inside is reported unavailable as a whole", () => {
    const { storage } = storageCopy();
    chmodSync(join(storage, "message", "ses_main"), 0o000);
    const result = JSON.parse(runAsNobody(listScript, [parserModule, storage]).stdout);
    expect(result).toEqual({
      containers: [],
      units: [],
      unavailable: [[storage, "permission denied (message/ses_main)"]],
      errors: [],
    });
  });

  test("an unreadable data folder is one unavailable path; a storage folder that cannot be entered is reported as the container", () => {
    const { root, storage } = storageCopy();
    const { path, writer } = liveDb();
    writer.close();
    const data = join(root, "data");
    Bun.spawnSync(["mkdir", "-p", data]);
    cpSync(path, join(data, "opencode.db"));
    chmodSync(data, 0o300);
    const unreadableData = JSON.parse(runAsNobody(listScript, [parserModule, data]).stdout);
    expect(unreadableData).toEqual({
      containers: [],
      units: [],
      unavailable: [[data, "permission denied"]],
      errors: [],
    });
    chmodSync(storage, 0o600);
    const closedStorage = JSON.parse(runAsNobody(listScript, [parserModule, root]).stdout);
    expect(closedStorage.unavailable).toEqual([[storage, "permission denied (session)"]]);
  });

  test("an unreadable session file makes listing report the storage unavailable", () => {
    const { storage } = storageCopy();
    chmodSync(join(storage, "session", "prj_app", "ses_child.json"), 0o000);
    const result = JSON.parse(runAsNobody(listScript, [parserModule, storage]).stdout);
    expect(result.units).toEqual([]);
    expect(result.unavailable).toEqual([[storage, "permission denied (session/prj_app/ses_child.json)"]]);
  });

  test("an unreadable part file fails the parse of its session with a clear error; the others parse", () => {
    const { storage } = storageCopy();
    const part = join(storage, "part", "msg_c01", "prt_c01a.json");
    chmodSync(part, 0o000);
    const result = JSON.parse(runAsNobody(listScript, [parserModule, storage]).stdout);
    expect(result.units).toEqual(["ses_child", "ses_main", "ses_shared"]);
    expect(result.errors).toEqual([["ses_child", "SourceError", `cannot read ${part}: permission denied`]]);
  });
});
