/**
 * Where things go on the picker's screen, from the terminal's size: how many rows the list and the preview get, and
 * the cells of each column of a session row (agent, project, relative date, title, weak mark). Readable from 60×15 up;
 * smaller terminals get the same layout cut short.
 */
import { projectLabel } from "../render/format.ts";
import { padWidth, relativeDate } from "./columns.ts";
import { agentName, type PickRow } from "./picker-search.ts";

/** Rows of the screen: query line, status line, list, divider, preview, key hints. */
export interface ScreenLayout {
  columns: number;
  /** Rows for the session (or turn) list. */
  listRows: number;
  /** Rows for the preview pane, below the divider. */
  previewRows: number;
}

/** Fixed lines: the query, the status line, the divider and the key hints. */
const chromeRows = 4;

/**
 * Split a terminal of `columns` × `rows` cells: the list gets 45% of what the fixed lines leave (at least 3 rows), the
 * preview the rest. Examples: 60×15 → list 5, preview 6; 100×40 → list 16, preview 20.
 */
export function screenLayout(columns: number, rows: number): ScreenLayout {
  const free = Math.max(2, rows - chromeRows);
  const listRows = Math.max(Math.min(3, free - 1), Math.floor(free * 0.45));
  return { columns: Math.max(20, columns), listRows, previewRows: Math.max(1, free - listRows) };
}

/** The cells of one session row, each padded to its column's width. */
export interface RowCells {
  agent: string;
  project: string;
  date: string;
  title: string;
  /** `weak` for a match that is not confident, else spaces (same width). */
  weak: string;
}

/** Column widths by terminal width: the title takes what agent, project, date and the marks leave. */
function columnWidths(columns: number): { agent: number; project: number; date: number; weak: number; title: number } {
  const agent = 8;
  const date = 9;
  const weak = 5;
  const project = Math.max(8, Math.min(24, Math.floor(columns * 0.18)));
  // 2 cells for the selection marker, 1 space between columns.
  const title = Math.max(8, columns - 2 - agent - project - date - weak - 4);
  return { agent, project, date, weak, title };
}

/**
 * A session row's cells for a terminal `columns` wide at time `nowMs` (epoch ms). Widths count terminal cells (a CJK
 * character or an emoji is two), so the columns line up whatever the title's script.
 */
export function rowCells(row: PickRow, columns: number, nowMs: number): RowCells {
  const widths = columnWidths(columns);
  return {
    agent: padWidth(agentName(row.source), widths.agent),
    project: padWidth(projectLabel(row.project), widths.project),
    date: padWidth(relativeDate(row.when, nowMs), widths.date),
    title: padWidth(row.title, widths.title),
    weak: padWidth(row.confident ? "" : "weak", widths.weak),
  };
}

/** First row of the list window that keeps `selected` in view with `visible` rows shown (the window scrolls). */
export function windowStart(selected: number, visible: number, count: number): number {
  if (count <= visible) return 0;
  return Math.min(Math.max(0, selected - Math.floor(visible / 2)), count - visible);
}
