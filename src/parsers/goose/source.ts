/**
 * Goose's identity and folders (source-info.ts; docs/formats/goose.md). Goose (block/goose) keeps its data in
 * `$GOOSE_PATH_ROOT/data` when that variable holds an absolute path, else in etcetera's app data folder
 * (`crates/goose/src/config/paths.rs` at 0780e228: app "goose", author "Block"): `$XDG_DATA_HOME/goose` or
 * `~/.local/share/goose` (Linux), `~/Library/Application Support/Block/goose` (macOS), `%APPDATA%\Block\goose\data`
 * (Windows). Sessions are in its `sessions/` folder (`sessions.db`).
 */
import { isAbsolute, join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** Goose's data folder: `$GOOSE_PATH_ROOT/data`, else the platform's app data folder. */
export const gooseSource: SourceInfo<"gooseDir"> = {
  id: "goose",
  displayName: "Goose",
  flag: "goose-dir",
  argName: "gooseDir",
  variable: "RECALL_GOOSE_DIRS",
  locationVariables: ["GOOSE_PATH_ROOT", "XDG_DATA_HOME", "APPDATA"],
  help: "Goose data folder holding sessions/sessions.db, or any copy of it (repeatable; default ~/.local/share/goose, on macOS ~/Library/Application Support/Block/goose; env RECALL_GOOSE_DIRS)",
  defaultRoots(env, home) {
    const root = env.GOOSE_PATH_ROOT;
    if (root && isAbsolute(root)) return [join(root, "data")];
    if (process.platform === "darwin") return [join(home, "Library", "Application Support", "Block", "goose")];
    if (process.platform === "win32" && env.APPDATA) return [join(env.APPDATA, "Block", "goose", "data")];
    const data = env.XDG_DATA_HOME ? expandPath(env.XDG_DATA_HOME, home) : join(home, ".local", "share");
    return [join(data, "goose")];
  },
};
