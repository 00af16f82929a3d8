/**
 * The sessions inside pi session files: one file = one session, named by its header line's `id` (pi names the file
 * `<ISO time with - for :.>_<id>.jsonl`, session-manager.ts `newSession`, but a `--session` file may be named
 * anything, so the header decides).
 */
import { fsReason, isMissingError } from "../file-stats.ts";
import { readHead } from "../shared/read-head.ts";
import { rejectFile } from "../shared/skips.ts";
import type { ParserHooks, SourceContainer, SourceUnit } from "../types.ts";
import { headerOf } from "./entries.ts";

/** Bytes read to find the header line (a header is one short line: id, time, cwd, optional parent path). */
const headBytes = 64 * 1024;

/** What a file's first line says: its session id, or why it holds no session. */
function probe(path: string): { sessionId: string } | { rejected: string } {
  const head = readHead(path, headBytes);
  const first = head.text.split("\n", 1)[0]?.trim() ?? "";
  if (first.length === 0)
    return { rejected: head.whole && head.text.trim().length === 0 ? "empty file" : "no session header" };
  try {
    const value: unknown = JSON.parse(first);
    const header = value !== null && typeof value === "object" ? headerOf(value as Record<string, unknown>) : null;
    return header ? { sessionId: header.id } : { rejected: "no session header" };
  } catch {
    return { rejected: "no session header" };
  }
}

/**
 * One unit per session id (path = key; change key = the file's stats). Two copies of one session (a backup folder
 * given as another root) become one unit: the larger file wins (pi only appends), then the later path.
 * Files without a header are reported through `onRejected`; unreadable ones through `onUnavailable`.
 */
export function listPiUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const best = new Map<string, SourceContainer>();
  for (const container of containers) {
    let probed: ReturnType<typeof probe>;
    try {
      probed = probe(container.path);
    } catch (error) {
      if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    if ("rejected" in probed) {
      rejectFile(hooks, container.path, probed.rejected);
      continue;
    }
    const current = best.get(probed.sessionId);
    if (!current || container.sizeBytes >= current.sizeBytes) best.set(probed.sessionId, container);
  }
  return [...best].map(([sessionId, container]) => ({
    source: "pi",
    key: container.path,
    sessionId,
    containerPath: container.path,
    changeKey: container.fingerprint,
  }));
}
