/**
 * Finding Mistral Vibe session logs by file stats alone, and naming the session each holds
 * (docs/formats/mistral-vibe.md). Vibe writes one folder per session, `<save dir>/<prefix>_<YYYYmmdd_HHMMSS>_<first 8
 * of the session id>/`, holding `messages.jsonl` (every message but the system prompt, appended) and `meta.json` (id,
 * times, folder, branch, title, token totals; rewritten after each exchange): mistralai/mistral-vibe
 * `vibe/core/session/session_logger.py` and `session_loader.py`, commit ac8f1a09. Like Vibe's own loader
 * (`_read_validated_session`), a folder is a session only when it holds both files; so the ACP log
 * `~/.vibe/logs/acp/messages.jsonl`, which has no `meta.json`, is not one.
 * A root is a Vibe home (only its `logs/session/` is walked), a save dir, one session folder, any folder holding those
 * at some depth (a copy), or one `messages.jsonl`. One container = one `messages.jsonl`; its fingerprint is its stats
 * plus those of the `meta.json` beside it.
 */
import { readFileSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fsReason, isMissingError, statFingerprint } from "../file-stats.ts";
import { asObject } from "../shared/fields.ts";
import { sideFingerprint } from "../shared/side-file.ts";
import { rejectFile } from "../shared/skips.ts";
import { LargestCopies } from "../shared/largest-copy.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit } from "../types.ts";

/** The message log of a session folder. */
export const messagesFileName = "messages.jsonl";

/** The metadata of a session folder. */
export const metadataFileName = "meta.json";

/** Folder names never holding sessions: vendored trees and version control. */
const skippedDirs: ReadonlySet<string> = new Set(["node_modules", ".git"]);

/** Deepest folder level walked below a root. */
export const maxDepth = 8;

/**
 * Every session's `messages.jsonl` below `roots`, fingerprinted `<stats>|meta:<meta.json stats>`.
 * @returns containers unique by file identity, sorted by path; missing roots; unreadable paths (never throws)
 */
export function scanVibeRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isDirectory()) walkDir(root, 0, walk, stats);
    else if (stats.isFile() && basename(root) === messagesFileName) addFile(root, walk, stats);
  });
  return walk.result(missingRoots);
}

function walkDir(dir: string, depth: number, walk: TreeWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  const has = (name: string) => entries.some((entry) => entry.name === name);
  if (has("logs") && !has(messagesFileName)) {
    walkDir(join(dir, "logs", "session"), depth + 2, walk); // a Vibe home: only its session logs
    return;
  }
  if (has(messagesFileName) && has(metadataFileName)) {
    addFile(join(dir, messagesFileName), walk);
    return; // a session folder
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) walkDir(join(dir, entry.name), depth + 1, walk);
  }
}

function addFile(path: string, walk: TreeWalk, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  const meta = sideFingerprint(join(dirname(path), metadataFileName), walk);
  walk.addContainer("mistral-vibe", path, stats, `${statFingerprint(stats)}|meta:${meta}`);
}

/**
 * The session's `meta.json` as an object; null when it is missing or not a JSON object (being replaced: Vibe writes a
 * temporary file and renames it, so this is rare).
 * @throws the fs error when it exists but cannot be read
 */
export function readMeta(messagesPath: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(join(dirname(messagesPath), metadataFileName), "utf8");
  } catch (error) {
    if (isMissingError(error)) return null;
    throw error;
  }
  try {
    return asObject(JSON.parse(text)) ?? null;
  } catch {
    return null;
  }
}

/**
 * Units of all containers, one per session id: `meta.json`'s `session_id`, else the folder's name. Two folders of one
 * session (a copy) become one unit: the larger log wins (logs are append-only). A folder whose `meta.json` holds no
 * object is reported through `onRejected` (`not a Mistral Vibe session`); one that cannot be read through
 * `onUnavailable`.
 */
export function listVibeUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const best = new LargestCopies();
  for (const container of containers) {
    let meta: Record<string, unknown> | null;
    try {
      meta = readMeta(container.path);
    } catch (error) {
      hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    if (meta === null) {
      rejectFile(hooks, container.path, "not a Mistral Vibe session");
      continue;
    }
    const id =
      typeof meta.session_id === "string" && meta.session_id ? meta.session_id : basename(dirname(container.path));
    best.offer(id, container);
  }
  return best.units("mistral-vibe");
}
