/**
 * Issue 10, the search-layer pieces behind the MCP tools: the timeline (the turns nearest an anchor, across
 * sessions and projects) checked against a brute-force reading of every turn, anchors, `recent` with first and
 * last prompts, the project of a working folder, paging arguments, and turn ranges.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../../src/errors.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import {
  pageOf,
  parseCount,
  parseDepth,
  parseFilterArgs,
  parseLimit,
  parseOffset,
  projectOfFolder,
  readTimeline,
  recentSessions,
  resolveTimelineAnchor,
  selectTurnRange,
} from "../../src/search/index.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";

const work = mkdtempSync(join(tmpdir(), "recall-timeline-"));
const root = join(work, "projects");
const start = Date.UTC(2026, 4, 1, 9, 0, 0);
let db: Database;

/** 14 sessions in 3 projects, interleaved in time, one of them long (30 turns) so others run inside it. */
beforeAll(async () => {
  for (let i = 0; i < 14; i++) {
    const project = ["/work/alpha", "/work/beta", "/work/gamma"][i % 3]!;
    const turns = i === 0 ? 30 : 1 + (i % 4);
    writeClaudeSession(
      join(root, project.replaceAll("/", "-"), `0000000${i.toString(16)}-0000-4000-8000-00000000000${i % 10}.jsonl`),
      {
        sessionId: `0000000${i.toString(16)}-0000-4000-8000-00000000000${i % 10}`,
        cwd: project,
        startMs: start + i * 9_973 + 3,
        turns: Array.from({ length: turns }, (_, n) => ({
          prompt: `prompt ${i}.${n + 1}`,
          response: `reply ${i}.${n + 1}`,
        })),
      },
    );
  }
  await runIndex({ recallHome: join(work, "home"), roots: { "claude-code": [root], opencode: [] } });
  db = openIndex(databasePath(join(work, "home")), { readonly: true });
});
afterAll(() => {
  db.close();
  rmSync(work, { recursive: true, force: true });
});

/** Every turn as `<session prefix>:<turn>`, in time order: the oracle. */
function allTurns(project?: string): Array<{ key: string; timestamp: number }> {
  return db
    .query<{ session_id: string; number: number; timestamp: number }, []>(
      `SELECT s.session_id, t.number, t.timestamp FROM turns t JOIN sessions s ON s.id = t.session_rowid WHERE s.is_subagent = 0 ${project ? `AND s.project_path = '${project}'` : ""} ORDER BY t.timestamp, t.session_rowid, t.number`,
    )
    .all()
    .map((row) => ({ key: `${row.session_id.slice(0, 8)}:${row.number}`, timestamp: row.timestamp }));
}
const keys = (entries: Array<{ sessionId: string; turn: number }>) =>
  entries.map((entry) => `${entry.sessionId.slice(0, 8)}:${entry.turn}`);

describe("issue 10: the timeline around an anchor", () => {
  test("for any time, it gives exactly the nearest turns before and after across sessions, oldest first", () => {
    const turns = allTurns();
    expect(new Set(turns.map((turn) => turn.timestamp)).size).toBe(turns.length); // no ties: the order is defined
    for (const at of [
      turns[0]!.timestamp - 1,
      turns[7]!.timestamp,
      turns[20]!.timestamp + 500,
      turns[turns.length - 1]!.timestamp + 1,
    ]) {
      const timeline = readTimeline(db, { at, session: undefined, turn: undefined }, { before: 4, after: 6 });
      const before = turns
        .filter((turn) => turn.timestamp <= at)
        .slice(-4)
        .map((turn) => turn.key);
      const after = turns
        .filter((turn) => turn.timestamp > at)
        .slice(0, 6)
        .map((turn) => turn.key);
      expect([keys(timeline.before), keys(timeline.after)]).toEqual([before, after]);
    }
  });

  test("a turn anchor ends the `before` list, marked, and the project filter keeps one project", () => {
    const anchor = resolveTimelineAnchor(db, "00000003:2");
    const timeline = readTimeline(db, anchor, { before: 3, after: 3, filters: { project: "/work/alpha" } });
    const alpha = allTurns("/work/alpha").map((turn) => turn.key);
    const at = alpha.indexOf("00000003:2");
    expect(keys(timeline.before)).toEqual(alpha.slice(at - 3, at + 1));
    expect(keys(timeline.after)).toEqual(alpha.slice(at + 1, at + 4));
    expect(timeline.before.map((entry) => entry.isAnchor)).toEqual([false, false, false, true]);
    for (const entry of [...timeline.before, ...timeline.after]) expect(entry.projectPath).toBe("/work/alpha");
  });

  test("anchors read as a session (its turn 1), a session:turn, an ISO time or an age; others are usage errors", () => {
    expect(resolveTimelineAnchor(db, "00000005")).toMatchObject({
      turn: 1,
      session: { sessionId: expect.stringMatching(/^00000005/) },
    });
    expect(resolveTimelineAnchor(db, "2026-05-01T09:00:30Z").at).toBe(start + 30_000);
    expect(resolveTimelineAnchor(db, "3d", start).at).toBe(start - 3 * 86_400_000);
    expect(() => resolveTimelineAnchor(db, "00000005:99")).toThrow(/has 2 turns; turn 99 does not exist/);
    expect(() => resolveTimelineAnchor(db, "x y")).toThrow(UsageError);
    expect(() => resolveTimelineAnchor(db, "2026-13-45")).toThrow(/"2026-13-45" is not a date in the calendar/);
  });
});

describe("issue 10: recent sessions and the project of a folder", () => {
  test("recent pages newest first with the first and last prompt of each session", () => {
    const first = recentSessions(db, { project: "/work/beta" }, 2);
    const second = recentSessions(db, { project: "/work/beta" }, 2, first.nextOffset);
    expect(first.nextOffset).toBe(2);
    const sessions = [...first.items, ...second.items];
    expect(sessions.map((session) => session.endedAt)).toEqual(
      sessions.map((session) => session.endedAt).sort((a, b) => b - a),
    );
    const [newest] = first.items;
    const number = Number.parseInt(newest!.sessionId.slice(0, 8), 16);
    expect(newest!.firstPrompt).toBe(`prompt ${number}.1`);
    expect(newest!.lastPrompt).toBe(`prompt ${number}.${newest!.turns}`);
  });

  test("a folder inside an indexed project resolves to it; an unrelated folder to nothing", () => {
    expect(projectOfFolder(db, "/work/gamma/src/deep")).toBe("/work/gamma");
    expect(projectOfFolder(db, "/work/beta")).toBe("/work/beta");
    expect(projectOfFolder(db, "/tmp/elsewhere")).toBeUndefined();
  });
});

describe("issue 10: arguments checked once for the CLI and MCP", () => {
  test("limits, offsets, counts and depths accept whole numbers in range and name the argument otherwise", () => {
    expect([
      parseLimit(undefined, 5),
      parseLimit(1000, 5),
      parseOffset(undefined),
      parseOffset(7),
      parseCount(0, 5, "before", { min: 0, max: 9 }),
    ]).toEqual([5, 1000, 0, 7, 0]);
    expect(() => parseLimit(0, 5)).toThrow("limit must be a whole number from 1 to 1000, got 0");
    expect(() => parseLimit(2.5, 5, "--limit")).toThrow("--limit must be a whole number from 1 to 1000, got 2.5");
    // The upper bound (issue 39: removing it survived every test): one past it is refused, with the same words.
    expect(() => parseLimit(1001, 5)).toThrow("limit must be a whole number from 1 to 1000, got 1001");
    expect(() => parseOffset(-1)).toThrow("offset must be a whole number of at least 0, got -1");
    expect([parseDepth(undefined), parseDepth(1), parseDepth("2")]).toEqual(["session", "session", "turn"]);
    expect(() => parseDepth(3)).toThrow("depth must be 1 (sessions) or 2 (turns), got 3");
  });

  test("filter arguments become the same filters as the CLI's flags", () => {
    const now = Date.UTC(2026, 4, 10);
    expect(parseFilterArgs({ project: "shop", source: "opencode", since: "7d", until: "2026-05-09" }, now)).toEqual({
      project: "shop",
      source: "opencode",
      since: now - 7 * 86_400_000,
      until: Date.UTC(2026, 4, 9, 23, 59, 59, 999),
      branch: undefined,
      includeSubagents: false,
    });
    expect(() => parseFilterArgs({ source: "vim" })).toThrow('unknown source "vim"');
  });

  test("pages know whether another page follows from one extra row", () => {
    expect(pageOf([1, 2, 3], 0, 2)).toEqual({ items: [1, 2], offset: 0, nextOffset: 2 });
    expect(pageOf([3], 2, 2)).toEqual({ items: [3], offset: 2, nextOffset: undefined });
  });

  test("turn ranges are cut at the end of the session and refuse a start past it", () => {
    const turns = Array.from({ length: 5 }, (_, i) => ({ number: i + 1 }) as never);
    expect(selectTurnRange("s", turns, 5, 4, 40)).toMatchObject({ from: 4, to: 5, total: 5 });
    expect(selectTurnRange("s", turns, 5).turns.length).toBe(5);
    expect(() => selectTurnRange("s", turns, 5, 6)).toThrow("session s has 5 turns; turn 6 does not exist");
    expect(() => selectTurnRange("s", turns, 5, 0)).toThrow("from must be a whole number of at least 1, got 0");
    // Issue 15: a session without turns shows its header, and turn 2 of it is an error, not "turns 0-0 of 0".
    expect(selectTurnRange("e", [], 0)).toMatchObject({ from: 0, to: 0, total: 0 });
    expect(() => selectTurnRange("e", [], 0, 2)).toThrow("session e has 0 turns; turn 2 does not exist");
  });
});
