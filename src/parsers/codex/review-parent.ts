/**
 * The parent of a review sub-agent rollout that does not name it. Codex 0.77 writes `/review` as a
 * separate rollout with `source: {"subagent": "review"}` and no parent id (corpus: 0h-n0, lanegrid
 * samples); the parent rollout records `event_msg entered_review_mode` at the instant the child's
 * `session_meta` was stamped (both 16:48:36.776Z in the real pair). This finds that parent among the
 * rollouts of the same folder and of the 7 date folders before it (a parent lives in the folder of the
 * day it STARTED), reading only files modified after the review started.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { timeOf } from "../shared/fields.ts";

/** Largest distance between the child's start and the parent's `entered_review_mode`, ms. */
export const reviewLinkToleranceMs = 2000;

/** Date folders (…/YYYY/MM/DD) searched before the child's own. */
const earlierDayFolders = 7;

/**
 * The thread id of the rollout that entered review mode when `childPath` started, or null.
 * @param childStartMs the child's `session_meta` time, epoch ms UTC
 * @param onBytes called with the bytes read from each candidate (for `bytesRead`)
 * Never throws: unreadable candidates are passed over.
 */
export function findReviewParent(
  childPath: string,
  childStartMs: number,
  onBytes: (bytes: number) => void,
): string | null {
  if (childStartMs <= 0) return null;
  let best: { id: string; distance: number } | null = null;
  for (const candidate of candidatePaths(childPath)) {
    try {
      if (statSync(candidate).mtimeMs < childStartMs - reviewLinkToleranceMs) continue;
      const text = readFileSync(candidate, "utf8");
      onBytes(Buffer.byteLength(text));
      const distance = reviewDistance(text, childStartMs);
      const id = distance === null ? null : threadIdOf(text, candidate);
      if (id && distance !== null && (!best || distance < best.distance)) best = { id, distance };
    } catch {
      // vanished or unreadable: not the parent we can prove
    }
  }
  return best?.id ?? null;
}

/** Rollout files next to the child and in the earlier date folders, newest folder first. */
function candidatePaths(childPath: string): string[] {
  const folder = dirname(childPath);
  const folders = [folder];
  const day = basename(folder);
  if (/^\d{2}$/.test(day)) {
    const root = dirname(dirname(dirname(folder)));
    const days = listDays(root)
      .filter((path) => path < folder)
      .slice(-earlierDayFolders)
      .reverse();
    folders.push(...days);
  }
  const paths: string[] = [];
  for (const dir of folders) {
    try {
      for (const name of readdirSync(dir))
        if (name.endsWith(".jsonl") && join(dir, name) !== childPath && name !== "history.jsonl")
          paths.push(join(dir, name));
    } catch {
      // a folder that cannot be listed holds no candidate we can read
    }
  }
  return paths;
}

/** `<root>/YYYY/MM/DD` folders, sorted. */
function listDays(root: string): string[] {
  const days: string[] = [];
  const list = (dir: string) => {
    try {
      return readdirSync(dir)
        .filter((name) => /^\d+$/.test(name))
        .sort();
    } catch {
      return [];
    }
  };
  for (const year of list(root))
    for (const month of list(join(root, year)))
      for (const dayName of list(join(root, year, month))) days.push(join(root, year, month, dayName));
  return days;
}

/** Smallest |entered_review_mode time − start| within the tolerance, or null. */
function reviewDistance(text: string, startMs: number): number | null {
  let best: number | null = null;
  for (let at = text.indexOf('"entered_review_mode"'); at >= 0; at = text.indexOf('"entered_review_mode"', at + 1)) {
    const lineStart = text.lastIndexOf("\n", at) + 1;
    const lineEnd = text.indexOf("\n", at);
    try {
      const line = JSON.parse(text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd)) as { timestamp?: unknown };
      const distance = Math.abs(timeOf(line.timestamp) - startMs);
      if (distance <= reviewLinkToleranceMs && (best === null || distance < best)) best = distance;
    } catch {
      // not a whole line
    }
  }
  return best;
}

/** Thread id of a rollout's first line (`session_meta`), else the uuid of its file name. */
function threadIdOf(text: string, path: string): string | null {
  const firstEnd = text.indexOf("\n");
  try {
    const first = JSON.parse(text.slice(0, firstEnd < 0 ? undefined : firstEnd)) as {
      payload?: { id?: unknown; session_id?: unknown };
    };
    const id = first.payload?.id ?? first.payload?.session_id;
    if (typeof id === "string" && id.length > 0) return id;
  } catch {
    // fall back to the name
  }
  return /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(path)?.[1] ?? null;
}
