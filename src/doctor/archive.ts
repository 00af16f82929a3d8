/**
 * `recall doctor`'s archive checks (issue 9): where recall keeps things and whether they are private ("folders"),
 * the last snapshot of the index ("snapshot"), and `--restore-snapshot`. Nothing here prints or changes modes;
 * the restore itself is src/index/store/snapshot.ts.
 */
import { existsSync } from "node:fs";
import {
  databasePath,
  describeBlockedFolder,
  describeExposure,
  dotEnvPath,
  statOrUndefined,
  listSetAside,
  listSnapshots,
  restoreSnapshot,
  type RecallPaths,
  type RestoreResult,
} from "../index/index.ts";
import { type CheckResult, plural } from "./checks.ts";

const dayMs = 86_400_000;

/** `3.4 MB`, `812 KB`, `96 B`: decimal units, one decimal under 10. */
export function formatSize(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 || value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** `2026-11-22 13:35 UTC` */
const formatTime = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/**
 * Where the index, settings and models live; WARN when the data folder is open to other users (recall never
 * chmods a folder it did not create) or when `.env` (which may hold EMBEDDINGS_API_KEY) is readable by others;
 * FAIL when a file stands where a folder must be (RECALL_HOME pointed at a file or below one).
 */
export function checkFolders(paths: RecallPaths): CheckResult {
  const where = paths.overridden
    ? `everything in RECALL_HOME ${paths.data}`
    : `index ${paths.data}, settings ${paths.config}, models ${paths.cache}`;
  for (const folder of new Set([paths.data, paths.config, paths.cache])) {
    const blocked = describeBlockedFolder(folder);
    if (blocked)
      return {
        id: "folders",
        status: "fail",
        message: `cannot use ${folder} as recall's folder: ${blocked}`,
        fix: "point RECALL_HOME (or XDG_DATA_HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME) at a folder you own",
      };
  }
  const exposure = describeExposure(paths.data);
  if (exposure)
    return {
      id: "folders",
      status: "warn",
      message: `${where}; ${exposure.replace(/: run .*$/, "")}`,
      fix: `chmod 700 ${paths.data} (or point RECALL_HOME at a private folder)`,
    };
  const dotEnv = dotEnvPath(paths);
  const mode = statOrUndefined(dotEnv)?.mode;
  if (mode !== undefined && (mode & 0o077) !== 0) {
    return {
      id: "folders",
      status: "warn",
      message: `${where}; ${dotEnv} is readable by other users (mode ${(mode & 0o777).toString(8)}) and may hold EMBEDDINGS_API_KEY`,
      fix: `chmod 600 ${dotEnv}`,
    };
  }
  return { id: "folders", status: "ok", message: `${where}; private to you` };
}

/**
 * The newest snapshot of the index in `dataDir`: OK with its age and size (a run that changes something refreshes it
 * once a day, `snapshotIntervalMs`); WARN when the index has none yet, when an older snapshot holding more
 * sessions was kept (after a rebuild), or when damaged files kept aside by a restore or rebuild still take space.
 * @param nowMs injectable for tests
 * @returns undefined when there is no index (nothing to protect yet)
 */
export function checkSnapshot(dataDir: string, nowMs: number = Date.now()): CheckResult | undefined {
  const index = databasePath(dataDir);
  if (!existsSync(index)) return undefined;
  const aside = listSetAside(dataDir);
  const asideNote =
    aside.length > 0
      ? `; kept aside after a restore or rebuild: ${aside.map((entry) => `${entry.path} (${formatSize(entry.bytes)})`).join(", ")}`
      : "";
  const [snapshot, ...older] = listSnapshots(dataDir);
  if (!snapshot) {
    return {
      id: "snapshot",
      status: "warn",
      message: `no snapshot of the index yet${asideNote}`,
      fix: "run `recall index` (each run that changes something keeps a daily snapshot)",
    };
  }
  const ageDays = Math.floor((nowMs - snapshot.takenAtMs) / dayMs);
  const sessions = snapshot.sessions === undefined ? "" : `${plural(snapshot.sessions, "session")}, `;
  const vectors =
    snapshot.vectorBytes > 0 ? ` + ${formatSize(snapshot.vectorBytes)} of vectors shared with the index` : "";
  const message = `snapshot of ${formatTime(snapshot.takenAtMs)} (${ageDays === 0 ? "today" : `${plural(ageDays, "day")} old`}): ${sessions}${formatSize(snapshot.databaseBytes)}${vectors}; \`recall doctor --restore-snapshot\` puts it back${asideNote}`;
  if (older.length > 0) {
    const kept = older[0]!;
    return {
      id: "snapshot",
      status: "warn",
      message: `${message}; an older snapshot of ${formatTime(kept.takenAtMs)} holds more sessions (${kept.sessions}) and is kept: it may be the last copy of sessions whose sources are gone`,
      fix: `to go back to it: rm -r ${snapshot.dir} && recall doctor --restore-snapshot; once you do not need it: rm -r ${older.map((entry) => entry.dir).join(" ")}`,
    };
  }
  if (aside.length > 0)
    return {
      id: "snapshot",
      status: "warn",
      message,
      fix: `delete what was kept aside once you no longer need it: rm -r ${aside.map((entry) => entry.path).join(" ")}`,
    };
  return { id: "snapshot", status: "ok", message };
}

/**
 * `recall doctor --restore-snapshot`: puts the newest snapshot back (src/index/store/snapshot.ts restoreSnapshot).
 * @throws IndexError INDEX_MISSING (no snapshot), INDEX_CORRUPT (the snapshot is damaged too), INDEX_LOCKED
 */
export async function restoreLastSnapshot(dataDir: string): Promise<RestoreResult> {
  return restoreSnapshot(dataDir, { lockWaitMs: 10_000 });
}

/** Text report of a restore: what came back, where the replaced file went, and the next command. */
export function renderRestoreText(result: RestoreResult): string {
  const sessions = result.snapshot.sessions === undefined ? "" : ` (${plural(result.snapshot.sessions, "session")})`;
  const lines = [
    `restored the snapshot of ${formatTime(result.snapshot.takenAtMs)}${sessions} into ${result.databasePath}`,
  ];
  if (result.setAside)
    lines.push(`the index it replaced is kept as ${result.setAside}; delete it once you no longer need it`);
  lines.push("next: run `recall index` to add what changed in your history since the snapshot");
  return `${lines.join("\n")}\n`;
}

/**
 * JSON report of a restore: `{"version": 1, "restored": {snapshot_taken_at, sessions, database, set_aside}, "next":
 * "recall index"}`.
 */
export function renderRestoreJson(result: RestoreResult): string {
  return JSON.stringify({
    version: 1,
    restored: {
      snapshot_taken_at: new Date(result.snapshot.takenAtMs).toISOString(),
      sessions: result.snapshot.sessions ?? null,
      database: result.databasePath,
      set_aside: result.setAside ?? null,
    },
    next: "recall index",
  });
}
