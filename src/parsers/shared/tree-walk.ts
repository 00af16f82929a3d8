/**
 * The bookkeeping every stats-only scan of session files shares (Claude Code, Codex, Gemini CLI): reading
 * the given roots, entering each folder and listing each file once by identity (device + inode, so link
 * cycles, links to a parent folder, hard links and overlapping roots cost nothing, issue 9), and
 * reporting paths that exist but cannot be read. What a session file is, which folders are skipped, how
 * deep a walk goes and how links are followed stay with each parser's scan.ts.
 */
import { readdirSync, statSync, type Dirent, type Stats } from "node:fs";
import { fileIdentity, fsReason, isMissingError, statFingerprint } from "../file-stats.ts";
import type { ScanResult, SourceContainer, SourceId, UnavailablePath, WatchedPath } from "../types.ts";

/**
 * The fingerprint a watched path is stored with: its {@link statFingerprint}, or `?` when its mtime is a whole second
 * less than 2 s before `nowMs`: on a file system with 1-second timestamps (HFS+, ext3) an entry added later in the
 * same second would leave the folder's stats unchanged, so such a folder is not trusted and the next check walks it.
 */
export function watchedFingerprint(stats: Stats, nowMs = Date.now()): string {
  const coarse = stats.mtimeMs % 1000 === 0 && stats.ctimeMs % 1000 === 0;
  return coarse && nowMs - Math.max(stats.mtimeMs, stats.ctimeMs) < 2000 ? "?" : statFingerprint(stats);
}

/** Order of entries by `path`, code unit by code unit (what a binary search over containers relies on, plan.ts). */
export function comparePaths(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Mutable state of one scan: what was found, what was seen, what could not be read. */
export class TreeWalk {
  /** Containers found so far (the scan's result, sorted at the end). */
  readonly found: SourceContainer[] = [];
  /** Paths that exist but cannot be read: permission denied, symbolic link loop, i/o error. */
  readonly unavailable: UnavailablePath[] = [];
  /** Folders read, roots and side files probed, with their stats (ScanResult.watched). */
  readonly watched: WatchedPath[] = [];
  private readonly walkedDirs = new Set<string>();
  private readonly listedFiles = new Set<string>();

  /**
   * Stats of a path, links followed; undefined when it does not exist (a file vanishing between readdir
   * and stat is simply gone) or cannot be stat'ed (then noted in {@link unavailable}).
   */
  statOrNote(path: string): Stats | undefined {
    try {
      return statSync(path);
    } catch (error) {
      if (!isMissingError(error)) this.unavailable.push({ path, reason: fsReason(error) });
      return undefined;
    }
  }

  /** Entries of a folder, or null when it is gone or cannot be read (then noted). */
  readEntries(dir: string): Dirent[] | null {
    try {
      return readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if (!isMissingError(error)) this.unavailable.push({ path: dir, reason: fsReason(error) });
      return null;
    }
  }

  /** Mark a folder walked; false when one with the same identity already was. */
  firstVisit(stats: Stats): boolean {
    const identity = fileIdentity(stats);
    if (this.walkedDirs.has(identity)) return false;
    this.walkedDirs.add(identity);
    return true;
  }

  /**
   * Enter a folder: stat it (unless `known`), skip it when it is not a folder or was walked already,
   * read its entries. @returns the entries, or null when there is nothing (new) to walk
   */
  enterDir(dir: string, known?: Stats): Dirent[] | null {
    const stats = known ?? this.statOrNote(dir);
    if (!stats?.isDirectory() || !this.firstVisit(stats)) return null;
    // Stats before the listing: an entry added in between shows up in both, so it is never missed later.
    this.watched.push({ path: dir, fingerprint: watchedFingerprint(stats) });
    return this.readEntries(dir);
  }

  /**
   * Read a folder that belongs to one session (`owner`, its transcript), such as a Claude Code `<session>/subagents/`:
   * watched (only while the owner is recent), also when it does not exist yet (`-`), since it appears mid-session.
   * @returns its entries, or null when it is missing or unreadable (noted)
   */
  readOwnedDir(dir: string, owner: string): Dirent[] | null {
    const stats = this.statOrNote(dir);
    this.watched.push({ path: dir, fingerprint: stats ? watchedFingerprint(stats) : "-", owner });
    return stats?.isDirectory() ? this.readEntries(dir) : null;
  }

  /** Note a root or a side file looked for by name (`-` when missing), so the freshness check sees it appear or change. */
  watchPath(path: string, stats: Stats | undefined): void {
    this.watched.push({ path, fingerprint: stats ? watchedFingerprint(stats) : "-" });
  }

  /** List one file as a container with the given fingerprint (its mtime kept for the freshness check). */
  addContainer(source: SourceId, path: string, stats: Stats, fingerprint: string): void {
    this.found.push({ source, path, fingerprint, sizeBytes: stats.size, mtimeMs: stats.mtimeMs });
  }

  /**
   * Stats of a file not listed yet: stat it (unless `known`), then mark its identity listed.
   * @returns undefined when it is gone, unreadable (noted), not a regular file, or listed already
   */
  newFile(path: string, known?: Stats): Stats | undefined {
    const stats = known ?? this.statOrNote(path);
    if (!stats?.isFile()) return undefined;
    const identity = fileIdentity(stats);
    if (this.listedFiles.has(identity)) return undefined;
    this.listedFiles.add(identity);
    return stats;
  }

  /**
   * List one file as a container of `source` (a prompt history found by name next to the tree the scan walks), with
   * its {@link statFingerprint} plus `fingerprintSuffix` as the fingerprint; nothing when it is gone (then watched for),
   * unreadable (noted) or listed already.
   */
  addFileContainer(source: SourceId, path: string, fingerprintSuffix = ""): void {
    const stats = this.newFile(path);
    if (!stats) {
      this.watchPath(path, undefined); // seen by the next check when it appears
      return;
    }
    // A prompt history is appended with every prompt typed in any session: re-stat'ed by every quick check (its
    // mtime is taken as the scan time), it also names the old sessions being resumed (freshness.ts).
    this.found.push({
      source,
      path,
      fingerprint: `${statFingerprint(stats)}${fingerprintSuffix}`,
      sizeBytes: stats.size,
      mtimeMs: Date.now(),
    });
  }

  /** The scan's result: containers and unavailable paths sorted by path, with the given missing roots and the watched paths. */
  result(missingRoots: string[]): ScanResult {
    return {
      containers: this.found.sort(comparePaths),
      missingRoots,
      unavailable: this.unavailable.sort(comparePaths),
      watched: this.watched,
    };
  }
}

/**
 * Read every root (a trailing "/" is dropped) and hand its stats to `visit`.
 * @param visit called once per existing root; it walks the root into `walk`
 * @returns the roots that do not exist, as given; roots that exist but cannot be stat'ed are noted in
 *   `walk.unavailable`. Missing roots are watched (`walk.watched`), so the next check sees them appear. Never throws.
 */
export function visitRoots(
  roots: readonly string[],
  walk: TreeWalk,
  visit: (root: string, stats: Stats) => void,
): string[] {
  const missingRoots: string[] = [];
  for (const given of roots) {
    const root = given.length > 1 && given.endsWith("/") ? given.slice(0, -1) : given;
    let stats: Stats;
    try {
      stats = statSync(root);
    } catch (error) {
      if (isMissingError(error)) {
        missingRoots.push(given);
        walk.watchPath(root, undefined); // a root that appears later is seen by the next check
      } else walk.unavailable.push({ path: root, reason: fsReason(error) });
      continue;
    }
    visit(root, stats); // a folder is watched when it is read; a file root is a container, re-stat'ed as such
  }
  return missingRoots;
}

/**
 * Where a folder of an earlier whole walk of `roots` sits (Parser.rescanFolders, issue 42): the one root it lies below
 * (a trailing "/" dropped) and the names of the folders from there down to it, so a walk can enter it again at the
 * depth and with the context the whole walk had. Undefined when it is a root, lies below no root, or lies below two
 * (overlapping roots: which one the whole walk reached it from decides, so only a whole walk is exact).
 * Example: roots [`/h/.claude`], folder `/h/.claude/projects/-p` → { root: `/h/.claude`, names: [`projects`, `-p`] }.
 */
function placeBelowRoot(roots: readonly string[], folder: string): { root: string; names: string[] } | undefined {
  const normalized = roots.map((root) => (root.length > 1 && root.endsWith("/") ? root.slice(0, -1) : root));
  if (normalized.includes(folder)) return undefined;
  const under = normalized.filter((root) => folder.startsWith(root === "/" ? "/" : `${root}/`));
  if (under.length !== 1) return undefined;
  const root = under[0]!;
  return { root, names: folder.slice(root === "/" ? 1 : root.length + 1).split("/") };
}

/** The given folders sorted by path, without those below another one of them (a walk of that one covers them). */
function outermostFolders(folders: readonly WatchedPath[]): WatchedPath[] {
  const kept: WatchedPath[] = [];
  for (const folder of [...folders].sort(comparePaths))
    if (!kept.some((outer) => folder.path.startsWith(`${outer.path}/`))) kept.push(folder);
  return kept;
}

/**
 * Every Parser.rescanFolders (issue 42): each changed folder not below another one, placed below its one root
 * ({@link placeBelowRoot}), handed to `enter`, which walks it into `walk`.
 * @param enter returns false when that folder cannot be walked alone exactly (anything else: walked)
 * @returns `walk`'s result, or undefined when a folder cannot be placed or `enter` refused one: the source must be
 *   walked whole
 */
export function rescanPlaced(
  walk: TreeWalk,
  roots: readonly string[],
  folders: readonly WatchedPath[],
  enter: (folder: WatchedPath, place: { root: string; names: string[] }) => unknown,
): ScanResult | undefined {
  for (const folder of outermostFolders(folders)) {
    const place = placeBelowRoot(roots, folder.path);
    if (place === undefined || enter(folder, place) === false) return undefined;
  }
  return walk.result([]);
}
