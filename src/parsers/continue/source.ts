/**
 * Continue's identity and folders (source-info.ts; docs/formats/continue.md). Continue (continuedev/continue: the VS
 * Code and JetBrains extensions and the `cn` CLI) keeps its data in `$CONTINUE_GLOBAL_DIR`, else `~/.continue` (Node's
 * `homedir()`, so the same place on Linux, macOS and Windows; `core/util/paths.ts` at d0a3c0b6), sessions in its
 * `sessions/` folder.
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$CONTINUE_GLOBAL_DIR`, else `~/.continue`. */
export const continueSource: SourceInfo<"continueDir"> = {
  id: "continue",
  displayName: "Continue",
  flag: "continue-dir",
  argName: "continueDir",
  variable: "RECALL_CONTINUE_DIRS",
  locationVariables: ["CONTINUE_GLOBAL_DIR"],
  help: "Continue folder holding sessions/<id>.json, or any copy of it (repeatable; default $CONTINUE_GLOBAL_DIR or ~/.continue; env RECALL_CONTINUE_DIRS)",
  defaultRoots: (env, home) => [
    env.CONTINUE_GLOBAL_DIR ? expandPath(env.CONTINUE_GLOBAL_DIR, home) : join(home, ".continue"),
  ],
};
