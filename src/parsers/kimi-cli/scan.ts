/**
 * Finding Kimi CLI wire logs by file stats alone, and naming the session each holds (docs/formats/kimi-cli.md). A
 * session is a folder `<share dir>/sessions/<work dir hash>/<session id>/` holding `wire.jsonl` (every message of the
 * session, read here), `context.jsonl` (the model's context, rewritten by compaction: not read), `state.json` (title,
 * approvals) and `subagents/<agent id>/` (each sub-agent's own copy of the events its parent's wire also records: not
 * read): MoonshotAI/kimi-cli `src/kimi_cli/session.py`, `wire/file.py`, `subagents/store.py`, commit 4a550eff.
 * A root is a share dir (only its `sessions/` is walked), a `sessions/` folder, any folder holding session folders at
 * some depth, or one wire file. One container = one wire file = one unit. Its fingerprint holds the stats of the wire
 * file, of the session's `state.json` (the title) and of the share dir's `kimi.json` (the project paths).
 */
import type { Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fsReason, isMissingError, statFingerprint } from "../file-stats.ts";
import { asObject } from "../shared/fields.ts";
import { readHead } from "../shared/read-head.ts";
import { sideFingerprint } from "../shared/side-file.ts";
import { rejectFile } from "../shared/skips.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit } from "../types.ts";
import { metadataFileName, readWorkDirs, sessionsDirName, shareDirOf } from "./work-dirs.ts";

/** The wire log of a session folder. */
export const wireFileName = "wire.jsonl";

/** The state file of a session folder (`custom_title`). */
export const stateFileName = "state.json";

/** Folder names never holding sessions: sub-agent copies, vendored trees, Kimi's other state. */
export const skippedDirs: ReadonlySet<string> = new Set(["subagents", "node_modules", ".git", "logs", "bin", "skills"]);

/** Deepest folder level walked below a root. */
export const maxDepth = 8;

/** Mutable state of one scan: the shared bookkeeping plus the `kimi.json` stats per share dir. */
class KimiWalk extends TreeWalk {
  readonly metadataStats = new Map<string, string>();
}

/**
 * Every wire log below `roots`, fingerprinted `<wire stats>|state:<state.json stats or ->|meta:<kimi.json stats or ->`.
 * @returns containers unique by file identity, sorted by path; missing roots; unreadable paths (never throws)
 */
export function scanKimiRoots(roots: readonly string[]): ScanResult {
  const walk = new KimiWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isDirectory()) walkDir(root, 0, walk, stats);
    else if (stats.isFile() && root.endsWith(".jsonl")) addFile(root, walk, stats);
  });
  return walk.result(missingRoots);
}

function walkDir(dir: string, depth: number, walk: KimiWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  const sessions = entries.find(
    (entry) => entry.name === sessionsDirName && (entry.isDirectory() || entry.isSymbolicLink()),
  );
  if (sessions && entries.some((entry) => entry.name === metadataFileName)) {
    walkDir(join(dir, sessionsDirName), depth + 1, walk); // a share dir: only its sessions
    return;
  }
  if (entries.some((entry) => entry.name === wireFileName && (entry.isFile() || entry.isSymbolicLink()))) {
    addFile(join(dir, wireFileName), walk); // a session folder: its sub-agents are not walked
    return;
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) walkDir(join(dir, entry.name), depth + 1, walk);
  }
}

function addFile(path: string, walk: KimiWalk, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  const state = sideFingerprint(join(dirname(path), stateFileName), walk);
  const share = shareDirOf(path);
  let meta = "-";
  if (share !== null) {
    meta = walk.metadataStats.get(share) ?? sideFingerprint(join(share, metadataFileName), walk);
    walk.metadataStats.set(share, meta);
  }
  walk.addContainer("kimi-cli", path, stats, `${statFingerprint(stats)}|state:${state}|meta:${meta}`);
}

/** Bytes read from a wire log's start to find its first line. */
const headBytes = 64 * 1024;

/**
 * What the first line of a candidate file is: `wire` for Kimi's header `{"type":"metadata","protocol_version":…}` or
 * a record `{"timestamp":…,"message":{"type":…,"payload":{…}}}` (files written before the header, protocol 1.1), `empty`
 * for a file of white space, `other` for anything else.
 * @throws the fs error when the file cannot be read
 */
export function probeWire(path: string): "wire" | "empty" | "other" {
  const head = readHead(path, headBytes);
  const trimmed = head.text.trimStart();
  if (trimmed.length === 0) return head.whole ? "empty" : "other";
  const newline = trimmed.indexOf("\n");
  const first = newline < 0 ? trimmed : trimmed.slice(0, newline);
  let value: Record<string, unknown> | undefined;
  try {
    value = asObject(JSON.parse(first));
  } catch {
    return /^\{\s*"(timestamp|type)"\s*:/.test(first) && !head.whole ? "wire" : "other";
  }
  if (value?.type === "metadata" && typeof value.protocol_version === "string") return "wire";
  const message = asObject(value?.message);
  return typeof value?.timestamp === "number" && typeof message?.type === "string" ? "wire" : "other";
}

/**
 * Units of all containers, one per session id = the session folder's name (two copies of one session: the larger log
 * wins). The project path comes from the
 * share dir's kimi.json (read once per share dir) and goes into `locator.projectPath`; the change key is the file's and
 * state's stats plus a hash of that path, so a kimi.json change re-parses only the sessions whose path it changed.
 * A file that is no wire log is reported through `onRejected` (`empty file`, `not a Kimi CLI wire log`); one that
 * cannot be read, or a kimi.json that cannot be read, through `onUnavailable`.
 */
export function listKimiUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const workDirs = new Map<string, Map<string, string> | null>();
  const units = new Map<string, SourceUnit & { sizeBytes: number }>();
  for (const container of containers) {
    let kind: ReturnType<typeof probeWire>;
    try {
      kind = probeWire(container.path);
    } catch (error) {
      if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    if (kind !== "wire") {
      rejectFile(hooks, container.path, kind === "empty" ? "empty file" : "not a Kimi CLI wire log");
      continue;
    }
    const share = shareDirOf(container.path);
    let projectPath = "";
    if (share !== null) {
      if (!workDirs.has(share)) workDirs.set(share, loadWorkDirs(share, hooks));
      const dirs = workDirs.get(share);
      if (dirs === null) continue; // kimi.json unreadable: keep what is stored, retry next run
      projectPath = dirs?.get(basename(dirname(dirname(container.path)))) ?? "";
    }
    const sessionId = basename(dirname(container.path));
    const current = units.get(sessionId);
    if (current && current.sizeBytes >= container.sizeBytes) continue; // a copy: the larger log wins (append-only)
    const fileKey = container.fingerprint.split("|meta:")[0] as string;
    units.set(sessionId, {
      source: "kimi-cli",
      key: container.path,
      sessionId,
      containerPath: container.path,
      changeKey: `${fileKey}|project:${projectPath ? Bun.hash(projectPath).toString(16) : "-"}`,
      locator: { projectPath },
      sizeBytes: container.sizeBytes,
    });
  }
  return [...units.values()].map(({ sizeBytes: _size, ...unit }) => unit);
}

function loadWorkDirs(share: string, hooks: ParserHooks): Map<string, string> | null {
  try {
    return readWorkDirs(share);
  } catch (error) {
    hooks.onUnavailable?.(join(share, metadataFileName), fsReason(error));
    return null;
  }
}
