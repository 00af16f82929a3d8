/**
 * OpenCode scan: roots → containers with stats-only fingerprints (no content reads).
 * Containers (docs/formats.md §2): each database `opencode.db` / `opencode-<channel>.db`
 * (fingerprint = stats of the db and of its `-wal`), the JSON `storage/` folder (§2.2) and
 * each legacy `project/<id>/storage` folder (§2.3). Credential files (`auth.json`,
 * `mcp-auth.json`) are never listed. A folder that exists but cannot be read is reported as
 * unavailable, never as empty (issue 9). Reading the containers is left to the other modules.
 */
import { accessSync, constants, readdirSync, statSync, type Stats } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { fsReason, isMissingError, statFingerprint, StatsDigest } from "../file-stats.ts";
import type { ScanResult, SourceContainer, UnavailablePath } from "../types.ts";

/** Which storage generation a container path holds. */
export type ContainerKind = "db" | "json" | "legacy";

/** Database file names OpenCode uses: `opencode.db` and channel builds like `opencode-stable.db` (§2.1). */
export const dbNamePattern = /^opencode(-[A-Za-z0-9._]+)?\.db$/;

/** The storage generation of a container path: `.db` file, `…/project/<id>/storage` legacy folder, else JSON storage. */
export function containerKind(path: string): ContainerKind {
  if (path.endsWith(".db")) return "db";
  if (/[\\/]project[\\/][^\\/]+[\\/]storage$/.test(path)) return "legacy";
  return "json";
}

/** Where a scan notes paths that exist but cannot be read; absent = ignore such errors (fingerprints). */
type Unreadable = UnavailablePath[] | undefined;

/** Stats of a path; null when it does not exist or (noted in `unreadable`) cannot be stat'ed. */
function statOrNull(path: string, unreadable?: Unreadable): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    if (!isMissingError(error)) unreadable?.push({ path, reason: fsReason(error) });
    return null;
  }
}

function isDir(path: string, unreadable?: Unreadable): boolean {
  return statOrNull(path, unreadable)?.isDirectory() ?? false;
}

/**
 * Names in a folder; [] when it is missing.
 * @param sorted sort the names (default true; fingerprints are order-independent and skip it)
 * @throws the fs error when it exists but cannot be read
 */
export function readNames(path: string, sorted = true): string[] {
  try {
    const names = readdirSync(path);
    return sorted ? names.sort() : names;
  } catch (error) {
    if (isMissingError(error)) return [];
    throw error;
  }
}

/** Names in a folder; [] when missing or (noted in `unreadable`) unreadable. */
function listDir(path: string, unreadable?: Unreadable): string[] {
  try {
    return readNames(path);
  } catch (error) {
    unreadable?.push({ path, reason: fsReason(error) });
    return [];
  }
}

/** Fingerprint of a database: {@link statFingerprint} of the db and of its `-wal` ("-" when absent). */
export function fingerprintDatabase(dbPath: string): string {
  const db = statOrNull(dbPath);
  const wal = statOrNull(`${dbPath}-wal`);
  return `db${db ? statFingerprint(db) : "-"}|wal${wal ? statFingerprint(wal) : "-"}`;
}

/**
 * A session of JSON or legacy storage whose session file or message folder was modified within this window (24 h,
 * the freshness rule's recent window, index/plan/freshness.ts) has its newest message fingerprinted in full; an older
 * one only by those two stats. OpenCode ≥ 1.2 copies its JSON storage into `opencode.db` once and never writes it
 * again (docs/formats.md §2.2), so on most disks every stored session is old, and the scan before every search costs
 * two stats a session instead of ~8–15 (2,000 sessions: see scripts/bench/parse-opencode.ts). A new message changes
 * its session's message folder, which makes the session recent again.
 */
export const storageRecentWindowMs = 24 * 60 * 60 * 1000;

/**
 * Fingerprint of a JSON storage folder (§2.2), stats only, a few stat/readdir calls per session (not
 * per message: a 4,000-message folder cost 31–61 ms when every message was statted, see
 * scripts/bench/parse-opencode.ts). Covered: each session file, each `message/<ses>/` folder (a new
 * message changes its mtime) and, for a session modified within {@link storageRecentWindowMs}, its
 * newest message file (rewritten when it completes), that message's `part/<msg>/` folder (new parts)
 * and every part file in it (a part rewritten in place, e.g. a tool call completing). Not covered: a
 * part of an older message changing with nothing else changing (OpenCode only writes to the newest
 * one), nor a part of a session quiet for a day rewritten in place with its folders' times kept.
 * @param nowMs current time, epoch ms (tests move it)
 * @throws the fs error when a folder or file exists but cannot be read (the scan reports the folder unavailable)
 */
export function fingerprintJsonStorage(storagePath: string, nowMs = Date.now()): string {
  const digest = new StatsDigest();
  const recentSince = nowMs - storageRecentWindowMs;
  digest.add(join(storagePath, "message"));
  digest.add(join(storagePath, "part"));
  for (const project of readNames(join(storagePath, "session"), false)) {
    const projectDir = join(storagePath, "session", project);
    digest.add(projectDir);
    for (const file of readNames(projectDir, false)) {
      const sessionId = file.replace(/\.json$/, "");
      addStoredSession(digest, join(projectDir, file), join(storagePath, "message", sessionId), recentSince, (id) =>
        join(storagePath, "part", id),
      );
    }
  }
  return digest.toString();
}

/**
 * Fingerprint of a legacy `project/<id>/storage` folder (§2.3), same scheme as {@link fingerprintJsonStorage}, plus
 * each session's `part/<ses>/` folder (a message's first part creates its folder there).
 */
export function fingerprintLegacyStorage(storagePath: string, nowMs = Date.now()): string {
  const digest = new StatsDigest();
  const recentSince = nowMs - storageRecentWindowMs;
  const sessionDir = join(storagePath, "session");
  digest.add(join(sessionDir, "info"));
  for (const file of readNames(join(sessionDir, "info"), false)) {
    const sessionId = file.replace(/\.json$/, "");
    digest.add(join(sessionDir, "part", sessionId));
    addStoredSession(
      digest,
      join(sessionDir, "info", file),
      join(sessionDir, "message", sessionId),
      recentSince,
      (messageId) => join(sessionDir, "part", sessionId, messageId),
    );
  }
  return digest.toString();
}

/** Add a stored session's file and message folder, and its newest message when either changed since `recentSince`. */
function addStoredSession(
  digest: StatsDigest,
  sessionFile: string,
  messageDir: string,
  recentSince: number,
  partDirOf: (messageId: string) => string,
): void {
  const session = digest.add(sessionFile);
  const messages = digest.add(messageDir);
  if (Math.max(session?.mtimeMs ?? 0, messages?.mtimeMs ?? 0) >= recentSince)
    addNewestMessage(digest, messageDir, partDirOf);
}

/**
 * Add a session's newest message file (ids ascend with time), that message's part folder and each part file in it
 * (not the message folder itself: callers add it). Shared with the listing's change keys (json-storage.ts, legacy.ts).
 */
export function addNewestMessage(
  digest: StatsDigest,
  messageDir: string,
  partDirOf: (messageId: string) => string,
): void {
  let newest: string | undefined;
  for (const name of readNames(messageDir, false)) if (newest === undefined || name > newest) newest = name;
  if (newest === undefined) return;
  digest.add(join(messageDir, newest));
  const partDir = partDirOf(newest.replace(/\.json$/, ""));
  if (!digest.add(partDir)) return;
  for (const part of readNames(partDir, false)) digest.add(join(partDir, part));
}

/** The folders a root may stand for: itself, `<root>/opencode` and `<root>/.local/share/opencode`. */
function candidateDirs(root: string, unreadable: Unreadable): string[] {
  const noted: UnavailablePath[] = [];
  const dirs = [
    root,
    ...[join(root, "opencode"), join(root, ".local", "share", "opencode")].filter((dir) => isDir(dir, noted)),
  ];
  // A root that cannot be entered is reported once (by findContainerPaths), not once more per probe below it.
  if (isEnterable(root)) unreadable?.push(...noted);
  return dirs;
}

function isEnterable(dir: string): boolean {
  try {
    accessSync(dir, constants.R_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Container paths inside one OpenCode data folder (or a `storage` folder given directly). */
function findContainerPaths(dir: string, unreadable: Unreadable): string[] {
  const found: string[] = [];
  let names: string[];
  try {
    names = readNames(dir);
  } catch (error) {
    unreadable?.push({ path: dir, reason: fsReason(error) }); // covers everything below it
    return found;
  }
  for (const name of names) {
    if (dbNamePattern.test(name) && statOrNull(join(dir, name), unreadable)?.isFile()) found.push(join(dir, name));
  }
  if (isStorageDir(join(dir, "storage"), "session", unreadable)) found.push(join(dir, "storage"));
  if (basename(dir) === "storage" && isStorageDir(dir, "session", unreadable)) {
    // a storage folder given directly: JSON storage, or legacy when it sits at project/<id>/storage
    if (isDir(join(dir, "session", "info")) === (containerKind(dir) === "legacy")) found.push(dir);
  }
  for (const project of listDir(join(dir, "project"), unreadable)) {
    const legacy = join(dir, "project", project, "storage");
    if (isStorageDir(legacy, join("session", "info"), unreadable)) found.push(legacy);
  }
  return found;
}

/**
 * Whether `storage/<marker>` is a folder. When it cannot be stat'ed (a folder on the way cannot be
 * entered), the storage folder itself is reported unavailable: that is the container path the index
 * keeps sessions under.
 */
function isStorageDir(storage: string, marker: string, unreadable: Unreadable): boolean {
  const noted: UnavailablePath[] = [];
  const found = isDir(join(storage, marker), noted);
  for (const entry of noted)
    unreadable?.push({ path: storage, reason: `${entry.reason} (${relative(storage, entry.path)})` });
  return found;
}

/**
 * Build one container record with its fingerprint.
 * @throws the fs error when a folder of a storage container cannot be read
 */
export function describeContainer(path: string): SourceContainer {
  const kind = containerKind(path);
  const fingerprint =
    kind === "db"
      ? fingerprintDatabase(path)
      : kind === "json"
        ? fingerprintJsonStorage(path)
        : fingerprintLegacyStorage(path);
  return { source: "opencode", path, fingerprint, sizeBytes: kind === "db" ? (statOrNull(path)?.size ?? 0) : 0 };
}

/**
 * Scan roots (each a data folder like `~/.local/share/opencode`, its parent, a home folder, a
 * `storage` folder, or a `.db` file) for containers. Stats only.
 * @returns containers unique by absolute path, in discovery order; roots that do not exist in
 *   `missingRoots`; folders and files that exist but cannot be read (e.g. permission denied) in
 *   `unavailable` — a storage container with an unreadable folder inside is reported as the container
 *   path itself, with the folder in the reason, so the index keeps all its sessions. Never throws.
 */
export function scanOpencodeRoots(roots: string[]): ScanResult {
  const containers: SourceContainer[] = [];
  const missingRoots: string[] = [];
  const unavailable: UnavailablePath[] = [];
  const seen = new Set<string>();
  for (const given of roots) {
    const root = resolve(given);
    let stats: Stats;
    try {
      stats = statSync(root);
    } catch (error) {
      if (isMissingError(error)) missingRoots.push(root);
      else unavailable.push({ path: root, reason: fsReason(error) });
      continue;
    }
    const paths = stats.isFile()
      ? root.endsWith(".db")
        ? [root]
        : []
      : candidateDirs(root, unavailable).flatMap((dir) => findContainerPaths(dir, unavailable));
    for (const path of paths) {
      if (seen.has(path)) continue;
      seen.add(path);
      try {
        containers.push(describeContainer(path));
      } catch (error) {
        const where = relative(path, String((error as { path?: unknown }).path ?? path)) || ".";
        unavailable.push({ path, reason: `${fsReason(error)} (${where})` });
      }
    }
  }
  return { containers, missingRoots, unavailable: dedupe(unavailable) };
}

function dedupe(entries: UnavailablePath[]): UnavailablePath[] {
  const byPath = new Map<string, UnavailablePath>();
  for (const entry of entries) if (!byPath.has(entry.path)) byPath.set(entry.path, entry);
  return [...byPath.values()];
}
