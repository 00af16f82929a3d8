/** Codex CLI's identity and folders (source-info.ts; formats.md §3.1). */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$CODEX_HOME`, else `~/.codex`. */
export const codexSource: SourceInfo<"codexDir"> = {
  id: "codex",
  displayName: "Codex CLI",
  flag: "codex-dir",
  argName: "codexDir",
  variable: "RECALL_CODEX_DIRS",
  locationVariables: ["CODEX_HOME"],
  help: "Codex CLI data folder holding sessions/ and archived_sessions/ (and history.jsonl: typed prompts), or any copy of them (repeatable; default $CODEX_HOME or ~/.codex; env RECALL_CODEX_DIRS)",
  defaultRoots: (env, home) => [env.CODEX_HOME ? expandPath(env.CODEX_HOME, home) : join(home, ".codex")],
};
