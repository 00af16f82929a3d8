/**
 * Factory Droid's identity and folders (source-info.ts; docs/formats/droid.md). Droid (Factory's `droid` CLI, closed
 * source) writes sessions under `~/.factory/sessions/` on Linux, macOS and Windows (`C:\Users\<name>\.factory\sessions`):
 * read by peers that way (entireio/cli `cmd/entire/cli/agent/factoryaidroid/session_home.go`, wesm/agentsview,
 * Dicklesworthstone/franken_agent_detection `src/connectors/factory.rs`) and reported by users
 * (Factory-AI/factory issue 1). No environment variable of Droid's own moves it.
 */
import { join } from "node:path";
import type { SourceInfo } from "../source-info.ts";

/** `~/.factory`. */
export const droidSource: SourceInfo<"droidDir"> = {
  id: "droid",
  displayName: "Factory Droid",
  flag: "droid-dir",
  argName: "droidDir",
  variable: "RECALL_DROID_DIRS",
  locationVariables: [],
  help: "Factory Droid folder holding sessions/<project>/<id>.jsonl (and <id>.settings.json), or any copy of it (repeatable; default ~/.factory; env RECALL_DROID_DIRS)",
  defaultRoots: (_env, home) => [join(home, ".factory")],
};
