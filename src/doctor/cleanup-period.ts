/**
 * Claude Code deletes session files older than `cleanupPeriodDays` (settings.json; default 30 days) when it
 * starts. recall keeps every session it indexed (issue 9: marked source-deleted, still searchable and shown from
 * the archive), but history it has not indexed by then is gone for good, so doctor warns about Claude Code
 * session files that are not in the index (or changed since) and names how close the oldest is to deletion.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import type { SourceContainer } from "../parsers/index.ts";
import type { CheckResult } from "./checks.ts";

/** Claude Code's default retention in days when settings.json does not set cleanupPeriodDays. */
export const defaultCleanupPeriodDays = 30;

const dayMs = 86_400_000;

/** Where Claude Code's user settings live: `<dir>/settings.json` for each $CLAUDE_CONFIG_DIR entry, else ~/.claude. */
export function claudeSettingsPaths(env: Record<string, string | undefined>, home: string): string[] {
  const dirs = (env.CLAUDE_CONFIG_DIR ?? "")
    .split(",")
    .map((dir) => dir.trim())
    .filter(Boolean);
  return (dirs.length > 0 ? dirs : [join(home, ".claude")]).map((dir) => join(dir, "settings.json"));
}

/**
 * Reads cleanupPeriodDays from the first settings file that sets it.
 * @returns days and the file it came from (undefined: the default applies); unreadable files are skipped
 */
export function readCleanupPeriodDays(settingsPaths: readonly string[]): { days: number; from: string | undefined } {
  for (const path of settingsPaths) {
    if (!existsSync(path)) continue;
    try {
      const value = (JSON.parse(readFileSync(path, "utf8")) as { cleanupPeriodDays?: unknown }).cleanupPeriodDays;
      if (typeof value === "number" && Number.isFinite(value) && value >= 0) return { days: value, from: path };
    } catch {
      // not JSON: Claude Code would ignore it too
    }
  }
  return { days: defaultCleanupPeriodDays, from: undefined };
}

/** Claude Code containers whose path and fingerprint are not (yet) in the index's containers table. */
function findUnindexed(containers: readonly SourceContainer[], db: Database | undefined): SourceContainer[] {
  if (!db) return [...containers];
  const known = new Map(
    db
      .query<{ path: string; fingerprint: string }, []>("SELECT path, fingerprint FROM containers")
      .all()
      .map((row) => [row.path, row.fingerprint]),
  );
  return containers.filter((container) => known.get(container.path) !== container.fingerprint);
}

/**
 * WARN when Claude Code history is not indexed yet (with the days left before the oldest such file is deleted),
 * OK otherwise. `nowMs` is injectable for tests.
 */
export function checkCleanupPeriod(options: {
  claudeContainers: readonly SourceContainer[];
  db: Database | undefined;
  settingsPaths: readonly string[];
  nowMs?: number;
}): CheckResult {
  const { days, from } = readCleanupPeriodDays(options.settingsPaths);
  const setting = `cleanupPeriodDays = ${days}${from ? ` in ${from}` : " (Claude Code's default)"}`;
  const raise = `to keep more, set "cleanupPeriodDays": 365 in ${options.settingsPaths[0] ?? "~/.claude/settings.json"}`;
  if (options.claudeContainers.length === 0)
    return { id: "cleanup", status: "ok", message: `no Claude Code history to lose (${setting})` };
  const unindexed = findUnindexed(options.claudeContainers, options.db);
  if (unindexed.length === 0) {
    return {
      id: "cleanup",
      status: "ok",
      message: `all Claude Code history is indexed; Claude Code deletes sessions after ${days} days, recall keeps them (${setting})`,
    };
  }
  const nowMs = options.nowMs ?? Date.now();
  const oldestMs = Math.min(
    ...unindexed.map((container) => statSync(container.path, { throwIfNoEntry: false })?.mtimeMs ?? nowMs),
  );
  const daysLeft = Math.max(0, Math.floor(days - (nowMs - oldestMs) / dayMs));
  return {
    id: "cleanup",
    status: "warn",
    message: `${unindexed.length} Claude Code session file(s) are not indexed yet; Claude Code deletes the oldest in about ${daysLeft} day(s), and recall keeps only what it indexed before that (${setting})`,
    fix: `run \`recall index\` now (any search also indexes; indexed sessions stay in recall after Claude Code deletes them); ${raise}`,
  };
}
