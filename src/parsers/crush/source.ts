/**
 * Crush's identity and folders (source-info.ts; docs/formats/crush.md). Crush (charmbracelet/crush) keeps each
 * project's sessions in that project's data folder (`<project>/.crush/crush.db`) and lists the projects it ran in, with
 * their data folders, in `projects.json` in its global data folder (`internal/projects/projects.go`, `internal/config/
 * load.go` `GlobalConfigData` at 37f36e93): `$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, else
 * `~/.local/share/crush` (Linux and macOS) or `%LOCALAPPDATA%\crush` (Windows). recall reads that folder.
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** Crush's global data folder (holding `projects.json`). */
export const crushSource: SourceInfo<"crushDir"> = {
  id: "crush",
  displayName: "Crush",
  flag: "crush-dir",
  argName: "crushDir",
  variable: "RECALL_CRUSH_DIRS",
  locationVariables: ["CRUSH_GLOBAL_DATA", "XDG_DATA_HOME", "LOCALAPPDATA"],
  help: "Crush data folder holding projects.json, a project's .crush folder, or any folder of crush.db files (repeatable; default ~/.local/share/crush; env RECALL_CRUSH_DIRS)",
  defaultRoots(env, home) {
    if (env.CRUSH_GLOBAL_DATA) return [expandPath(env.CRUSH_GLOBAL_DATA, home)];
    if (env.XDG_DATA_HOME) return [join(expandPath(env.XDG_DATA_HOME, home), "crush")];
    if (process.platform === "win32") {
      return [join(env.LOCALAPPDATA || join(home, "AppData", "Local"), "crush")];
    }
    return [join(home, ".local", "share", "crush")];
  },
};
