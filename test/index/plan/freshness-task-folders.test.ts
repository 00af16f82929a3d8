/**
 * Issue 42: the freshness rule (src/index/plan/freshness.ts) for the Cline family (Cline, Roo Code, Kilo Code), whose
 * scan re-stats recent chats by path and watches the `tasks` folder and each task folder without a chat
 * (src/parsers/cline/scan.ts) instead of stat'ing three files of every task before every search. Each kind of change
 * an agent makes is found by the next search; what the quick check leaves to the whole scan is found once it is due.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openFreshIndex, type HistoryContext } from "../../../src/service/context.ts";
import { databasePath, openIndex } from "../../../src/index/index.ts";
import { freshnessDefaults, quickCheck, type QuickCheck } from "../../../src/index/plan/freshness.ts";
import { createTaskFolderParser } from "../../../src/parsers/cline/parser.ts";
import type { SourceRootMap } from "../../../src/parsers/index.ts";
import { searchIndex } from "../../../src/search/api.ts";

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
  const home = join(dir, "home");
  return {
    context: {
      recallHome: home,
      paths: { data: home, config: home, cache: home, overridden: true },
      roots,
      usingExamples: false,
      scanned: {},
    },
    roots,
    tasks,
  };
}

/** Run what a search runs before answering, then the keyword search; @returns the session ids found for `query`. */
async function nextSearchFinds(history: Tasks, query: string): Promise<string[]> {
  const db = await openFreshIndex(history.context, { reindex: true });
  try {
    const response = await searchIndex(db, { query, level: "session", filters: {}, mode: "keyword" });
    return response.results.map((result) => ("sessionId" in result ? String(result.sessionId) : ""));
  } finally {
    db.close();
  }
}

/** The quick check of the Cline source against the stored state (without indexing). */
function clineQuickCheck(history: Tasks, nowMs = Date.now()): QuickCheck {
  const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
  try {
    return quickCheck(db, cline, history.roots.cline!, {
      nowMs,
      fullScanIntervalMs: freshnessDefaults.fullScanIntervalMs,
    });
  } finally {
    db.close();
  }
}

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
