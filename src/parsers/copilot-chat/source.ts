/**
 * GitHub Copilot Chat's identity and folders (source-info.ts; docs/formats/copilot-chat.md). VS Code itself stores the
 * chat panel's sessions (microsoft/vscode src/vs/workbench/contrib/chat/common/model/chatSessionStore.ts @903fd7e4):
 * `<user data>/User/workspaceStorage/<workspace id>/chatSessions/<session id>.json` (`.jsonl` in newer builds) for a
 * window with a folder, `<user data>/User/globalStorage/emptyWindowChatSessions/` for one without. The user data folder
 * is `$XDG_CONFIG_HOME/Code` (else `~/.config/Code`) on Linux, `~/Library/Application Support/Code` on macOS,
 * `%APPDATA%\Code` on Windows; `Code - Insiders` for the Insiders build.
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** The VS Code builds that ship GitHub Copilot Chat, by user data folder name. */
const editorFolders = ["Code", "Code - Insiders"] as const;

/** The `User` folder of VS Code and VS Code Insiders on this platform. */
export const copilotChatSource: SourceInfo<"copilotChatDir"> = {
  id: "copilot-chat",
  displayName: "GitHub Copilot Chat",
  flag: "copilot-chat-dir",
  argName: "copilotChatDir",
  variable: "RECALL_COPILOT_CHAT_DIRS",
  locationVariables: ["XDG_CONFIG_HOME", "APPDATA"],
  help: "VS Code User folder holding workspaceStorage/<id>/chatSessions/ and globalStorage/emptyWindowChatSessions/, or any folder of chat session files (repeatable; default ~/.config/Code/User and ~/.config/Code - Insiders/User, on macOS under ~/Library/Application Support, on Windows %APPDATA%; env RECALL_COPILOT_CHAT_DIRS)",
  defaultRoots(env, home) {
    let base: string;
    if (process.platform === "darwin") base = join(home, "Library", "Application Support");
    else if (process.platform === "win32" && env.APPDATA) base = env.APPDATA;
    else base = env.XDG_CONFIG_HOME ? expandPath(env.XDG_CONFIG_HOME, home) : join(home, ".config");
    return editorFolders.map((editor) => join(base, editor, "User"));
  },
};
