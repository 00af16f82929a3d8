/**
 * Replaying a VS Code chat session mutation log (`<session id>.jsonl`) into the session object it describes
 * (docs/formats/copilot-chat.md), as microsoft/vscode `ObjectMutationLog.read` does
 * (src/vs/workbench/contrib/chat/common/model/objectMutationLog.ts @ce1580aa). One JSON entry per line:
 * - `{kind: 0, v}`: the whole state (first line, and again whenever VS Code compacts the log);
 * - `{kind: 1, k: path, v}`: set the property at `path` (object keys and array indices) to `v`;
 * - `{kind: 2, k: path, v?: items, i?: index}`: cut the array at `path` to length `i` (when given), then append `v`;
 * - `{kind: 3, k: path}`: delete the property at `path`.
 */
import { noteSkip } from "../shared/skips.ts";
import type { SkipReport } from "../types.ts";

type Container = Record<string | number, unknown>;

/** The container holding the last key of `path`, or undefined when a step is missing. */
function parentOf(state: unknown, path: readonly (string | number)[]): Container | undefined {
  let current = state as Container | undefined;
  for (const key of path.slice(0, -1)) {
    const next = current?.[key];
    if (next === null || typeof next !== "object") return undefined;
    current = next as Container;
  }
  return current;
}

/**
 * The state the log ends in; undefined when no line holds an initial state. A line that is not JSON, or whose path
 * leads nowhere, is counted in `skipped` (`<path>:<line>`) and the replay goes on.
 */
export function replayMutationLog(
  text: string,
  path: string,
  skipped: SkipReport,
): Record<string, unknown> | undefined {
  let state: unknown;
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]?.trim();
    if (!line) continue;
    const place = `${path}:${n + 1}`;
    let entry: { kind?: unknown; k?: unknown; v?: unknown; i?: unknown };
    try {
      entry = JSON.parse(line);
    } catch {
      noteSkip(skipped, place, "not JSON");
      continue;
    }
    if (entry.kind === 0) {
      state = entry.v;
      continue;
    }
    const keys = Array.isArray(entry.k) ? (entry.k as (string | number)[]) : [];
    const parent = state === undefined || keys.length === 0 ? undefined : parentOf(state, keys);
    if (!parent) {
      noteSkip(skipped, place, "log entry before its object");
      continue;
    }
    const last = keys[keys.length - 1] as string | number;
    if (entry.kind === 1) parent[last] = entry.v;
    else if (entry.kind === 3) delete parent[last];
    else if (entry.kind === 2) {
      const array = Array.isArray(parent[last]) ? (parent[last] as unknown[]) : [];
      if (typeof entry.i === "number") array.length = entry.i;
      if (Array.isArray(entry.v)) array.push(...entry.v);
      parent[last] = array;
    } else noteSkip(skipped, place, "unknown log entry kind");
  }
  return state !== null && typeof state === "object" && !Array.isArray(state)
    ? (state as Record<string, unknown>)
    : undefined;
}
