/**
 * Issue 42: the freshness rule (src/index/plan/freshness.ts) for the agents that were scanned whole before every search
 * and now take the quick check: the Cline family (Cline, Roo Code, Kilo Code), whose check re-stats recent chats by
 * path and watches the `tasks` folder and each task folder without a chat (src/parsers/cline/scan.ts); Copilot Chat,
 * the Cursor CLI and the Cursor editor, whose changed folders are walked again alone (copilot-chat/scan.ts,
 * cursor-agent/scan.ts, cursor/scan.ts). Each
 * kind of change an agent makes is found by the next search; what the quick check leaves to the whole scan is found
 * once it is due.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openFreshIndex, type HistoryContext } from "../../../src/service/context.ts";
import { databasePath, openIndex, runIndex } from "../../../src/index/index.ts";
import { freshnessDefaults, quickCheck, type QuickCheck } from "../../../src/index/plan/freshness.ts";
import { createTaskFolderParser } from "../../../src/parsers/cline/parser.ts";
import { copilotChatParser } from "../../../src/parsers/copilot-chat.ts";
import { cursorAgentParser } from "../../../src/parsers/cursor-agent.ts";
import { cursorParser } from "../../../src/parsers/cursor.ts";
import type { Parser, SourceRootMap } from "../../../src/parsers/index.ts";
import { searchIndex } from "../../../src/search/api.ts";
import { readChatFixture, workspaceHash, writeChatStore } from "../../parsers/cursor-agent-store.ts";
import { makeCursorUserFolder } from "../../fixtures/cursor/make-db.ts";

const work = mkdtempSync(join(tmpdir(), "recall-freshness-tasks-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.RECALL_FULL_SCAN_INTERVAL_MS;
});

const dayMs = 24 * 60 * 60 * 1000;
const cline = createTaskFolderParser("cline");
let caseNumber = 0;

/** A Cline chat (`ui_messages.json`): the task's prompt, then the agent's answer. */
function chatText(prompt: string, answer: string, startMs = Date.now()): string {
  return JSON.stringify([
    { ts: startMs, type: "say", say: "text", text: prompt, images: [] },
    { ts: startMs + 1000, type: "say", say: "text", text: answer, partial: false },
  ]);
}

/** Write a chat the way current Cline and Roo Code do (a temporary file renamed over the chat: atomicWriteFile). */
function writeChat(taskDir: string, prompt: string, answer: string): string {
  const chat = join(taskDir, "ui_messages.json");
  writeFileSync(`${chat}.tmp`, chatText(prompt, answer));
  renameSync(`${chat}.tmp`, chat);
  return chat;
}

interface Tasks {
  context: HistoryContext;
  roots: SourceRootMap;
  tasks: string;
}

/** What a search reads: the history's roots and a recall home of its own. */
function contextOf(roots: SourceRootMap, home: string): HistoryContext {
  return {
    recallHome: home,
    paths: { data: home, config: home, cache: home, overridden: true },
    roots,
    usingExamples: false,
    scanned: {},
  };
}

/** A Cline storage folder with one task three months old and one from today. */
function makeTasks(): Tasks {
  const dir = join(work, `case-${++caseNumber}`);
  const tasks = join(dir, "cline", "tasks");
  const old = join(tasks, "1760000000000");
  mkdirSync(old, { recursive: true });
  const oldChat = writeChat(old, "fix the checkout total", "rounded the tax");
  const then = new Date(Date.now() - 90 * dayMs);
  utimesSync(oldChat, then, then);
  utimesSync(old, then, then);
  mkdirSync(join(tasks, "1764000000000"));
  writeChat(join(tasks, "1764000000000"), "start the cart refactor", "on it");
  const roots: SourceRootMap = { cline: [join(dir, "cline")] };
  return { context: contextOf(roots, join(dir, "home")), roots, tasks };
}

/** Run what a search runs before answering, then the keyword search; @returns the session ids found for `query`. */
async function nextSearchFinds(history: { context: HistoryContext }, query: string): Promise<string[]> {
  const db = await openFreshIndex(history.context, { reindex: true });
  try {
    const response = await searchIndex(db, { query, level: "session", filters: {}, mode: "keyword" });
    return response.results.map((result) => ("sessionId" in result ? String(result.sessionId) : ""));
  } finally {
    db.close();
  }
}

/** The quick check of one source against the stored state (without indexing). */
function sourceQuickCheck(
  parser: Parser,
  history: { context: HistoryContext; roots: SourceRootMap },
  nowMs = Date.now(),
): QuickCheck {
  const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
  try {
    return quickCheck(db, parser, history.roots[parser.id]!, {
      nowMs,
      fullScanIntervalMs: freshnessDefaults.fullScanIntervalMs,
    });
  } finally {
    db.close();
  }
}

const clineQuickCheck = (history: Tasks, nowMs = Date.now()) => sourceQuickCheck(cline, history, nowMs);

describe("issue 42: the freshness rule for task folders (Cline, Roo Code, Kilo Code)", () => {
  test("nothing changed: the check re-stats today's chat alone, not every task", async () => {
    const history = makeTasks();
    expect(await nextSearchFinds(history, "checkout")).toEqual(["1760000000000"]);
    expect(clineQuickCheck(history)).toMatchObject({ kind: "unchanged", checkedContainers: 1 });
  });

  test("today's chat rewritten by rename: found from the re-stat'ed chat alone", async () => {
    const history = makeTasks();
    await nextSearchFinds(history, "cart");
    writeChat(join(history.tasks, "1764000000000"), "start the cart refactor, then rename the basket", "renamed");
    const check = clineQuickCheck(history);
    expect(check.kind === "changed" && check.changed.map((entry) => entry.container.path)).toEqual([
      join(history.tasks, "1764000000000", "ui_messages.json"),
    ]);
    expect(await nextSearchFinds(history, "basket")).toEqual(["1764000000000"]);
    expect(clineQuickCheck(history).kind).toBe("unchanged");
  });

  test("a new task whose folder is created before its chat: both steps are found by the next search", async () => {
    const history = makeTasks();
    await nextSearchFinds(history, "cart");
    const task = join(history.tasks, "1765000000000");
    mkdirSync(task);
    expect(clineQuickCheck(history)).toMatchObject({ kind: "whole", reason: "folder changed" });
    expect(await nextSearchFinds(history, "wishlist")).toEqual([]);
    // the folder without a chat is watched: the chat written into it later changes it
    writeChat(task, "add a wishlist page", "added");
    expect(clineQuickCheck(history)).toMatchObject({ kind: "whole", reason: "folder changed" });
    expect(await nextSearchFinds(history, "wishlist")).toEqual(["1765000000000"]);
    expect(clineQuickCheck(history).kind).toBe("unchanged");
  });

  test("a deleted task: the next search keeps its session (the archive) and the check is quiet after", async () => {
    const history = makeTasks();
    await nextSearchFinds(history, "cart");
    rmSync(join(history.tasks, "1764000000000"), { recursive: true });
    expect(clineQuickCheck(history).kind).toBe("whole");
    expect(await nextSearchFinds(history, "cart")).toEqual(["1764000000000"]);
    expect(clineQuickCheck(history).kind).toBe("unchanged");
  });

  test("a task quiet for months resumed in place is left to the whole scan, then found", async () => {
    const history = makeTasks();
    await nextSearchFinds(history, "cart");
    const chat = join(history.tasks, "1760000000000", "ui_messages.json");
    const { mtime } = statSync(chat);
    writeFileSync(chat, chatText("fix the checkout total", "rounded the tax; the refund too"));
    utimesSync(chat, mtime, mtime); // written in place (older Cline) with its time put back: only its size moved
    expect(clineQuickCheck(history).kind).toBe("unchanged");
    expect(await nextSearchFinds(history, "refund")).toEqual([]);
    expect(clineQuickCheck(history, Date.now() + freshnessDefaults.fullScanIntervalMs)).toMatchObject({
      kind: "whole",
      reason: "due",
    });
    process.env.RECALL_FULL_SCAN_INTERVAL_MS = "0"; // the interval has passed
    expect(await nextSearchFinds(history, "refund")).toEqual(["1760000000000"]);
  });
});

/** A VS Code chat session file (the whole-file form): one request and its answer. */
function chatSessionText(sessionId: string, prompt: string, answer: string): string {
  const request = {
    requestId: `request_${sessionId}`,
    message: { parts: [], text: prompt },
    variableData: { variables: [] },
  };
  return JSON.stringify({
    version: 3,
    requesterUsername: "dev",
    responderUsername: "GitHub Copilot",
    initialLocation: "panel",
    sessionId,
    creationDate: Date.now(),
    requests: [{ ...request, response: [{ value: answer }], timestamp: Date.now() }],
  });
}

interface Workspaces {
  context: HistoryContext;
  roots: SourceRootMap;
  /** The `workspaceStorage/<id>` folder of the workspace with today's chats. */
  workspace: string;
  /** Today's chat, a mutation log (`.jsonl`). */
  log: string;
}

/** A VS Code User folder with two workspaces: one with a chat three months old, one with a chat from today. */
function makeWorkspaces(): Workspaces {
  const dir = join(work, `case-${++caseNumber}`);
  const user = join(dir, "Code", "User");
  const old = join(user, "workspaceStorage", "a1");
  mkdirSync(join(old, "chatSessions"), { recursive: true });
  writeFileSync(join(old, "workspace.json"), JSON.stringify({ folder: "file:///home/dev/shop" }));
  const oldChat = join(old, "chatSessions", "old-chat.json");
  writeFileSync(oldChat, chatSessionText("old-chat", "fix the checkout total", "rounded the tax"));
  const then = new Date(Date.now() - 90 * dayMs);
  utimesSync(oldChat, then, then);
  const workspace = join(user, "workspaceStorage", "b2");
  mkdirSync(join(workspace, "chatSessions"), { recursive: true });
  writeFileSync(join(workspace, "workspace.json"), JSON.stringify({ folder: "file:///home/dev/cart" }));
  writeFileSync(join(workspace, "state.vscdb"), "");
  const log = join(workspace, "chatSessions", "live-chat.jsonl");
  const initial = {
    version: 3,
    requesterUsername: "dev",
    responderUsername: "GitHub Copilot",
    initialLocation: "panel",
  };
  writeFileSync(
    log,
    `${JSON.stringify({ kind: 0, v: { ...initial, requests: [], sessionId: "live-chat", creationDate: Date.now() } })}\n`,
  );
  appendRequest(log, "start the cart refactor", "on it");
  const roots: SourceRootMap = { "copilot-chat": [user] };
  return { context: contextOf(roots, join(dir, "home")), roots, workspace, log };
}

/** Append one request and its answer to a mutation log, as VS Code does (a `kind: 2` push onto `requests`). */
function appendRequest(log: string, prompt: string, answer: string): void {
  const request = {
    requestId: `request_${prompt.length}`,
    message: { parts: [], text: prompt },
    variableData: { variables: [] },
  };
  appendFileSync(
    log,
    `${JSON.stringify({ kind: 2, k: ["requests"], v: [{ ...request, response: [{ value: answer }], timestamp: Date.now() }] })}\n`,
  );
}

/** Containers and watched folders the index stores for a source. */
function storedState(recallHome: string, source: string): unknown {
  const db = openIndex(databasePath(recallHome), { readonly: true });
  try {
    return {
      containers: db.query("SELECT path, fingerprint FROM containers WHERE source = ? ORDER BY path").all(source),
      watched: db.query("SELECT path, fingerprint FROM watched_paths WHERE source = ? ORDER BY path").all(source),
    };
  } finally {
    db.close();
  }
}

/**
 * Expect the index the quick checks kept up to date to store what a whole index of the same roots stores for `source`
 * (a fresh RECALL_HOME beside it).
 */
async function expectSameAsWholeIndex(
  history: { context: HistoryContext; roots: SourceRootMap },
  source: string,
): Promise<void> {
  const whole = join(history.context.recallHome, "..", "home-whole");
  await runIndex({ recallHome: whole, roots: history.roots });
  expect(storedState(history.context.recallHome, source)).toEqual(storedState(whole, source));
}

describe("issue 42: the freshness rule for Copilot Chat", () => {
  const copilotQuickCheck = (history: Workspaces) => sourceQuickCheck(copilotChatParser, history);

  test("nothing changed: the check re-stats today's chat alone and the folders, and finds nothing", async () => {
    const history = makeWorkspaces();
    expect(await nextSearchFinds(history, "checkout")).toEqual(["old-chat"]);
    expect(copilotQuickCheck(history)).toMatchObject({ kind: "unchanged", checkedContainers: 1 });
  });

  test("a request appended to today's chat: found from the re-stat'ed file alone (no walk)", async () => {
    const history = makeWorkspaces();
    await nextSearchFinds(history, "cart");
    appendRequest(history.log, "now rename the basket module", "renamed");
    const check = copilotQuickCheck(history);
    expect(check.kind === "changed" && check.rescan).toBeUndefined();
    expect(check.kind === "changed" && check.changed.map((entry) => entry.container.path)).toEqual([history.log]);
    expect(await nextSearchFinds(history, "basket")).toEqual(["live-chat"]);
  });

  test("a new chat: its chatSessions folder alone is walked again; VS Code's own files in a workspace cost that folder; both converge with a whole walk", async () => {
    const history = makeWorkspaces();
    await nextSearchFinds(history, "cart");
    const chat = join(history.workspace, "chatSessions", "new-chat.json");
    writeFileSync(chat, chatSessionText("new-chat", "add a wishlist page", "added"));
    const check = copilotQuickCheck(history);
    expect(check.kind === "changed" && check.rescan?.folders).toEqual([join(history.workspace, "chatSessions")]);
    expect(check.kind === "changed" && check.changed.map((entry) => entry.container.path)).toEqual([chat]);
    expect(await nextSearchFinds(history, "wishlist")).toEqual(["new-chat"]);
    expect(copilotQuickCheck(history).kind).toBe("unchanged");

    writeFileSync(join(history.workspace, "state.vscdb-journal"), "");
    const journal = copilotQuickCheck(history);
    expect(journal.kind === "changed" && journal.rescan?.folders).toEqual([history.workspace]);
    expect(journal.kind === "changed" && journal.changed).toEqual([]);
    await nextSearchFinds(history, "wishlist");
    expect(copilotQuickCheck(history).kind).toBe("unchanged");

    await expectSameAsWholeIndex(history, "copilot-chat");
  });
});

describe("issue 42: the freshness rule for the Cursor CLI (cursor-agent)", () => {
  const chat = readChatFixture();

  /** A `chats` folder with the fixture chat written three months ago and a copy of it under another id from today. */
  function makeChats(): { context: HistoryContext; roots: SourceRootMap; chats: string; live: string } {
    const dir = join(work, `case-${++caseNumber}`);
    const chats = join(dir, "chats");
    const old = writeChatStore(chats, chat);
    const then = new Date(Date.now() - 90 * dayMs);
    utimesSync(old, then, then);
    const live = writeChatStore(chats, { ...chat, chatId: "0b5d4c3a-2f1e-4d9c-8b7a-6e5f4d3c2b1a" });
    const roots: SourceRootMap = { "cursor-agent": [chats] };
    return { context: contextOf(roots, join(dir, "home")), roots, chats, live };
  }
  const agentQuickCheck = (history: ReturnType<typeof makeChats>) => sourceQuickCheck(cursorAgentParser, history);

  test("nothing changed: the check re-stats today's store alone and the folders, and finds nothing", async () => {
    const history = makeChats();
    expect((await nextSearchFinds(history, "nightly export")).sort()).toEqual(
      ["0b5d4c3a-2f1e-4d9c-8b7a-6e5f4d3c2b1a", chat.chatId].sort(),
    );
    expect(agentQuickCheck(history)).toMatchObject({ kind: "unchanged", checkedContainers: 1 });
  });

  test("a new chat: its workspace's folder alone is walked again and the chat found; a write to today's store is re-stat'ed; both converge with a whole walk", async () => {
    const history = makeChats();
    await nextSearchFinds(history, "nightly export");
    const added = writeChatStore(history.chats, { ...chat, chatId: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" });
    const check = agentQuickCheck(history);
    const workspaceFolder = join(history.chats, workspaceHash(new URL(chat.workspace).pathname));
    expect(check.kind === "changed" && check.rescan?.folders).toEqual([workspaceFolder]);
    expect(check.kind === "changed" && check.changed.map((entry) => entry.container.path)).toEqual([added]);
    expect(await nextSearchFinds(history, "nightly export")).toContain("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d");
    expect(agentQuickCheck(history).kind).toBe("unchanged");

    const store = new Database(history.live);
    store.run("insert into meta (key, value) values ('extra', 'x')");
    store.close();
    const written = agentQuickCheck(history);
    expect(written.kind === "changed" && written.changed.map((entry) => entry.container.path)).toEqual([history.live]);
    await nextSearchFinds(history, "nightly export");
    expect(agentQuickCheck(history).kind).toBe("unchanged");

    await expectSameAsWholeIndex(history, "cursor-agent");
  });
});

describe("issue 42: the freshness rule for the Cursor editor", () => {
  /** A Cursor `User` folder: its global database written today, its one workspace's three months ago. */
  function makeCursor(): { context: HistoryContext; roots: SourceRootMap; user: string; globalDb: string } {
    const dir = join(work, `case-${++caseNumber}`);
    const { user, workspaceDb, globalDb } = makeCursorUserFolder(dir);
    mkdirSync(join(user, "workspaceStorage", "ws1", "ms-python.python"));
    writeFileSync(join(user, "workspaceStorage", "ws1", "ms-python.python", "cache.json"), "{}");
    const then = new Date(Date.now() - 90 * dayMs);
    utimesSync(workspaceDb, then, then);
    const roots: SourceRootMap = { cursor: [user] };
    return { context: contextOf(roots, join(dir, "home")), roots, user, globalDb };
  }
  const editorQuickCheck = (history: ReturnType<typeof makeCursor>) => sourceQuickCheck(cursorParser, history);

  test("nothing changed: the check re-stats today's database alone and the folders; extension folders are not walked", async () => {
    const history = makeCursor();
    await nextSearchFinds(history, "cart");
    expect(editorQuickCheck(history)).toMatchObject({ kind: "unchanged", checkedContainers: 1 });
    const watched = JSON.stringify(storedState(history.context.recallHome, "cursor"));
    expect(watched).toContain(join(history.user, "workspaceStorage", "ws1"));
    expect(watched).not.toContain("ms-python.python");
  });

  test("a write to today's database is re-stat'ed; a new workspace or an extension's folder costs its folder alone; all converge with a whole walk", async () => {
    const history = makeCursor();
    await nextSearchFinds(history, "cart");
    const store = new Database(history.globalDb);
    store.run("insert into ItemTable values ('recall.test', 'x')");
    store.close();
    const written = editorQuickCheck(history);
    expect(written.kind === "changed" && written.changed.map((entry) => entry.container.path)).toEqual([
      history.globalDb,
    ]);
    // opening the WAL database made and removed its -wal and -shm beside it: that folder alone is walked again
    expect(written.kind === "changed" && written.rescan?.folders).toEqual([join(history.user, "globalStorage")]);
    await nextSearchFinds(history, "cart");
    expect(editorQuickCheck(history).kind).toBe("unchanged");

    const workspace = join(history.user, "workspaceStorage", "ws2");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "workspace.json"), JSON.stringify({ folder: "file:///home/dev/other" }));
    const added = editorQuickCheck(history);
    expect(added.kind === "changed" && added.rescan?.folders).toEqual([join(history.user, "workspaceStorage")]);
    await nextSearchFinds(history, "cart");
    mkdirSync(join(workspace, "vscode.git"));
    const extension = editorQuickCheck(history);
    expect(extension.kind === "changed" && extension.rescan?.folders).toEqual([workspace]);
    expect(extension.kind === "changed" && extension.changed).toEqual([]);
    await nextSearchFinds(history, "cart");
    expect(editorQuickCheck(history).kind).toBe("unchanged");

    await expectSameAsWholeIndex(history, "cursor");
  });
});
