/**
 * Zed's identity and folders (source-info.ts; docs/formats/zed.md). Zed's agent keeps its threads in
 * `<data dir>/threads/threads.db` (zed-industries/zed crates/agent/src/db.rs @3991ce85 `ThreadsDatabase::new`:
 * `paths::data_dir().join("threads")`). The data dir (zed `crates/paths` `data_dir`): `$FLATPAK_XDG_DATA_HOME/zed`, else
 * `$XDG_DATA_HOME/zed`, else `~/.local/share/zed` on Linux; `~/Library/Application Support/Zed` on macOS;
 * `%LOCALAPPDATA%\Zed` on Windows.
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** Zed's `threads` folder on this platform. */
export const zedSource: SourceInfo<"zedDir"> = {
  id: "zed",
  displayName: "Zed",
  flag: "zed-dir",
  argName: "zedDir",
  variable: "RECALL_ZED_DIRS",
  locationVariables: ["FLATPAK_XDG_DATA_HOME", "XDG_DATA_HOME", "LOCALAPPDATA"],
  help: "Zed threads folder holding threads.db (the agent panel's threads), or any folder or copy of it (repeatable; default ~/.local/share/zed/threads, on macOS ~/Library/Application Support/Zed/threads, on Windows %LOCALAPPDATA%\\Zed\\threads; env RECALL_ZED_DIRS)",
  defaultRoots(env, home) {
    if (process.platform === "darwin") return [join(home, "Library", "Application Support", "Zed", "threads")];
    if (process.platform === "win32" && env.LOCALAPPDATA) return [join(env.LOCALAPPDATA, "Zed", "threads")];
    const data = env.FLATPAK_XDG_DATA_HOME || env.XDG_DATA_HOME;
    return [join(data ? expandPath(data, home) : join(home, ".local", "share"), "zed", "threads")];
  },
};
