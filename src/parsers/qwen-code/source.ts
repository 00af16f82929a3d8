/**
 * Qwen Code's identity and folders (source-info.ts; docs/formats/qwen-code.md). Qwen Code keeps its session data in
 * `$QWEN_RUNTIME_DIR`, else `~/.qwen` on every platform (`%USERPROFILE%\.qwen` on Windows): QwenLM/qwen-code
 * `packages/core/src/config/storage.ts` `getRuntimeBaseDir`, commit 013e660f.
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$QWEN_RUNTIME_DIR`, else `~/.qwen`. */
export const qwenCodeSource: SourceInfo<"qwenDir"> = {
  id: "qwen-code",
  displayName: "Qwen Code",
  flag: "qwen-dir",
  argName: "qwenDir",
  variable: "RECALL_QWEN_DIRS",
  locationVariables: ["QWEN_RUNTIME_DIR"],
  help: "Qwen Code folder holding projects/<project>/chats/ (and tmp/<hash>/chats/ of early versions), or any copy of it (repeatable; default $QWEN_RUNTIME_DIR or ~/.qwen; env RECALL_QWEN_DIRS)",
  defaultRoots: (env, home) => [env.QWEN_RUNTIME_DIR ? expandPath(env.QWEN_RUNTIME_DIR, home) : join(home, ".qwen")],
};
