/**
 * Where a VS Code extension keeps its global storage, for the agents that run as one (Cline, Roo Code, Kilo Code):
 * `<editor user data>/User/globalStorage/<publisher>.<name>` (VS Code's `ExtensionContext.globalStorageUri`). The
 * editors' user data folders: `$XDG_CONFIG_HOME/<Editor>` (else `~/.config/<Editor>`) on Linux, `~/Library/Application
 * Support/<Editor>` on macOS, `%APPDATA%\<Editor>` on Windows. Light: source.ts files read it, no parser code here.
 */
import { join } from "node:path";
import { expandPath, type Environment } from "../shared/folders.ts";

/**
 * The editors whose user data folder may hold the extension, by folder name: VS Code, its Insiders build, VSCodium,
 * and the VS Code forks Cursor and Windsurf (cass reads Cline and Roo Code tasks from `Code` and `Cursor`:
 * Dicklesworthstone/coding_agent_session_search src/connectors/cline.rs @ddf6e98e `candidate_roots`).
 */
export const editorFolderNames = ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"] as const;

/** The environment variables {@link extensionStorageRoots} reads. */
export const editorLocationVariables = ["XDG_CONFIG_HOME", "APPDATA"] as const;

/**
 * The global storage folder of one extension in every editor of {@link editorFolderNames}, on this platform.
 * @param extensionId `<publisher>.<name>` in lower case, e.g. `saoudrizwan.claude-dev`
 * Example (Linux, no XDG_CONFIG_HOME): `~/.config/Code/User/globalStorage/saoudrizwan.claude-dev`, … one per editor.
 */
export function extensionStorageRoots(env: Environment, home: string, extensionId: string): string[] {
  let base: string;
  if (process.platform === "darwin") base = join(home, "Library", "Application Support");
  else if (process.platform === "win32" && env.APPDATA) base = env.APPDATA;
  else base = env.XDG_CONFIG_HOME ? expandPath(env.XDG_CONFIG_HOME, home) : join(home, ".config");
  return editorFolderNames.map((editor) => join(base, editor, "User", "globalStorage", extensionId));
}
