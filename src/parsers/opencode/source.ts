/** OpenCode's identity and folders (source-info.ts; formats.md §2). */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (OpenCode uses the XDG data folder on every platform). */
export const opencodeSource: SourceInfo<"opencodeDir"> = {
  id: "opencode",
  displayName: "OpenCode",
  flag: "opencode-dir",
  argName: "opencodeDir",
  variable: "RECALL_OPENCODE_DIRS",
  locationVariables: ["XDG_DATA_HOME"],
  help: "OpenCode data folder holding opencode.db and/or storage/ (repeatable; default $XDG_DATA_HOME/opencode or ~/.local/share/opencode; env RECALL_OPENCODE_DIRS)",
  defaultRoots: (env, home) => [
    join(env.XDG_DATA_HOME ? expandPath(env.XDG_DATA_HOME, home) : join(home, ".local", "share"), "opencode"),
  ],
};
