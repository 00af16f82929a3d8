/**
 * Listing the sessions of agents that keep one session per JSONL file and name it on the first line (pi's `session`
 * header, Factory Droid's `session_start`): one unit per session id, the file's path as key, its fingerprint as change
 * key. Files whose first line is no such header are rejected (issue 26), unreadable ones reported unavailable.
 */
import { fsReason, isMissingError } from "../file-stats.ts";
import type { ParserHooks, SourceContainer, SourceId, SourceUnit } from "../types.ts";
import { readHead } from "./read-head.ts";
import { rejectFile } from "./skips.ts";

/** How one agent's header line names its session. */
export interface HeaderSpec {
  source: SourceId;
  /** The session id of a decoded first line, or null when it is no header of this agent. */
  sessionIdOf(value: Record<string, unknown>): string | null;
  /**
   * The session id read from the opening of a first line too long to read whole (a Droid sub-agent's header holds
   * its whole task), or null.
   */
  sessionIdOfOpening(opening: string): string | null;
  /** The rejection reason of a file whose first line is no header: `no session header`. */
  noHeader: string;
}

/** Bytes read to find the first line (a longer one is judged by its opening). */
const headBytes = 1024 * 1024;

/** What a file's first line says: its session id, or why it holds no session. */
function probe(spec: HeaderSpec, path: string): { sessionId: string } | { rejected: string } {
  const head = readHead(path, headBytes);
  if (head.text.trim().length === 0 && head.whole) return { rejected: "empty file" };
  const newline = head.text.indexOf("\n");
  const first = (newline < 0 ? head.text : head.text.slice(0, newline)).trim();
  let sessionId: string | null = null;
  try {
    const value: unknown = JSON.parse(first);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      sessionId = spec.sessionIdOf(value as Record<string, unknown>);
    }
  } catch {
    if (newline < 0 && !head.whole) sessionId = spec.sessionIdOfOpening(first);
  }
  return sessionId === null ? { rejected: spec.noHeader } : { sessionId };
}

/**
 * One unit per session id. Two copies of one session (a backup folder given as another root) become one unit: the
 * larger file wins (these agents append), then the later path.
 */
export function listHeaderUnits(
  spec: HeaderSpec,
  containers: readonly SourceContainer[],
  hooks: ParserHooks = {},
): SourceUnit[] {
  const best = new Map<string, SourceContainer>();
  for (const container of containers) {
    let probed: ReturnType<typeof probe>;
    try {
      probed = probe(spec, container.path);
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
    source: spec.source,
    key: container.path,
    sessionId,
    containerPath: container.path,
    changeKey: container.fingerprint,
  }));
}
