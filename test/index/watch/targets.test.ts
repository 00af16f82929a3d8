import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventEffect, isIgnored, planWatchTargets, type WatchTarget } from "../../../src/index/watch/targets.ts";

const work = mkdtempSync(join(tmpdir(), "recall-watch-targets-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const session = "0a1b2c3d-1111-4111-8111-111111111111";
const home = join(work, "recall-home");
const none = new Set<string>();

function touch(path: string, text = ""): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe("watch targets (issue 10): a few folders per root, never one watch per file", () => {
  test("a .claude folder is watched at its projects/ folder, 16 levels deep; a missing OpenCode root waits at its nearest existing ancestor", () => {
    const claude = join(work, "a", ".claude");
    mkdirSync(join(claude, "projects", "-home-dev-x"), { recursive: true });
    const targets = planWatchTargets({ "claude-code": [claude], opencode: [join(work, "a", "share", "opencode")] });
    expect(targets).toEqual([
      { source: "claude-code", root: claude, kind: "claude-tree", path: join(claude, "projects"), depth: 16 },
      {
        source: "opencode",
        root: join(work, "a", "share", "opencode"),
        kind: "pending",
        path: join(work, "a"),
        depth: 0,
        file: join(work, "a", "share", "opencode"),
      },
    ]);
  });

  test("an OpenCode data folder is watched alone (depth 0), plus its JSON storage (depth 2) and legacy project/ tree", () => {
    const data = join(work, "b", "opencode");
    touch(join(data, "opencode.db"));
    mkdirSync(join(data, "storage", "session", "global"), { recursive: true });
    mkdirSync(join(data, "project", "p1", "storage", "session", "info"), { recursive: true });
    mkdirSync(join(data, "snapshot", "p1", "objects"), { recursive: true });
    expect(
      planWatchTargets({ "claude-code": [], opencode: [data] }).map((target) => [
        target.kind,
        target.path,
        target.depth,
      ]),
    ).toEqual([
      ["opencode-data", data, 0],
      ["opencode-storage", join(data, "storage"), 2],
      ["opencode-legacy", join(data, "project"), 16],
    ]);
  });

  test("a root that is one file is watched through its folder; the same root twice is one target; a file of another type none", () => {
    const file = touch(join(work, "c", `${session}.jsonl`));
    const db = touch(join(work, "c", "opencode-stable.db"));
    const notes = touch(join(work, "c", "notes.txt"));
    const targets = planWatchTargets({ "claude-code": [file, file], opencode: [db, notes] });
    expect(targets.map((target) => [target.kind, target.path, target.file])).toEqual([
      ["claude-file", join(work, "c"), file],
      ["opencode-file", join(work, "c"), db],
    ]);
  });

  test("in a Claude tree, files, auxiliary folders and session folders are not watched until their session is active", () => {
    const root = join(work, "d", "projects");
    const project = join(root, "-home-dev-y");
    const transcript = touch(join(project, `${session}.jsonl`));
    mkdirSync(join(project, session, "subagents"), { recursive: true });
    mkdirSync(join(project, "memory"), { recursive: true });
    const target: WatchTarget = { source: "claude-code", root, kind: "claude-tree", path: root, depth: 16 };
    const ignored = (path: string, hot = none) => isIgnored(target, path, statSync(path), hot, home);
    expect(ignored(root)).toBe(false);
    expect(ignored(project)).toBe(false);
    expect(ignored(transcript)).toBe(true);
    expect(ignored(join(project, "memory"))).toBe(true);
    expect(ignored(join(project, session))).toBe(true);
    expect(ignored(join(project, session), new Set([join(project, session)]))).toBe(false);
    expect(ignored(join(project, session, "subagents"))).toBe(false);
  });

  test("the index folder is never watched, even inside a root (its own writes must not start cycles)", () => {
    const root = join(work, "e");
    mkdirSync(join(root, "recall-home"), { recursive: true });
    const target: WatchTarget = { source: "claude-code", root, kind: "claude-tree", path: root, depth: 16 };
    expect(
      isIgnored(
        target,
        join(root, "recall-home"),
        statSync(join(root, "recall-home")),
        none,
        join(root, "recall-home"),
      ),
    ).toBe(true);
  });

  test("Claude events: a transcript write indexes and makes its session folder hot; side files do nothing; the root vanishing re-plans", () => {
    const root = "/h/.claude/projects";
    const target: WatchTarget = { source: "claude-code", root, kind: "claude-tree", path: root, depth: 16 };
    expect(eventEffect(target, `${root}/-p/${session}.jsonl`)).toEqual({
      index: true,
      replan: false,
      hot: `${root}/-p/${session}`,
    });
    expect(eventEffect(target, `${root}/-p/${session}/subagents/agent-a1.jsonl`)).toEqual({
      index: true,
      replan: false,
    });
    expect(eventEffect(target, `${root}/-p/${session}/subagents/agent-a1.meta.json`)).toEqual({
      index: true,
      replan: false,
    });
    expect(eventEffect(target, `${root}/-p/${session}`)).toEqual({
      index: true,
      replan: false,
      hot: `${root}/-p/${session}`,
    });
    expect(eventEffect(target, `${root}/-new-project`)).toEqual({ index: true, replan: false });
    for (const path of [
      `${root}/-p/sessions-index.json`,
      `${root}/-p/memory`,
      `${root}/-p/notes.md`,
      `${root}/history.jsonl`,
    ]) {
      expect(eventEffect(target, path)).toEqual({ index: false, replan: false });
    }
    expect(eventEffect(target, root)).toEqual({ index: true, replan: true });
  });

  test("OpenCode events: the db and its -wal index, -shm and logs do not, storage/ appearing re-plans, new message folders become hot", () => {
    const data = "/h/.local/share/opencode";
    const target: WatchTarget = { source: "opencode", root: data, kind: "opencode-data", path: data, depth: 0 };
    expect(eventEffect(target, `${data}/opencode.db`).index).toBe(true);
    expect(eventEffect(target, `${data}/opencode.db-wal`).index).toBe(true);
    expect(eventEffect(target, `${data}/opencode-beta.db-wal`).index).toBe(true);
    expect(eventEffect(target, `${data}/opencode.db-shm`).index).toBe(false);
    expect(eventEffect(target, `${data}/auth.json`).index).toBe(false);
    expect(eventEffect(target, `${data}/storage`)).toEqual({ index: true, replan: true });
    const storage: WatchTarget = {
      source: "opencode",
      root: data,
      kind: "opencode-storage",
      path: `${data}/storage`,
      depth: 2,
    };
    expect(eventEffect(storage, `${data}/storage/part/msg_1`)).toEqual({
      index: true,
      replan: false,
      hot: `${data}/storage/part/msg_1`,
    });
    expect(eventEffect(storage, `${data}/storage/session/global/ses_1.json`)).toEqual({ index: true, replan: false });
  });

  test("a pending root re-plans only when the next component of its path appears", () => {
    const target: WatchTarget = {
      source: "opencode",
      root: "/h/.local/share/opencode",
      kind: "pending",
      path: "/h/.local",
      depth: 0,
      file: "/h/.local/share/opencode",
    };
    expect(eventEffect(target, "/h/.local/share")).toEqual({ index: false, replan: true });
    expect(eventEffect(target, "/h/.local/state")).toEqual({ index: false, replan: false });
    expect(eventEffect(target, "/h/.local")).toEqual({ index: false, replan: true });
  });

  test("Codex and Gemini data folders are watched as one tree each (depth 6); session files and new folders index, logs and databases do not", () => {
    const codex = join(work, "c", ".codex");
    mkdirSync(join(codex, "sessions", "2026", "04", "20"), { recursive: true });
    const gemini = join(work, "c", ".gemini");
    const targets = planWatchTargets({ codex: [codex], "gemini-cli": [gemini] });
    expect(targets).toEqual([
      { source: "codex", root: codex, kind: "agent-tree", path: codex, depth: 6 },
      { source: "gemini-cli", root: gemini, kind: "pending", path: join(work, "c"), depth: 0, file: gemini },
    ]);
    const tree = targets[0]!;
    expect(
      eventEffect(tree, join(codex, "sessions", "2026", "04", "20", "rollout-2026-04-20T03-55-01-x.jsonl")),
    ).toEqual({ index: true, replan: false });
    expect(eventEffect(tree, join(codex, "session_index.jsonl"))).toEqual({ index: true, replan: false });
    expect(eventEffect(tree, join(codex, "sessions", "2026", "04", "21"))).toEqual({ index: true, replan: false });
    expect(eventEffect(tree, join(codex, "log", "codex-tui.log"))).toEqual({ index: false, replan: false });
    expect(eventEffect(tree, join(codex, "state_5.sqlite-wal"))).toEqual({ index: false, replan: false });
    expect(isIgnored(tree, join(codex, "node_modules"), statSync(codex), none, home)).toBe(true);
    expect(isIgnored(tree, join(codex, "sessions"), statSync(codex), none, home)).toBe(false);
  });

  test("a Cursor User folder is watched two levels down for state.vscdb; an Aider project folder alone, for its history file", () => {
    const cursor = join(work, "d", "Cursor", "User");
    mkdirSync(join(cursor, "workspaceStorage", "f87f6e0b"), { recursive: true });
    const project = join(work, "d", "shop");
    mkdirSync(project, { recursive: true });
    const targets = planWatchTargets({ cursor: [cursor], aider: [project, join(work, "d", "gone")] });
    expect(targets).toEqual([
      { source: "cursor", root: cursor, kind: "agent-tree", path: cursor, depth: 2 },
      { source: "aider", root: project, kind: "agent-tree", path: project, depth: 0 },
    ]);
    const [cursorTree, aiderFolder] = targets as [WatchTarget, WatchTarget];
    expect(eventEffect(cursorTree, join(cursor, "workspaceStorage", "f87f6e0b", "state.vscdb-wal"))).toEqual({
      index: true,
      replan: false,
    });
    expect(eventEffect(cursorTree, join(cursor, "globalStorage", "state.vscdb.backup"))).toEqual({
      index: false,
      replan: false,
    });
    expect(eventEffect(aiderFolder, join(project, ".aider.chat.history.md"))).toEqual({ index: true, replan: false });
    expect(eventEffect(aiderFolder, join(project, "src"))).toEqual({ index: false, replan: false });
    expect(eventEffect(aiderFolder, join(project, "main.py"))).toEqual({ index: false, replan: false });
  });
});
