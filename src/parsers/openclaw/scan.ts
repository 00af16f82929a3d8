/**
 * Finding OpenClaw transcripts by file stats alone, and naming the session each holds (docs/formats/openclaw.md).
 * OpenClaw writes one transcript per session, `<state dir>/agents/<agent id>/sessions/<session id>.jsonl`, beside the
 * agent's index `sessions.json` (session key → `{sessionId, spawnedBy?, label?, …}`): openclaw/openclaw
 * `src/config/sessions/paths.ts` (commit 00358f66). A reset or deleted session's transcript is renamed
 * `<session id>.jsonl.reset.<ISO time with - for :>` or `.jsonl.deleted.<…>` and still holds the session, so it is read
 * too; a pre-compaction twin `<session id>.checkpoint.<uuid>.jsonl`, a `.trajectory.jsonl` and a `.bak` are copies or
 * run logs and are not (`src/config/sessions/artifacts.ts`, commit 08495516; wesm/agentsview
 * internal/parser/openclaw.go `IsOpenClawSessionFile`, commit 1c173202).
 * A root is a state dir (only its `agents/` is walked: its `workspace/` holds the user's own files), an `agents/`
 * folder, one agent's folder, a `sessions/` folder, any folder holding those at some depth (a copy), or one file.
 * One container = one transcript; its fingerprint is its stats plus those of the folder's `sessions.json` (which links
 * a sub-agent to its parent).
 */
import type { Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fsReason, isMissingError, statFingerprint } from "../file-stats.ts";
import { readHead } from "../shared/read-head.ts";
import { sideFingerprint } from "../shared/side-file.ts";
import { rejectFile } from "../shared/skips.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit } from "../types.ts";
import { readSessionIndex, type SessionLinks, sessionIndexName } from "./session-index.ts";

/** The folder of an agent that holds its transcripts. */
export const sessionsDirName = "sessions";

/** The folder of a state dir that holds the agents. */
export const agentsDirName = "agents";

/** Folder names never holding transcripts: vendored trees and version control. */
const skippedDirs: ReadonlySet<string> = new Set(["node_modules", ".git"]);

/** Deepest folder level walked below a root. */
export const maxDepth = 8;

/** `.<reason>.<time>` of an archived transcript, the time as OpenClaw writes it (`2026-02-19T08-59-24.951Z`). */
const archiveSuffix = /\.jsonl\.(reset|deleted)\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d{3})?Z$/;

/** `<session id>.checkpoint.<uuid>.jsonl`: a copy of a transcript taken before compaction. */
const checkpointSuffix = /\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

/**
 * Whether a file of a `sessions/` folder is a transcript recall reads: `<id>.jsonl` or an archived
 * `<id>.jsonl.reset.<time>` / `.jsonl.deleted.<time>`.
 * Examples: `4f1c.jsonl` → true; `4f1c.jsonl.reset.2026-02-17T09-39-39.691Z` → true; `sessions.json` → false;
 *   `4f1c.checkpoint.0b6e…-….jsonl` → false; `4f1c.trajectory.jsonl` → false; `4f1c.jsonl.bak.2026-…Z` → false.
 */
export function isTranscriptName(name: string): boolean {
  if (archiveSuffix.test(name)) return true;
  return name.endsWith(".jsonl") && !name.endsWith(".trajectory.jsonl") && !checkpointSuffix.test(name);
}

/** The session id a transcript's name gives: the name before `.jsonl`. Example: `4f1c.jsonl.reset.…Z` → `4f1c`. */
export function sessionIdOfName(name: string): string {
  const at = name.indexOf(".jsonl");
  return at > 0 ? name.slice(0, at) : name;
}

/** Mutable state of one scan: the shared bookkeeping plus the `sessions.json` stats per folder. */
class OpenclawWalk extends TreeWalk {
  readonly indexStats = new Map<string, string>();
}

/**
 * Every transcript below `roots`, fingerprinted `<stats>|index:<sessions.json stats or ->`.
 * @returns containers unique by file identity, sorted by path; missing roots; unreadable paths (never throws)
 */
export function scanOpenclawRoots(roots: readonly string[]): ScanResult {
  const walk = new OpenclawWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isDirectory()) walkDir(root, 0, walk, stats);
    else if (stats.isFile() && isTranscriptName(basename(root))) addFile(root, walk, stats);
  });
  return walk.result(missingRoots);
}

function walkDir(dir: string, depth: number, walk: OpenclawWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  const isFolder = (name: string) =>
    entries.some((entry) => entry.name === name && (entry.isDirectory() || entry.isSymbolicLink()));
  if (basename(dir) !== agentsDirName && isFolder(agentsDirName)) {
    walkDir(join(dir, agentsDirName), depth + 1, walk); // a state dir: only its agents
    return;
  }
  if (basename(dir) === sessionsDirName) {
    for (const entry of entries) {
      if ((entry.isFile() || entry.isSymbolicLink()) && isTranscriptName(entry.name))
        addFile(join(dir, entry.name), walk);
    }
    return; // transcripts are direct files of sessions/
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) walkDir(join(dir, entry.name), depth + 1, walk);
  }
}

function addFile(path: string, walk: OpenclawWalk, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  const dir = dirname(path);
  let index = walk.indexStats.get(dir);
  if (index === undefined) {
    index = sideFingerprint(join(dir, sessionIndexName), walk);
    walk.indexStats.set(dir, index);
  }
  walk.addContainer("openclaw", path, stats, `${statFingerprint(stats)}|index:${index}`);
}

/** Bytes read from a transcript's start to find its header line (~200 bytes). */
const headBytes = 64 * 1024;

/** What the first line of a candidate file says. */
export type TranscriptHead =
  /** A transcript entry (`{"type": "<kind>", …}`); `sessionId` from a `session` header, else null. */
  { kind: "transcript"; sessionId: string | null } | { kind: "empty" } | { kind: "other" };

/**
 * The first JSON line of a candidate file. A transcript opens with the header
 * `{"type":"session","version":3,"id":"<uuid>","timestamp":"…","cwd":"…"}` (badlogic/pi-mono
 * packages/coding-agent/src/core/session-manager.ts `SessionHeader`, commit 83378aad); a file whose header was lost
 * opens with another entry, which still has a string `type`.
 * Examples: `{"type":"session","id":"4f1c"}` → transcript `4f1c`; `{"type":"message","message":{}}` → transcript null;
 *   `{"role":"user"}` → other; `` → empty.
 * @throws the fs error when the file cannot be read
 */
export function probeTranscript(path: string): TranscriptHead {
  const head = readHead(path, headBytes);
  const trimmed = head.text.trimStart();
  if (trimmed.length === 0) return head.whole ? { kind: "empty" } : { kind: "other" };
  const newline = trimmed.indexOf("\n");
  const first = newline < 0 ? trimmed : trimmed.slice(0, newline);
  let value: unknown;
  try {
    value = JSON.parse(first);
  } catch {
    return /^\{\s*"type"\s*:\s*"[a-z_]+"/.test(first) && !head.whole
      ? { kind: "transcript", sessionId: null }
      : { kind: "other" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { kind: "other" };
  const record = value as Record<string, unknown>;
  if (typeof record.type !== "string") return { kind: "other" };
  const id = record.type === "session" && typeof record.id === "string" ? record.id : "";
  return { kind: "transcript", sessionId: id.length > 0 ? id : null };
}

/**
 * Units of all containers, one per session id: the header's `id`, else the id the file name gives. Two files of one
 * session (a transcript and its reset archive, or a copy) become one unit: the larger wins (transcripts are
 * append-only), the first listed of equals. The folder's `sessions.json` (read once per folder) says whether the
 * session is a sub-agent's and of which parent: that goes into `locator` and the change key. A file that is no
 * transcript is reported through `onRejected` (`empty file`, `not an OpenClaw transcript`); one that cannot be read, or
 * a `sessions.json` that cannot be read, through `onUnavailable`.
 */
export function listOpenclawUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const indexes = new Map<string, Map<string, SessionLinks> | null>();
  const best = new Map<string, { container: SourceContainer; links: SessionLinks | undefined }>();
  for (const container of containers) {
    let head: TranscriptHead;
    try {
      head = probeTranscript(container.path);
    } catch (error) {
      if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    if (head.kind !== "transcript") {
      rejectFile(hooks, container.path, head.kind === "empty" ? "empty file" : "not an OpenClaw transcript");
      continue;
    }
    const dir = dirname(container.path);
    if (!indexes.has(dir)) indexes.set(dir, loadIndex(dir, hooks));
    const index = indexes.get(dir);
    if (index === null) continue; // sessions.json unreadable: keep what is stored, retry next run
    const sessionId = head.sessionId ?? sessionIdOfName(basename(container.path));
    const current = best.get(sessionId);
    if (current && current.container.sizeBytes >= container.sizeBytes) continue;
    best.set(sessionId, { container, links: index?.get(sessionId) });
  }
  return [...best.entries()].map(([sessionId, { container, links }]) => {
    const fileKey = container.fingerprint.split("|index:")[0] as string;
    const linkKey = links ? Bun.hash(JSON.stringify(links)).toString(16) : "-";
    return {
      source: "openclaw" as const,
      key: container.path,
      sessionId,
      containerPath: container.path,
      changeKey: `${fileKey}|links:${linkKey}`,
      locator: {
        parentSessionId: links?.parentSessionId ?? null,
        isSubagent: links?.isSubagent ?? false,
        label: links?.label ?? null,
      },
    };
  });
}

function loadIndex(dir: string, hooks: ParserHooks): Map<string, SessionLinks> | null {
  try {
    return readSessionIndex(join(dir, sessionIndexName));
  } catch (error) {
    hooks.onUnavailable?.(join(dir, sessionIndexName), fsReason(error));
    return null;
  }
}
