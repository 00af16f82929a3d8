/**
 * OpenClaw's identity and folders (source-info.ts; docs/formats/openclaw.md). OpenClaw (formerly Clawdbot, then
 * Moltbot) keeps its state in `$OPENCLAW_STATE_DIR` (or the older `$CLAWDBOT_STATE_DIR`), else `~/.openclaw` on every
 * platform (`%USERPROFILE%\.openclaw` on Windows); an install that predates the rename still writes to `~/.clawdbot`,
 * `~/.moltbot` or `~/.moldbot`. Transcripts are `agents/<agent id>/sessions/<session id>.jsonl`: openclaw/openclaw
 * `src/config/paths.ts` `resolveStateDir` (commit 009f1606) and `src/config/sessions/paths.ts`
 * `resolveAgentSessionsDir` (commit 00358f66).
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** The state folder names OpenClaw reads, newest first (`src/config/paths.ts` `LEGACY_STATE_DIRNAMES`). */
export const stateDirNames = [".openclaw", ".clawdbot", ".moltbot", ".moldbot"] as const;

/** `$OPENCLAW_STATE_DIR` (else `$CLAWDBOT_STATE_DIR`), else `~/.openclaw` and the legacy folders. */
export const openclawSource: SourceInfo<"openclawDir"> = {
  id: "openclaw",
  displayName: "OpenClaw",
  flag: "openclaw-dir",
  argName: "openclawDir",
  variable: "RECALL_OPENCLAW_DIRS",
  locationVariables: ["OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"],
  help: "OpenClaw state folder holding agents/<agent id>/sessions/<session id>.jsonl, or any copy of it (repeatable; default $OPENCLAW_STATE_DIR or ~/.openclaw, plus the legacy ~/.clawdbot, ~/.moltbot and ~/.moldbot; env RECALL_OPENCLAW_DIRS)",
  defaultRoots(env, home) {
    const override = env.OPENCLAW_STATE_DIR?.trim() || env.CLAWDBOT_STATE_DIR?.trim();
    if (override) return [expandPath(override, home)];
    return stateDirNames.map((name) => join(home, name));
  },
};
