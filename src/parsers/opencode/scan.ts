/**
 * OpenCode scan: roots → containers with stats-only fingerprints (no content reads).
 * Containers (docs/formats.md §2): each database `opencode.db` / `opencode-<channel>.db`
 * (fingerprint = size+mtime of the db and of its `-wal`), the JSON `storage/` folder (§2.2) and
 * each legacy `project/<id>/storage` folder (§2.3). Credential files (`auth.json`,
 * `mcp-auth.json`) are never listed. Reading the containers is left to the other modules.
 */
import { readdirSync, statSync, type Stats } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { ScanResult, SourceContainer } from "../types.ts";

/** Which storage generation a container path holds. */
export type ContainerKind = "db" | "json" | "legacy";

/** Database file names OpenCode uses: `opencode.db` and channel builds like `opencode-stable.db` (§2.1). */
const dbNamePattern = /^opencode(-[A-Za-z0-9._]+)?\.db$/;

/** The storage generation of a container path: `.db` file, `…/project/<id>/storage` legacy folder, else JSON storage. */
export function containerKind(path: string): ContainerKind {
  if (path.endsWith(".db")) return "db";
  if (/[\\/]project[\\/][^\\/]+[\\/]storage$/.test(path)) return "legacy";
  return "json";
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function isDir(path: string): boolean {
  return statOrNull(path)?.isDirectory() ?? false;
}

function listDir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/**
 * Commutative digest of many file stats (order-independent, so readdir order does not matter):
 * entry count, total size in bytes, newest mtime and a modular sum of mtimes in µs.
 */
class StatsDigest {
  private count = 0;
  private sizeBytes = 0;
  private maxMtimeMs = 0;
  private mtimeSum = 0;

  add(path: string): void {
    const stats = statOrNull(path);
    if (!stats) return;
    this.count += 1;
    this.sizeBytes += stats.isDirectory() ? 0 : stats.size;
    this.maxMtimeMs = Math.max(this.maxMtimeMs, stats.mtimeMs);
    this.mtimeSum = (this.mtimeSum + (Math.round(stats.mtimeMs * 1000) % 1_000_000_007)) % 1_000_000_007;
  }

  toString(): string {
    return `n${this.count}:s${this.sizeBytes}:m${this.maxMtimeMs}:h${this.mtimeSum}`;
  }
}

/** Fingerprint of a database: size + mtime of the db and of its `-wal` ("-" when absent). */
export function fingerprintDatabase(dbPath: string): string {
  const db = statOrNull(dbPath);
  const wal = statOrNull(`${dbPath}-wal`);
  return `db${db?.size ?? 0}:${db?.mtimeMs ?? 0}|wal${wal ? `${wal.size}:${wal.mtimeMs}` : "-"}`;
}

/**
 * Fingerprint of a JSON storage folder (§2.2), stats only, about 4 stat/readdir calls per session
 * (not per message: a 4,000-message folder cost 31–61 ms when every message was statted, see
 * scripts/bench/parse-opencode.ts). Covered: each session file, each `message/<ses>/` folder (a new
 * message changes its mtime), the session's newest message file (rewritten when it completes) and
 * that message's `part/<msg>/` folder (new parts land in the newest message). Not covered: a part
 * added to an older message with nothing else changing; OpenCode only writes to the newest one.
 */
export function fingerprintJsonStorage(storagePath: string): string {
  const digest = new StatsDigest();
  digest.add(join(storagePath, "message"));
  digest.add(join(storagePath, "part"));
  for (const project of listDir(join(storagePath, "session"))) {
    const projectDir = join(storagePath, "session", project);
    digest.add(projectDir);
    for (const file of listDir(projectDir)) {
      digest.add(join(projectDir, file));
      const sessionId = file.replace(/\.json$/, "");
      addNewestMessage(digest, join(storagePath, "message", sessionId), (messageId) => join(storagePath, "part", messageId));
    }
  }
  return digest.toString();
}

/** Fingerprint of a legacy `project/<id>/storage` folder (§2.3), same scheme as {@link fingerprintJsonStorage}. */
export function fingerprintLegacyStorage(storagePath: string): string {
  const digest = new StatsDigest();
  const sessionDir = join(storagePath, "session");
  digest.add(join(sessionDir, "info"));
  for (const file of listDir(join(sessionDir, "info"))) {
    digest.add(join(sessionDir, "info", file));
    const sessionId = file.replace(/\.json$/, "");
    digest.add(join(sessionDir, "part", sessionId));
    addNewestMessage(digest, join(sessionDir, "message", sessionId), (messageId) => join(sessionDir, "part", sessionId, messageId));
  }
  return digest.toString();
}

/** Add a session's message folder, its newest message file (ids ascend with time) and that message's part folder. */
function addNewestMessage(digest: StatsDigest, messageDir: string, partDirOf: (messageId: string) => string): void {
  digest.add(messageDir);
  let newest: string | undefined;
  for (const name of listDir(messageDir)) if (newest === undefined || name > newest) newest = name;
  if (newest === undefined) return;
  digest.add(join(messageDir, newest));
  digest.add(partDirOf(newest.replace(/\.json$/, "")));
}

/** The folders a root may stand for: itself, `<root>/opencode` and `<root>/.local/share/opencode`. */
function candidateDirs(root: string): string[] {
  return [root, join(root, "opencode"), join(root, ".local", "share", "opencode")].filter(isDir);
}

/** Container paths inside one OpenCode data folder (or a `storage` folder given directly). */
function findContainerPaths(dir: string): string[] {
  const found: string[] = [];
  for (const name of listDir(dir)) {
    if (dbNamePattern.test(name) && statOrNull(join(dir, name))?.isFile()) found.push(join(dir, name));
  }
  if (isDir(join(dir, "storage", "session"))) found.push(join(dir, "storage"));
  if (basename(dir) === "storage" && isDir(join(dir, "session"))) {
    // a storage folder given directly: JSON storage, or legacy when it sits at project/<id>/storage
    if (isDir(join(dir, "session", "info")) === (containerKind(dir) === "legacy")) found.push(dir);
  }
  for (const project of listDir(join(dir, "project"))) {
    const legacy = join(dir, "project", project, "storage");
    if (isDir(join(legacy, "session", "info"))) found.push(legacy);
  }
  return found;
}

/** Build one container record with its fingerprint. */
export function describeContainer(path: string): SourceContainer {
  const kind = containerKind(path);
  const fingerprint =
    kind === "db" ? fingerprintDatabase(path) : kind === "json" ? fingerprintJsonStorage(path) : fingerprintLegacyStorage(path);
  return { source: "opencode", path, fingerprint, sizeBytes: kind === "db" ? (statOrNull(path)?.size ?? 0) : 0 };
}

/**
 * Scan roots (each a data folder like `~/.local/share/opencode`, its parent, a home folder, a
 * `storage` folder, or a `.db` file) for containers. Stats only.
 * @returns containers unique by absolute path, in discovery order; roots that do not exist in `missingRoots`
 */
export function scanOpencodeRoots(roots: string[]): ScanResult {
  const containers: SourceContainer[] = [];
  const missingRoots: string[] = [];
  const seen = new Set<string>();
  for (const given of roots) {
    const root = resolve(given);
    const stats = statOrNull(root);
    if (!stats) {
      missingRoots.push(root);
      continue;
    }
    const paths = stats.isFile() ? (root.endsWith(".db") ? [root] : []) : candidateDirs(root).flatMap(findContainerPaths);
    for (const path of paths) {
      if (seen.has(path)) continue;
      seen.add(path);
      containers.push(describeContainer(path));
    }
  }
  return { containers, missingRoots, unavailable: [] };
}
