/** Kilo Code's identity and folders (source-info.ts; docs/formats/cline.md, the Cline task-folder family). */
import type { SourceInfo } from "../source-info.ts";
import { editorLocationVariables, extensionStorageRoots } from "../cline/folders.ts";

/**
 * The VS Code extension `kilocode.kilo-code`'s global storage in each editor (cline/folders.ts), holding
 * `tasks/<task id>/` as Roo Code, which it forked (Kilo-Org/kilocode src/shared/globalFileNames.ts @74d6e483). Only
 * that Roo-based extension (4.x) writes these folders; its successor under the same id (packages/kilo-vscode
 * @0060a2a9, built on `@opencode-ai/sdk`) talks to a Kilo CLI server that keeps sessions in its own store, not read here.
 */
export const kiloCodeSource: SourceInfo<"kiloDir"> = {
  id: "kilo-code",
  displayName: "Kilo Code",
  flag: "kilo-dir",
  argName: "kiloDir",
  variable: "RECALL_KILO_DIRS",
  locationVariables: [...editorLocationVariables],
  help: "Kilo Code data folder holding tasks/<task id>/ui_messages.json: the extension's globalStorage/kilocode.kilo-code (repeatable; default ~/.config/Code/User/globalStorage/kilocode.kilo-code and the same in Code - Insiders, VSCodium, Cursor, Windsurf, on macOS under ~/Library/Application Support, on Windows %APPDATA%; env RECALL_KILO_DIRS)",
  defaultRoots: (env, home) => extensionStorageRoots(env, home, "kilocode.kilo-code"),
};
