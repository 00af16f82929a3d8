/**
 * Kimi CLI's identity and folders (source-info.ts; docs/formats/kimi-cli.md). Kimi CLI keeps its data in
 * `$KIMI_SHARE_DIR`, else `~/.kimi` on every platform (`%USERPROFILE%\.kimi` on Windows): MoonshotAI/kimi-cli
 * `src/kimi_cli/share.py` `get_share_dir`, commit 4a550eff.
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$KIMI_SHARE_DIR`, else `~/.kimi`. */
export const kimiCliSource: SourceInfo<"kimiDir"> = {
  id: "kimi-cli",
  displayName: "Kimi CLI",
  flag: "kimi-dir",
  argName: "kimiDir",
  variable: "RECALL_KIMI_DIRS",
  locationVariables: ["KIMI_SHARE_DIR"],
  help: "Kimi CLI folder holding sessions/<work dir hash>/<session id>/wire.jsonl (and kimi.json: the work dirs), or any copy of it (repeatable; default $KIMI_SHARE_DIR or ~/.kimi; env RECALL_KIMI_DIRS)",
  defaultRoots: (env, home) => [env.KIMI_SHARE_DIR ? expandPath(env.KIMI_SHARE_DIR, home) : join(home, ".kimi")],
};
