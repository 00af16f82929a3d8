/**
 * GitHub Copilot CLI's identity and folders (source-info.ts; docs/formats/copilot-cli.md). The CLI keeps its state in
 * `$COPILOT_HOME`, else `~/.copilot` on every platform (`%USERPROFILE%\.copilot` on Windows), sessions in
 * `session-state/` (github/copilot-sdk docs/setup/multi-tenancy.md and docs/features/session-persistence.md, commit
 * cc0438d6).
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$COPILOT_HOME`, else `~/.copilot`. */
export const copilotCliSource: SourceInfo<"copilotDir"> = {
  id: "copilot-cli",
  displayName: "GitHub Copilot CLI",
  flag: "copilot-dir",
  argName: "copilotDir",
  variable: "RECALL_COPILOT_DIRS",
  locationVariables: ["COPILOT_HOME"],
  help: "GitHub Copilot CLI folder holding session-state/ (one events.jsonl per session), or any copy of it (repeatable; default $COPILOT_HOME or ~/.copilot; env RECALL_COPILOT_DIRS)",
  defaultRoots: (env, home) => [env.COPILOT_HOME ? expandPath(env.COPILOT_HOME, home) : join(home, ".copilot")],
};
