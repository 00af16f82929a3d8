import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SourceError } from "../../src/errors.ts";
import { closeCursorDatabases, createCursorParser, cursorParser } from "../../src/parsers/cursor.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";
import { runIndex } from "../../src/index/index.ts";
import {
  bubbleText,
  composerWorkspacePath,
  epochMs,
  uriPath,
  workspaceFolder,
} from "../../src/parsers/cursor/records.ts";
import { addIssue26Composers, makeCursorUserFolder, secretToken } from "../fixtures/cursor/make-db.ts";

const tempDirs: string[] = [];
afterAll(() => {
  closeCursorDatabases();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function makeTempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "recall-cursor-test-"));
  tempDirs.push(dir);
  return dir;
}

interface Listing {
  units: SourceUnit[];
  warnings: string[];
  unavailable: Array<[string, string]>;
}

function listAll(roots: string[], parser = cursorParser): Listing {
  const warnings: string[] = [];
  const unavailable: Array<[string, string]> = [];
  const units = parser.listUnits(parser.scan(roots).containers, {
    onWarning: (message) => warnings.push(message),
    onUnavailable: (path, reason) => unavailable.push([path, reason]),
  });
  return { units, warnings, unavailable };
}

const unitOf = (units: SourceUnit[], id: string): SourceUnit => {
  const unit = units.find((candidate) => candidate.sessionId === id);
  if (!unit) throw new Error(`no unit ${id}`);
  return unit;
};

describe("cursor scan", () => {
  test("finds the workspace and global databases below a User folder, with db + wal + workspace.json stats", () => {
    const folder = makeCursorUserFolder(makeTempDir());
    const scan = cursorParser.scan([folder.user, join(folder.user, "nope")]);
    expect(scan.containers.map((container) => container.path)).toEqual([folder.globalDb, folder.workspaceDb]);
    expect(scan.containers[1]!.fingerprint).toMatch(/^db\d+:.*\|wal-\|ws\d+:/);
    expect(scan.missingRoots).toEqual([join(folder.user, "nope")]);
    expect(cursorParser.scan([folder.globalDb]).containers.map((container) => container.path)).toEqual([
      folder.globalDb,
    ]);
  });
});

describe("cursor listing", () => {
  const folder = makeCursorUserFolder(makeTempDir());
  const listing = listAll([folder.user]);

  test("one unit per chat tab and composer; drafts and empty composers are not sessions", () => {
    expect(listing.units.map((unit) => unit.sessionId).sort()).toEqual([
      "comp-both",
      "comp-global",
      "comp-inline",
      "comp-sub",
      "tab-1",
    ]);
    expect(listing.unavailable).toEqual([]);
    expect(listing.warnings).toEqual([]);
  });

  test("a composer in both databases is one session: the copy with more messages (global) wins", () => {
    const unit = unitOf(listing.units, "comp-both");
    expect(unit.containerPath).toBe(folder.globalDb);
    expect(unit.locator?.projectPath).toBe("/home/dev/shop");
    const result = cursorParser.parse(unit);
    expect(result.turns.map((turn) => turn.prompt)).toEqual(["global prompt one", "global prompt two"]);
  });

  test("global composers take the project of the workspace db listing them, else their workspaceIdentifier", () => {
    expect(unitOf(listing.units, "comp-global").locator?.projectPath).toBe("/home/dev/shop");
    expect(unitOf(listing.units, "comp-sub").locator?.projectPath).toBe("/home/dev/api");
    expect(unitOf(listing.units, "tab-1").locator?.projectPath).toBe("/home/dev/shop");
  });

  test("opening never writes next to the user's databases (no -wal / -shm left behind)", () => {
    for (const unit of listing.units) cursorParser.parse(unit, { withOutputs: true });
    closeCursorDatabases();
    expect(readdirSync(join(folder.user, "globalStorage"))).toEqual(["state.vscdb"]);
    expect(readdirSync(join(folder.user, "workspaceStorage", "ws1")).sort()).toEqual(["state.vscdb", "workspace.json"]);
  });

  test("auth tokens are never read into any unit or parse result", () => {
    const everything = JSON.stringify([
      listing.units,
      listing.units.map((unit) => cursorParser.parse(unit, { withOutputs: true })),
    ]);
    expect(everything).not.toContain(secretToken);
  });
});

describe("cursor parse", () => {
  const folder = makeCursorUserFolder(makeTempDir());
  const { units } = listAll([folder.user]);

  test("legacy tab: user bubble + ai bubbles per turn, draft dropped, lastSendTime on the last turn; a turn without a time takes the session's start (issue 38, item 19)", () => {
    const result = cursorParser.parse(unitOf(units, "tab-1"));
    expect(result.session).toMatchObject({
      id: "tab-1",
      source: "cursor",
      title: "Cart bug",
      turnCount: 2,
      projectPath: "/home/dev/shop",
      projectName: "shop",
    });
    expect(result.turns.map((turn) => [turn.number, turn.prompt, turn.response, turn.timestamp])).toEqual([
      [1, "why is the cart empty", "The session cookie is dropped.", 1731818231743],
      [2, "fix it", "Fixed in cart.ts.", 1731818231743],
    ]);
    expect(result.session.startedAt).toBe(1731818231743);
    expect(result.skipped.count).toBe(0);
  });

  test("2024 inline composer: file-bound code blocks are Edit calls, content only with outputs", () => {
    const plain = cursorParser.parse(unitOf(units, "comp-inline"));
    expect(plain.session).toMatchObject({ title: "Settings page", startedAt: 1731815068736, endedAt: 1731815328693 });
    expect(plain.turns[0]!.timestamp).toBe(1731815068736);
    expect(plain.turns[0]!.toolCalls).toEqual([
      {
        name: "Edit",
        input: "/home/dev/shop/src/settings.ts",
        filePath: "/home/dev/shop/src/settings.ts",
        isError: false,
      },
    ]);
    expect(plain.turns[0]!.files).toEqual(["/home/dev/shop/src/settings.ts"]);
    const full = cursorParser.parse(unitOf(units, "comp-inline"), { withOutputs: true });
    expect(full.turns[0]!.toolCalls[0]!.output).toBe("export const a = 1;");
  });

  test("global composer: headers order bubbles, thinking excluded, tool calls normalized, broken bubbles counted", () => {
    const result: ParseResult = cursorParser.parse(unitOf(units, "comp-global"));
    expect(result.session).toMatchObject({
      id: "comp-global",
      title: "Agent run",
      gitBranch: "feature/limits",
      startedAt: 1766691308486,
      endedAt: 1766692125731,
      turnCount: 2,
      isSubagent: false,
      location: folder.globalDb,
    });
    const [first, second] = result.turns;
    expect(first!.prompt).toBe("add a rate limiter");
    expect(first!.timestamp).toBe(Date.parse("2025-12-25T19:35:21.759Z"));
    expect(first!.response).toBe("Let me run the tests first.");
    expect(first!.response).not.toContain("THOUGHTS");
    expect(first!.toolCalls).toEqual([
      { name: "Bash", input: "bun test", isError: false },
      {
        name: "Edit",
        input: "src/gateway/router.ts",
        filePath: "src/gateway/router.ts",
        isError: false,
        linesAdded: 3,
        linesRemoved: 2,
      },
      { name: "Read", input: "src/missing.ts", filePath: "src/missing.ts", isError: true },
    ]);
    expect(first!.files).toEqual(["src/gateway/router.ts", "src/missing.ts"]);
    expect(second!.prompt).toBe("now document it"); // from richText when text is empty
    expect(second!.response).toBe("Documented in README.");
    expect(result.skipped.count).toBe(3);
    expect(result.skipped.first).toBe(`${folder.globalDb}: bubbleId:comp-global:gone: missing`);
    expect(result.bytesRead).toBeGreaterThan(0);
    const withOutputs = cursorParser.parse(unitOf(units, "comp-global"), { withOutputs: true });
    expect(withOutputs.turns[0]!.toolCalls[0]!.output).toBe("12 pass");
  });

  test("sub-composer: parent from subComposerIds, Grep call from grep_search", () => {
    const result = cursorParser.parse(unitOf(units, "comp-sub"));
    expect(result.session).toMatchObject({ parentSessionId: "comp-global", isSubagent: true, projectName: "api" });
    expect(result.turns[0]!.isSubagent).toBe(true);
    expect(result.turns[0]!.toolCalls).toEqual([{ name: "Grep", input: "rateLimit *.ts", isError: false }]);
  });

  test("a chat that is gone from its database throws SourceError", () => {
    const unit = { ...unitOf(units, "comp-global"), sessionId: "comp-nowhere" };
    expect(() => cursorParser.parse(unit)).toThrow(SourceError);
  });
});

describe("cursor change keys", () => {
  test("one changed chat moves only its own change key; unchanged turns keep their numbers", () => {
    const folder = makeCursorUserFolder(makeTempDir());
    const before = listAll([folder.user]).units;
    const firstParse = cursorParser.parse(unitOf(before, "comp-global"));
    const db = new Database(folder.globalDb);
    const query = db.query<{ value: string }, []>(
      "select value from cursorDiskKV where key = 'composerData:comp-global'",
    );
    const composer = JSON.parse(String(query.get()!.value));
    query.finalize();
    composer.fullConversationHeadersOnly.push({ bubbleId: "u3", type: 1 }, { bubbleId: "a5", type: 2 });
    composer.lastUpdatedAt = 1766693000000;
    db.run("update cursorDiskKV set value = ? where key = 'composerData:comp-global'", [JSON.stringify(composer)]);
    db.run("insert into cursorDiskKV values (?, ?)", [
      "bubbleId:comp-global:u3",
      JSON.stringify({ type: 1, text: "and add metrics", createdAt: "2025-12-25T20:00:00Z" }),
    ]);
    db.run("insert into cursorDiskKV values (?, ?)", [
      "bubbleId:comp-global:a5",
      JSON.stringify({ type: 2, text: "Metrics added." }),
    ]);
    db.close();
    const after = listAll([folder.user]).units;
    const changed = after
      .filter((unit) => unitOf(before, unit.sessionId).changeKey !== unit.changeKey)
      .map((unit) => unit.sessionId);
    expect(changed).toEqual(["comp-global"]);
    const secondParse = cursorParser.parse(unitOf(after, "comp-global"));
    expect(secondParse.turns.slice(0, 2)).toEqual(firstParse.turns);
    expect(secondParse.turns[2]).toMatchObject({
      number: 3,
      prompt: "and add metrics",
      response: "Metrics added.",
      timestamp: Date.parse("2025-12-25T20:00:00Z"),
    });
  });

  test("an edited bubble body alone (same header) still moves the change key", () => {
    const folder = makeCursorUserFolder(makeTempDir());
    const before = unitOf(listAll([folder.user]).units, "comp-global").changeKey;
    const db = new Database(folder.globalDb);
    db.run("update cursorDiskKV set value = ? where key = 'bubbleId:comp-global:a4'", [
      JSON.stringify({ type: 2, text: "Documented in README and CHANGELOG." }),
    ]);
    db.close();
    expect(unitOf(listAll([folder.user]).units, "comp-global").changeKey).not.toBe(before);
  });
});

describe("cursor live database", () => {
  test("rows still in Cursor's -wal (writer open, not checkpointed) are read", () => {
    const folder = makeCursorUserFolder(makeTempDir());
    const writer = new Database(folder.globalDb);
    writer.run("pragma wal_autocheckpoint = 0");
    writer.run("insert into cursorDiskKV values (?, ?)", [
      "composerData:comp-live",
      JSON.stringify({
        composerId: "comp-live",
        createdAt: 1766700000000,
        fullConversationHeadersOnly: [{ bubbleId: "l1", type: 1 }],
      }),
    ]);
    writer.run("insert into cursorDiskKV values (?, ?)", [
      "bubbleId:comp-live:l1",
      JSON.stringify({ type: 1, text: "still in the wal" }),
    ]);
    try {
      expect(existsSync(`${folder.globalDb}-wal`)).toBe(true);
      const { units } = listAll([folder.user]);
      expect(cursorParser.parse(unitOf(units, "comp-live")).turns[0]!.prompt).toBe("still in the wal");
    } finally {
      closeCursorDatabases();
      writer.close();
    }
  });
});

describe("cursor unavailable databases", () => {
  test("zero-byte, garbage and locked databases are unavailable, never empty; the others still list", () => {
    const dir = makeTempDir();
    const folder = makeCursorUserFolder(dir);
    const emptyDir = join(folder.user, "workspaceStorage", "empty");
    const garbageDir = join(folder.user, "workspaceStorage", "garbage");
    cpSync(join(folder.user, "workspaceStorage", "ws1"), emptyDir, { recursive: true });
    cpSync(join(folder.user, "workspaceStorage", "ws1"), garbageDir, { recursive: true });
    writeFileSync(join(emptyDir, "state.vscdb"), "");
    writeFileSync(
      join(garbageDir, "state.vscdb"),
      "this is not sqlite at all, just text that is long enough to look like a header....",
    );
    const locker = new Database(folder.globalDb);
    locker.run("pragma journal_mode = delete");
    locker.run("begin exclusive");
    try {
      const listing = listAll([folder.user], createCursorParser({ busyTimeoutMs: 50 }));
      const reasons = Object.fromEntries(listing.unavailable);
      expect(reasons[join(emptyDir, "state.vscdb")]).toBe("empty database file (0 bytes)");
      expect(reasons[join(garbageDir, "state.vscdb")]).toBe("file is not a database");
      expect(reasons[folder.globalDb]).toBe("database is locked");
      expect(listing.units.map((unit) => unit.sessionId).sort()).toEqual(["comp-both", "comp-inline", "tab-1"]);
    } finally {
      locker.run("rollback");
      locker.close();
      closeCursorDatabases();
    }
  });

  test("a SQLite file without ItemTable is not a Cursor state database", () => {
    const dir = makeTempDir();
    const path = join(dir, "state.vscdb");
    const db = new Database(path);
    db.run("create table other (x)");
    db.close();
    expect(listAll([dir]).unavailable).toEqual([[path, "not a cursor state database (no ItemTable table)"]]);
  });
});

describe("cursor field readers", () => {
  test("times are epoch ms whether stored as ms, seconds or ISO strings", () => {
    expect(epochMs(1731818231743)).toBe(1731818231743);
    expect(epochMs(1731818231)).toBe(1731818231000);
    expect(epochMs("2025-12-25T19:35:21.759Z")).toBe(1766691321759);
    expect(epochMs("1731818231743")).toBe(1731818231743);
    expect(epochMs(null)).toBe(0);
    expect(epochMs("soon")).toBe(0);
  });

  test("workspace URIs become the folder path the OS wrote, Windows drives included", () => {
    expect(uriPath("file:///home/me/my%20app")).toBe("/home/me/my app");
    expect(uriPath("file:///c%3A/Users/me/app")).toBe("c:/Users/me/app");
    expect(uriPath("vscode-remote://ssh-remote%2Bbox/srv/app")).toBe("/srv/app");
    expect(uriPath("not a uri")).toBe("");
    const dir = makeTempDir();
    writeFileSync(
      join(dir, "workspace.json"),
      JSON.stringify({ workspace: "file:///home/me/multi/all.code-workspace" }),
    );
    expect(workspaceFolder(join(dir, "state.vscdb"))).toBe("/home/me/multi");
    expect(workspaceFolder(join(makeTempDir(), "state.vscdb"))).toBe("");
  });
});

describe("cursor composers in the shapes other readers meet (issue 26)", () => {
  const folder = makeCursorUserFolder(makeTempDir());
  addIssue26Composers(folder.globalDb);
  const rejected: Array<[string, string]> = [];
  const warnings: string[] = [];
  const units = cursorParser.listUnits(cursorParser.scan([folder.user]).containers, {
    onWarning: (message) => warnings.push(message),
    onRejected: (path, reason) => rejected.push([path, reason]),
  });

  test("headers without a type are listed, and each bubble's own type makes the turns", () => {
    const result = cursorParser.parse(unitOf(units, "comp-typeless"));
    expect(result.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [1, "why does the export fail", "The CSV writer is closed too early."],
      [2, "close it after the loop", "Moved `close()` after the loop."],
    ]);
  });

  test("bubble text comes from rawText, content, message or a richText object when text is empty or missing", () => {
    expect(bubbleText({ text: "", rawText: "from rawText" })).toBe("from rawText");
    expect(bubbleText({ content: "from content" })).toBe("from content");
    expect(
      bubbleText({
        content: [
          { type: "text", text: "from" },
          { type: "text", text: "parts" },
        ],
      }),
    ).toBe("from\nparts");
    expect(bubbleText({ text: "  ", message: "from message" })).toBe("from message");
    expect(
      bubbleText({ richText: JSON.stringify({ root: { children: [{ children: [{ text: "from JSON" }] }] } }) }),
    ).toBe("from JSON");
    expect(bubbleText({ text: "", rawText: " " })).toBe("");
  });

  test("the project folder comes from workspaceProjectDir, else the first workspaceUris URI, decoded", () => {
    expect(unitOf(units, "comp-typeless").locator?.projectPath).toBe("/home/dev/exporter");
    const uris = cursorParser.parse(unitOf(units, "comp-uris"));
    expect(uris.session).toMatchObject({ projectPath: "/home/dev/café menu", projectName: "café menu" });
    expect(composerWorkspacePath({ workspaceUris: [{ fsPath: "/srv/app", external: "file:///srv/app" }] })).toBe(
      "/srv/app",
    );
    // A workspace db that lists the composer still names its folder first.
    expect(unitOf(units, "comp-global").locator?.projectPath).toBe("/home/dev/shop");
  });

  test("a bubble row no header lists is counted as not kept, with its place", () => {
    const result = cursorParser.parse(unitOf(units, "comp-typeless"));
    expect(result.skipped).toEqual({
      count: 1,
      first: `${folder.globalDb}: bubbleId:comp-typeless:h0: bubble not in the conversation`,
      reasons: {
        "bubble not in the conversation": { count: 1, first: `${folder.globalDb}: bubbleId:comp-typeless:h0` },
      },
    });
  });

  test("a composer value that is not JSON is rejected as <db>#<key>, not only warned about", () => {
    expect(rejected).toEqual([[`${folder.globalDb}#composerData:comp-broken`, "not a JSON object"]]);
    expect(warnings).toEqual([]);
    expect(units.some((unit) => unit.sessionId === "comp-broken")).toBe(false);
  });

  test("the index reports the rejected composer and forgets it once the value is fixed", async () => {
    const user = makeCursorUserFolder(makeTempDir());
    addIssue26Composers(user.globalDb);
    const home = makeTempDir();
    const first = await runIndex({ recallHome: home, roots: { cursor: [user.user] } });
    expect(first.notKept.rejectedFiles).toEqual([
      { source: "cursor", path: `${user.globalDb}#composerData:comp-broken`, reason: "not a JSON object" },
    ]);
    closeCursorDatabases();
    const db = new Database(user.globalDb);
    db.run("update cursorDiskKV set value = ? where key = 'composerData:comp-broken'", [
      JSON.stringify({ composerId: "comp-broken", fullConversationHeadersOnly: [] }),
    ]);
    db.close();
    const again = await runIndex({ recallHome: home, roots: { cursor: [user.user] }, scan: "whole" });
    expect(again.notKept.rejectedFileCount).toBe(0);
  });
});
