/** Roo Code's identity and folders (source-info.ts; docs/formats/cline.md, the Cline task-folder family). */
import type { SourceInfo } from "../source-info.ts";
import { editorLocationVariables, extensionStorageRoots } from "../cline/folders.ts";

/**
 * The VS Code extension `rooveterinaryinc.roo-cline`'s global storage in each editor (cline/folders.ts), holding
 * `tasks/<task id>/` (RooCodeInc/Roo-Code src/utils/storage.ts `getTaskDirectoryPath`, @cb836567).
 */
export const rooCodeSource: SourceInfo<"rooDir"> = {
  id: "roo-code",
  displayName: "Roo Code",
  flag: "roo-dir",
  argName: "rooDir",
  variable: "RECALL_ROO_DIRS",
  locationVariables: [...editorLocationVariables],
  help: "Roo Code data folder holding tasks/<task id>/ui_messages.json: the extension's globalStorage/rooveterinaryinc.roo-cline (repeatable; default ~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline and the same in Code - Insiders, VSCodium, Cursor, Windsurf, on macOS under ~/Library/Application Support, on Windows %APPDATA%; env RECALL_ROO_DIRS)",
  defaultRoots: (env, home) => extensionStorageRoots(env, home, "rooveterinaryinc.roo-cline"),
};
