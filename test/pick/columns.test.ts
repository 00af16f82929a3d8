import { describe, expect, test } from "bun:test";
import { cellWidth, fitWidth, padWidth, relativeDate, wrapToWidth } from "../../src/pick/columns.ts";
import { rowCells, screenLayout, windowStart } from "../../src/pick/layout.ts";
import type { PickRow } from "../../src/pick/picker-search.ts";

const day = 24 * 60 * 60 * 1000;
const now = Date.UTC(2026, 10, 27, 12, 0, 0);

describe("terminal columns", () => {
  test("CJK characters and emoji take two cells; cuts end with … inside the width", () => {
    expect(cellWidth("docker")).toBe(6);
    expect(cellWidth("调度器")).toBe(6);
    expect(cellWidth("🐳")).toBe(2);
    expect(fitWidth("docker network", 8)).toBe("docker …");
    expect(fitWidth("调度器介入", 5)).toBe("调度…");
    expect(fitWidth("调度器介入", 6)).toBe("调度…");
    expect(fitWidth("a 🐳 whale", 4)).toBe("a …");
    expect(fitWidth("line one\n\tline two", 40)).toBe("line one line two");
    expect(fitWidth("anything", 0)).toBe("");
    for (const text of ["修复调度器的内存泄漏问题", "🐳🐳🐳 docker", "plain text that is long"])
      for (const width of [1, 2, 3, 5, 8, 13]) expect(cellWidth(padWidth(text, width))).toBe(width);
  });

  test("relative dates read as a person says them", () => {
    expect(relativeDate(now - 20_000, now)).toBe("now");
    expect(relativeDate(now - 5 * 60_000, now)).toBe("5 min ago");
    expect(relativeDate(now - 3 * 3_600_000, now)).toBe("3 h ago");
    expect(relativeDate(now - 3.5 * day, now)).toBe("3 d ago");
    expect(relativeDate(now - 20 * day, now)).toBe("2 w ago");
    expect(relativeDate(now - 100 * day, now)).toBe("3 mo ago");
    expect(relativeDate(now - 800 * day, now)).toBe("2 y ago");
    expect(relativeDate(now + day, now)).toBe("now");
  });

  test("long lines wrap to the width, colours carried to each row", () => {
    expect(wrapToWidth(["one two three"], 8)).toEqual(["one two", "three"]);
    expect(wrapToWidth(["short", ""], 8)).toEqual(["short", ""]);
    // A word that fills its row exactly: the space after it starts no row (issue 38, item 8).
    expect(wrapToWidth(["one two three"], 7)).toEqual(["one two", "three"]);
    expect(wrapToWidth(["a \u001b[33mbridge network\u001b[39m has no"], 8)).toEqual([
      "a \u001b[33mbridge\u001b[39m",
      "\u001b[33mnetwork\u001b[39m",
      "has no",
    ]);
    const rows = wrapToWidth(["\u001b[31mred words that wrap\u001b[39m"], 10);
    expect(rows.length).toBe(2);
    for (const row of rows) {
      expect(row.startsWith("\u001b[31m")).toBe(true);
      expect(cellWidth(row)).toBeLessThanOrEqual(10);
    }
  });
});

describe("layout", () => {
  const row = (title: string, confident = true): PickRow => ({
    source: "claude-code",
    sessionId: "s1",
    projectPath: "/work/app",
    promptOnly: false,
    sourceStatus: "present",
    isSubagent: false,
    parentSessionId: null,
    project: "app",
    title,
    abstract: "",
    when: now - 3.5 * day,
    confident,
    bestTurn: 1,
    turns: 4,
  });

  test("the screen splits into list and preview and fills the terminal from 60×15 up", () => {
    for (const [columns, rows] of [
      [60, 15],
      [80, 24],
      [100, 40],
      [200, 60],
    ] as const) {
      const layout = screenLayout(columns, rows);
      expect(layout.listRows + layout.previewRows + 4).toBe(rows);
      expect(layout.listRows).toBeGreaterThanOrEqual(3);
      expect(layout.previewRows).toBeGreaterThanOrEqual(3);
    }
  });

  test("a row's columns line up whatever the title's script, and a weak match is marked", () => {
    for (const columns of [60, 100, 160]) {
      const latin = rowCells(row("Fix the docker bridge network"), columns, now);
      const chinese = rowCells(row("修复调度器的内存泄漏问题并补充单元测试", false), columns, now);
      expect(cellWidth(latin.title)).toBe(cellWidth(chinese.title));
      expect(latin.agent).toBe("claude  ");
      expect(latin.date.trim()).toBe("3 d ago");
      expect(latin.weak.trim()).toBe("");
      expect(chinese.weak.trim()).toBe("weak");
      const whole = (cells: typeof latin) =>
        cellWidth(`› ${cells.agent} ${cells.project} ${cells.date} ${cells.title} ${cells.weak}`);
      expect(whole(latin)).toBe(columns);
      expect(whole(chinese)).toBe(columns);
    }
  });

  test("a session without a project is (no project) in its row, as in the CLI and MCP, not - (issue 38, item 18)", () => {
    const noProject = { ...row("what was the release plan?"), projectPath: "", project: "" };
    for (const columns of [80, 100, 160]) {
      const cells = rowCells(noProject, columns, now);
      expect(cells.project.trim()).toBe("(no project)");
      expect(cellWidth(cells.project)).toBe(rowCells(row("x"), columns, now).project.length);
    }
    // At 60 columns the project column is 10 cells wide: the label is cut like any project name.
    expect(rowCells(noProject, 60, now).project).toBe("(no proje…");
  });

  test("the list window scrolls to keep the selection in view", () => {
    expect(windowStart(0, 5, 3)).toBe(0);
    expect(windowStart(2, 5, 50)).toBe(0);
    expect(windowStart(20, 5, 50)).toBe(18);
    expect(windowStart(49, 5, 50)).toBe(45);
  });
});

test("wrapping keeps a line's indentation", () => {
  expect(wrapToWidth(["    [Bash] docker network create appnet"], 20)).toEqual([
    "    [Bash] docker",
    "network create",
    "appnet",
  ]);
});
