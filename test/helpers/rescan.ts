/**
 * Issue 42: the property `Parser.rescanFolders` promises. Every folder a whole walk of `roots` watched, walked again
 * alone, gives exactly the containers and watched paths the whole walk gave at or below it. A root cannot be walked
 * alone (undefined). Side files outside the folder that the walk also probed are not compared: the freshness check
 * keeps only what lies at or below the folder.
 */
import { expect } from "bun:test";
import { statSync } from "node:fs";
import type { Parser, SourceContainer, WatchedPath } from "../../src/parsers/types.ts";

/** @returns how many folders were compared */
export function expectRescansMatchWholeWalk(parser: Parser, roots: string[]): number {
  const whole = parser.scan(roots);
  let compared = 0;
  for (const folder of whole.watched ?? []) {
    if (!statSync(folder.path, { throwIfNoEntry: false })?.isDirectory()) continue;
    const rescan = parser.rescanFolders!(roots, [folder]);
    if (roots.includes(folder.path)) {
      expect(rescan).toBeUndefined();
      continue;
    }
    const prefix = `${folder.path}/`;
    const below = (entry: { path: string }) => entry.path.startsWith(prefix);
    // a prompt history's mtime is taken as the walk's time (tree-walk.ts addFileContainer): compared without it
    const stable = (containers: SourceContainer[]) => containers.map(({ mtimeMs: _, ...rest }) => rest);
    expect({ folder: folder.path, containers: stable(rescan?.containers ?? []) }).toEqual({
      folder: folder.path,
      containers: stable(whole.containers.filter(below)),
    });
    const sorted = (watched: WatchedPath[]) =>
      watched.filter((entry) => entry.path === folder.path || below(entry)).sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(sorted(rescan?.watched ?? [])).toEqual(sorted(whole.watched ?? []));
    compared++;
  }
  return compared;
}

/** {@link expectRescansMatchWholeWalk} for each of `roots` as the only root (the corpus: one folder per repository). */
export function expectRescansMatchEachRoot(parser: Parser, roots: readonly string[]): number {
  return roots.reduce((compared, root) => compared + expectRescansMatchWholeWalk(parser, [root]), 0);
}
