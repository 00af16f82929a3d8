/**
 * The active branches of a Claude Code conversation tree (docs/formats.md §1.7). A file can hold several trees: more
 * than one `parentUuid: null` chain (issue 26: all were dropped but the last), each with its own active branch, the
 * path from its last user/assistant line back to its root; a `compact_boundary` joins the tree before it through its
 * `logicalParentUuid`. Lines on no active branch were rewound past (checkpoint rewind, edited prompt): turns.ts
 * re-admits those that belong to the path's own messages (split assistant lines, parallel tool results) and keeps the
 * rest as rewound turns.
 */
import type { Rec } from "./records.ts";

/** Result of {@link findActivePaths}. */
export interface ActivePaths {
  /** Uuids on every tree's active branch, from each leaf back to its root (or to the anchor). */
  onPath: Set<string>;
  /** False when an anchor was required and the walk from its tree's leaf did not reach it (the caller must re-parse fully). */
  reachedAnchor: boolean;
}

/**
 * The active branch of every tree in `recs` (file order). A tree is the set of records linked by `parentUuid` (or a
 * compaction's `logicalParentUuid`) to one root: a record whose parent is null or not in `recs`. Its leaf is its last
 * user/assistant record in file order.
 * @param anchor when set (a resumed parse: `recs` start at the last known turn's prompt), the tree holding the anchor
 *   must have it on its active branch, else `reachedAnchor` is false; the walk stops at the anchor
 * @returns the uuids on the active branches; empty when `recs` holds no user/assistant line
 * Example: roots r1 (r1 → a1) and r2 (r2 → a2 → p3, and a2 → p3b later): onPath = {r1, a1, r2, a2, p3b}.
 */
export function findActivePaths(recs: readonly Rec[], anchor: string | null = null): ActivePaths {
  const byUuid = new Map<string, Rec>();
  for (const rec of recs) byUuid.set(rec.u, rec);
  const rootOf = new Map<string, string>();
  const leafOfRoot = new Map<string, Rec>();
  for (const rec of recs) {
    const root = findRoot(rec, byUuid, rootOf);
    if (rec.conv) leafOfRoot.set(root, rec);
  }
  const onPath = new Set<string>();
  let reachedAnchor = anchor === null;
  const anchorRoot = anchor === null || !byUuid.has(anchor) ? undefined : rootOf.get(anchor);
  for (const [root, leaf] of leafOfRoot) {
    const stopAt = root === anchorRoot ? anchor : null;
    let current: Rec | undefined = leaf;
    while (current && !onPath.has(current.u)) {
      onPath.add(current.u);
      if (stopAt !== null && current.u === stopAt) {
        reachedAnchor = true;
        break;
      }
      const next: string | null | undefined = current.p ?? current.lp;
      current = next ? byUuid.get(next) : undefined;
    }
  }
  return { onPath, reachedAnchor };
}

/** The root uuid of the tree of every record in `recs` (see {@link findActivePaths}), by record uuid. */
export function treeRootsOf(recs: readonly Rec[]): Map<string, string> {
  const byUuid = new Map<string, Rec>();
  for (const rec of recs) byUuid.set(rec.u, rec);
  const rootOf = new Map<string, string>();
  for (const rec of recs) findRoot(rec, byUuid, rootOf);
  return rootOf;
}

/** The root uuid of `rec`'s tree, memoized in `rootOf` for every record on the way (cycles end at the record met twice). */
function findRoot(rec: Rec, byUuid: ReadonlyMap<string, Rec>, rootOf: Map<string, string>): string {
  const known = rootOf.get(rec.u);
  if (known !== undefined) return known;
  const chain: string[] = [];
  const seen = new Set<string>();
  let current: Rec = rec;
  let root = rec.u;
  for (;;) {
    const cached = rootOf.get(current.u);
    if (cached !== undefined) {
      root = cached;
      break;
    }
    chain.push(current.u);
    seen.add(current.u);
    const next = current.p ?? current.lp;
    const parent = next ? byUuid.get(next) : undefined;
    if (!parent || seen.has(parent.u)) {
      root = current.u;
      break;
    }
    current = parent;
  }
  for (const uuid of chain) rootOf.set(uuid, root);
  return root;
}
