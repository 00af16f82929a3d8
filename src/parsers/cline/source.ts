/** Cline's identity and folders (source-info.ts; docs/formats/cline.md). */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";
import { editorLocationVariables, extensionStorageRoots } from "./folders.ts";

/**
 * The VS Code extension `saoudrizwan.claude-dev`'s global storage in each editor (folders.ts), holding
 * `tasks/<task id>/` (cline/cline src/core/storage/disk.ts `ensureTaskDirectoryExists`), and the Cline CLI's data folder
 * `$CLINE_DATA_DIR`, else `$CLINE_DIR/data`, else `~/.cline/data`, which holds the same `tasks/<task id>/`
 * (cline/cline apps/vscode/src/sdk/legacy-state-reader.ts `taskDirPath` and src/shared/storage/storage-context.ts
 * `resolveDataDirFromEnv`, @21cb8d25).
 */
export const clineSource: SourceInfo<"clineDir"> = {
  id: "cline",
  displayName: "Cline",
  flag: "cline-dir",
  argName: "clineDir",
  variable: "RECALL_CLINE_DIRS",
  locationVariables: [...editorLocationVariables, "CLINE_DATA_DIR", "CLINE_DIR"],
  help: "Cline data folder holding tasks/<task id>/ui_messages.json: the extension's globalStorage/saoudrizwan.claude-dev or the CLI's ~/.cline/data (repeatable; default ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev and the same in Code - Insiders, VSCodium, Cursor, Windsurf, on macOS under ~/Library/Application Support, on Windows %APPDATA%, plus ~/.cline/data; env RECALL_CLINE_DIRS)",
  defaultRoots(env, home) {
    const cliData = env.CLINE_DATA_DIR
      ? expandPath(env.CLINE_DATA_DIR, home)
      : join(env.CLINE_DIR ? expandPath(env.CLINE_DIR, home) : join(home, ".cline"), "data");
    return [...extensionStorageRoots(env, home, "saoudrizwan.claude-dev"), cliData];
  },
};
