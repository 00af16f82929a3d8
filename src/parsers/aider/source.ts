/** Aider's identity and folders (source-info.ts). */
import type { SourceInfo } from "../source-info.ts";

/** No home folder: Aider writes `.aider.chat.history.md` in each project, so the index looks in the projects it knows. */
export const aiderSource: SourceInfo<"aiderDir"> = {
  id: "aider",
  displayName: "Aider",
  flag: "aider-dir",
  argName: "aiderDir",
  variable: "RECALL_AIDER_DIRS",
  locationVariables: [],
  help: "Folders searched for Aider's .aider.chat.history.md, besides the project folders of the sessions recall already knows (repeatable; env RECALL_AIDER_DIRS)",
  defaultRoots: () => [],
};
