/** Cursor's identity and folders (source-info.ts; formats.md §5). */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/**
 * Cursor's `User` folder (holding `workspaceStorage/` and `globalStorage/`), where VS Code-style apps keep it:
 * `$XDG_CONFIG_HOME/Cursor/User` (Linux), `~/Library/Application Support/Cursor/User` (macOS), `%APPDATA%/Cursor/User`
 * (Windows). Missing ones are reported by the scan.
 */
export const cursorSource: SourceInfo<"cursorDir"> = {
  id: "cursor",
  displayName: "Cursor",
  flag: "cursor-dir",
  argName: "cursorDir",
  variable: "RECALL_CURSOR_DIRS",
  locationVariables: ["XDG_CONFIG_HOME", "APPDATA"],
  help: "Cursor User folder holding workspaceStorage/ and globalStorage/, or any folder of state.vscdb files (repeatable; default ~/.config/Cursor/User, on macOS ~/Library/Application Support/Cursor/User; env RECALL_CURSOR_DIRS)",
  defaultRoots(env, home) {
    if (process.platform === "darwin") return [join(home, "Library", "Application Support", "Cursor", "User")];
    if (process.platform === "win32" && env.APPDATA) return [join(env.APPDATA, "Cursor", "User")];
    const config = env.XDG_CONFIG_HOME ? expandPath(env.XDG_CONFIG_HOME, home) : join(home, ".config");
    return [join(config, "Cursor", "User")];
  },
};
