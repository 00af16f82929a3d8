/**
 * `recall doctor`: runs every check in order and renders the report (text or JSON). Library code: prints
 * nothing; the command writes what `renderDoctorText` / `renderDoctorJson` return.
 */
import { checkSummaries } from "./summaries.ts";
import { isLoopbackUrl } from "../embed/index.ts";
import { pathsUnder, type RecallPaths } from "../index/index.ts";
import type { SourceRootMap } from "../parsers/index.ts";
import { findUnreadHistory } from "../parsers/unread-history.ts";
import { checkFolders, checkSnapshot } from "./archive.ts";
import { checkTuning } from "./tuning.ts";
import {
  checkCalibration,
  checkEndpoint,
  checkIndex,
  checkLocalModel,
  checkNotKept,
  checkSources,
  checkUnreadHistory,
  checkVectors,
  effectiveEnv,
  plural,
  resolveConfigForDoctor,
  scanSources,
  type CheckResult,
} from "./checks.ts";
import { checkCleanupPeriod, claudeSettingsPaths } from "./cleanup-period.ts";
import { checkTeamArchive } from "./team-archive.ts";

export type { CheckResult, CheckStatus } from "./checks.ts";
export {
  checkCleanupPeriod,
  claudeSettingsPaths,
  readCleanupPeriodDays,
  defaultCleanupPeriodDays,
} from "./cleanup-period.ts";
export { checkFolders, checkSnapshot, restoreLastSnapshot, renderRestoreJson, renderRestoreText } from "./archive.ts";

/** Inputs of one doctor run. */
export interface DoctorOptions {
  /** the data folder (index, vectors, snapshots) */
  recallHome: string;
  /** data, config and cache folders; default: all three are `recallHome` (RECALL_HOME) */
  paths?: RecallPaths;
  roots: SourceRootMap;
  /** process environment (the `.env` file of `paths.config` is merged under it) */
  env: Record<string, string | undefined>;
  /** home folder, for ~/.claude/settings.json */
  home: string;
  /** load the local model and embed a probe text (slow) */
  loadModel?: boolean;
  /** `--model` value */
  modelFlag?: string | undefined;
  /** remote endpoint timeout in ms; default 5000 */
  endpointTimeoutMs?: number;
}

/**
 * Runs the checks: sources, unread history, folders, index, snapshot (when an index exists), vectors (when the index is intact),
 * model or endpoint, summaries, the team archive (when RECALL_ARCHIVE_URL is set), cleanup.
 * @returns one result per check, in report order; never throws for a failing check
 */
export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const paths = options.paths ?? pathsUnder(options.recallHome);
  const results: CheckResult[] = [];
  const scanned = scanSources(options.roots);
  results.push(checkSources(scanned), checkUnreadHistory(findUnreadHistory(options.env, options.home)));
  results.push(checkFolders(paths));
  const { result: indexResult, db } = checkIndex(options.recallHome, options.roots, scanned);
  results.push(indexResult);
  // the index the checks below read, when it opened and passed its integrity check
  const readable = db && indexResult.status !== "fail" ? db : undefined;
  const snapshot = checkSnapshot(options.recallHome);
  if (snapshot) results.push(snapshot);
  try {
    if (readable) {
      results.push(checkNotKept(readable));
      results.push(checkVectors(readable, options.recallHome));
    }
    const { env, offline } = effectiveEnv(options.env, paths);
    const { config, result } = resolveConfigForDoctor(env, paths, options.modelFlag);
    if (result) results.push(result);
    else if (config?.kind === "local") results.push(await checkLocalModel(config, options.loadModel ?? false));
    // An endpoint on loopback is allowed under RECALL_OFFLINE=1 (it downloads nothing), so it is checked too.
    else if (config?.kind === "remote" && (!offline || isLoopbackUrl(config.url)))
      results.push(await checkEndpoint(config, options.endpointTimeoutMs));
    if (config) results.push(checkCalibration(config));
    results.push(checkSummaries(readable, env), checkTuning(readable, config));
    // as `search --archive`, under RECALL_OFFLINE=1 too: it forbids downloads, and the archive is the user's own server
    const archive = await checkTeamArchive(env);
    if (archive) results.push(archive);
    results.push(
      checkCleanupPeriod({
        claudeContainers: scanned["claude-code"].containers,
        db,
        settingsPaths: claudeSettingsPaths(env, options.home),
      }),
    );
  } finally {
    db?.close();
  }
  return results;
}

const labels = { ok: "OK  ", warn: "WARN", fail: "FAIL" } as const;

/** Text report: `OK   <id>  <message>` per check, `     fix: <fix>` under WARN/FAIL, and a closing summary line. */
export function renderDoctorText(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((result) => result.id.length));
  const lines = results.flatMap((result) => {
    const head = `${labels[result.status]} ${result.id.padEnd(width)}  ${result.message}`;
    return result.fix && result.status !== "ok" ? [head, `${" ".repeat(width + 7)}fix: ${result.fix}`] : [head];
  });
  const failed = results.filter((result) => result.status === "fail").length;
  const warned = results.filter((result) => result.status === "warn").length;
  lines.push(
    failed > 0
      ? `${plural(failed, "check")} failed, ${plural(warned, "warning")}`
      : warned > 0
        ? `no failures, ${plural(warned, "warning")}`
        : "all checks passed",
  );
  return `${lines.join("\n")}\n`;
}

/**
 * JSON report: `{"version": 1, "ok": <no FAIL>, "checks": [{id, status, message, fix}]}` on one line (`version`: the
 * JSON contract's, as in search and show).
 */
export function renderDoctorJson(results: readonly CheckResult[]): string {
  const checks = results.map(({ id, status, message, fix }) => ({ id, status, message, fix: fix ?? null }));
  return JSON.stringify({ version: 1, ok: results.every((result) => result.status !== "fail"), checks });
}
