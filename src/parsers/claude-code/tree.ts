/**
 * The active branch of a Claude Code conversation tree (docs/formats.md §1.7): walk `parentUuid` back
 * from the last user/assistant line, bridging a `compact_boundary` through its `logicalParentUuid`.
 * Rewound (abandoned) branches fall off the path; turns.ts re-admits off-path lines that belong to the
 * path's own messages (split assistant lines, parallel tool results).
 */
import type { Rec } from "./records.ts";

/** Result of {@link findActivePath}. */
export interface ActivePath {
  /** Uuids on the path from the leaf back to the root (or to the anchor). */
  onPath: Set<string>;
  /** False when an anchor was required and the walk did not reach it (the caller must re-parse fully). */
  reachedAnchor: boolean;
}

/**
 * Walk back from the last conversational record of `recs` (file order).
 * @param recs tree records in file order
 * @param anchor when set, the walk must pass this uuid (the last known turn's prompt) and stops there;
 *   reaching a root, a dangling parent or a cycle first yields `reachedAnchor: false`
 * @returns the uuids on the path; empty when `recs` holds no user/assistant line
 */
export function findActivePath(recs: readonly Rec[], anchor: string | null = null): ActivePath {
  const byUuid = new Map<string, Rec>();
  let leaf: Rec | undefined;
  for (const rec of recs) {
    byUuid.set(rec.u, rec);
    if (rec.conv) leaf = rec;
  }
  const onPath = new Set<string>();
  let current = leaf;
  while (current && !onPath.has(current.u)) {
    onPath.add(current.u);
    if (anchor !== null && current.u === anchor) return { onPath, reachedAnchor: true };
    const next: string | null | undefined = current.p ?? current.lp;
    current = next ? byUuid.get(next) : undefined;
  }
  return { onPath, reachedAnchor: anchor === null };
}
