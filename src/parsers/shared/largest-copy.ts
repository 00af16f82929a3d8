/**
 * Keeping one copy of each session when a session's file is found more than once (a copy or backup beside the
 * original, or under another root): the largest wins, since these agents' files only grow; of equal sizes the first
 * offered. Used by Copilot CLI, Qwen Code, Codebuff and Mistral Vibe to list their units.
 */
import type { SourceContainer, SourceId, SourceUnit } from "../types.ts";

/** The largest container offered per session id, turned into units once all are offered. */
export class LargestCopies {
  private readonly best = new Map<string, SourceContainer>();

  /** Offer a container holding session `sessionId`; it replaces the one kept only when its `sizeBytes` is larger. */
  offer(sessionId: string, container: SourceContainer): void {
    const current = this.best.get(sessionId);
    if (!current || container.sizeBytes > current.sizeBytes) this.best.set(sessionId, container);
  }

  /**
   * One unit of `source` per session id, in the order the ids were first offered: the kept container's path as key
   * and container path, its fingerprint as change key.
   */
  units(source: SourceId): SourceUnit[] {
    return [...this.best.entries()].map(([sessionId, container]) => ({
      source,
      key: container.path,
      sessionId,
      containerPath: container.path,
      changeKey: container.fingerprint,
    }));
  }
}
