/**
 * The Zed parser (docs/formats/zed.md): the agent panel's threads in `<Zed data>/threads/threads.db`, one SQLite
 * database holding every thread as zstd-compressed JSON (decompressed with Bun's built-in zstd). One container = the
 * database; one unit per thread. Pieces in ./zed/ (source, scan, database, tools, parse).
 * Resume: Zed has no command line that reopens a thread; the closest is opening the project, `zed <folder>`
 * (zed.dev/docs: the `zed` CLI opens paths), whose agent panel history lists the thread.
 */
import { optionSafe } from "./shared/option-safe.ts";
import type { Parser } from "./types.ts";
import { listZedUnits, scanZedRoots, threadsDatabaseName } from "./zed/scan.ts";

export { closeThreadsDatabases } from "./zed/database.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./zed/parse.ts") as typeof import("./zed/parse.ts");

/** The Zed `Parser`: `scan` by stats only; `listUnits` lists thread rows; `parse` reads and decompresses one thread. */
export const zedParser: Parser = {
  id: "zed",
  version: 2, // 2: the thread's detailed_summary is the session's abstract (issue 41)
  scan: (roots) => scanZedRoots(roots),
  listUnits: (containers, hooks) => listZedUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseZedUnit(unit, options),
  // `threads/threads.db` (+ `-wal`), in the root itself: writes start a cycle.
  watch: {
    kind: "tree",
    depth: 0,
    isSessionFile: (name) => name === threadsDatabaseName || name === `${threadsDatabaseName}-wal`,
    missingRootPending: true,
  },
  resumeInvocation: (_sessionId, projectPath) => ({
    cwd: undefined,
    argv: projectPath ? ["zed", ...optionSafe(projectPath)] : ["zed"],
  }),
};
