/**
 * Codebuff's identity and folders (source-info.ts; docs/formats/codebuff.md). The Codebuff CLI (formerly Manicode)
 * keeps its data in `~/.config/manicode` on every platform (`os.homedir()` joined with `.config/manicode`, also on
 * Windows), one folder per project under `projects/<project folder name>/`, one folder per chat under
 * `chats/<chat id>/`: CodebuffAI/codebuff `cli/src/utils/config-dir.ts` `getConfigDir` (commit ce10b6ee) and
 * `cli/src/project-files.ts` `getProjectDataDir`, `getCurrentChatDir` (commit 0794d3f3).
 */
import { join } from "node:path";
import type { SourceInfo } from "../source-info.ts";

/** `~/.config/manicode`. */
export const codebuffSource: SourceInfo<"codebuffDir"> = {
  id: "codebuff",
  displayName: "Codebuff",
  flag: "codebuff-dir",
  argName: "codebuffDir",
  variable: "RECALL_CODEBUFF_DIRS",
  locationVariables: [],
  help: "Codebuff folder holding projects/<project>/chats/<chat id>/chat-messages.json, or any copy of it (repeatable; default ~/.config/manicode; env RECALL_CODEBUFF_DIRS)",
  defaultRoots: (_env, home) => [join(home, ".config", "manicode")],
};
