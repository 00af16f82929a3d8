/**
 * Mistral Vibe's identity and folders (source-info.ts; docs/formats/mistral-vibe.md). Vibe keeps its data in
 * `$VIBE_HOME`, else `~/.vibe` on every platform (`%USERPROFILE%\.vibe` on Windows), and its session logs in
 * `logs/session/` there unless `session_logging.save_dir` moves them: mistralai/mistral-vibe
 * `vibe/core/paths/_vibe_home.py` `SESSION_LOG_DIR` and `vibe/core/config/models.py` `SessionLoggingConfig`, commit
 * ac8f1a09.
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$VIBE_HOME`, else `~/.vibe`. */
export const mistralVibeSource: SourceInfo<"vibeDir"> = {
  id: "mistral-vibe",
  displayName: "Mistral Vibe",
  flag: "vibe-dir",
  argName: "vibeDir",
  variable: "RECALL_VIBE_DIRS",
  locationVariables: ["VIBE_HOME"],
  help: "Mistral Vibe folder holding logs/session/<session folder>/ (messages.jsonl and meta.json), a session_logging.save_dir, or any copy of them (repeatable; default $VIBE_HOME or ~/.vibe; env RECALL_VIBE_DIRS)",
  defaultRoots: (env, home) => [env.VIBE_HOME ? expandPath(env.VIBE_HOME, home) : join(home, ".vibe")],
};
