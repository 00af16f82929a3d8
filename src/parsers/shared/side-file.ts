/**
 * The stats of a file a scan reads beside a session file (a state file, a metadata file, a session index), as a piece
 * of the session file's fingerprint: a change to the side file then changes the container's fingerprint and re-parses
 * it (Codebuff `run-state.json`, Mistral Vibe `meta.json`, Kimi CLI `state.json` and `kimi.json`, OpenClaw
 * `sessions.json`).
 */
import { statSync, type Stats } from "node:fs";
import { statFingerprint } from "../file-stats.ts";
import type { TreeWalk } from "./tree-walk.ts";

/**
 * `statFingerprint` of the file at `path`, or `-` when it cannot be stat'ed (absent); the path is watched through
 * `walk` either way, so the freshness check sees it appear, change or go. Never throws.
 */
export function sideFingerprint(path: string, walk: TreeWalk): string {
  let stats: Stats | undefined;
  try {
    stats = statSync(path);
  } catch {
    stats = undefined;
  }
  walk.watchPath(path, stats);
  return stats ? statFingerprint(stats) : "-";
}
