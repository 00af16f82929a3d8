/** Gemini CLI's identity and folders (source-info.ts; formats.md §4.1). */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export const geminiCliSource: SourceInfo<"geminiDir"> = {
  id: "gemini-cli",
  displayName: "Gemini CLI",
  flag: "gemini-dir",
  argName: "geminiDir",
  variable: "RECALL_GEMINI_DIRS",
  locationVariables: ["GEMINI_CLI_HOME"],
  help: "Gemini CLI folder holding tmp/<project>/chats/ (and tmp/<project>/logs.json: typed prompts), or any copy of it (repeatable; default $GEMINI_CLI_HOME/.gemini or ~/.gemini; env RECALL_GEMINI_DIRS)",
  defaultRoots: (env, home) => [join(env.GEMINI_CLI_HOME ? expandPath(env.GEMINI_CLI_HOME, home) : home, ".gemini")],
};
