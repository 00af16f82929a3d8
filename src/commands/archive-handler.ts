/**
 * What `recall archive init` and `recall archive push` do (issue 30); the flags are in archive.ts.
 */
import { UsageError } from "../errors.ts";
import { loadEnvWithDotEnv } from "../embed/config.ts";
import { writeSetting } from "../embed/settings-file.ts";
import type { RecallPaths } from "../index/archive/home.ts";
import { renderPushJson } from "../render/archive.ts";
import { countOf } from "../render/format.ts";
import { createProgressBar } from "../render/progress.ts";
import { writeOut } from "../render/terminal.ts";
import { openArchive, parseArchiveUrl, type ArchiveUrl } from "../team-archive/connection.ts";
import { describeCreateRights } from "../team-archive/create-rights.ts";
import { pushToArchive } from "../team-archive/push.ts";
import { initArchive } from "../team-archive/schema.ts";
import type { ArchiveInitArgs, ArchivePushArgs } from "./archive.ts";
import { openFreshIndex, resolveHistory, warn, type HistoryContext } from "./context.ts";

/** The setting that names the archive (saved by `archive init`, without the password). */
export const archiveUrlSetting = "RECALL_ARCHIVE_URL";

/**
 * The archive to use: `--archive-url`, else RECALL_ARCHIVE_URL (environment, then the settings file).
 * @throws UsageError when neither names one, or the URL is not a PostgreSQL URL
 */
export function archiveUrlOf(given: string | undefined, context: HistoryContext): ArchiveUrl {
  return archiveUrlFromPaths(given, context.paths);
}

/**
 * {@link archiveUrlOf} for a command that has the recall folders but no history context (watch).
 * @throws UsageError when neither names an archive, or the URL is not a PostgreSQL URL
 */
export function archiveUrlFromPaths(given: string | undefined, paths: RecallPaths): ArchiveUrl {
  if (given !== undefined) return archiveUrlFromArguments(given);
  const value = loadEnvWithDotEnv(process.env, paths)[archiveUrlSetting];
  if (!value)
    throw new UsageError(
      "no team archive is set up",
      "give --archive-url postgresql://user@host/db, or run `recall archive init <url>` once",
    );
  return parseArchiveUrl(value);
}

let warnedAboutPassword = false;

/**
 * An archive URL given on the command line, parsed; when it holds a password, a warning on stderr (once a process)
 * that other local users see it in `ps` (a process's arguments are world-readable in /proc/PID/cmdline, unlike its
 * environment), naming PGPASSWORD and ~/.pgpass as the places for it.
 * @throws UsageError when it is not a PostgreSQL URL
 */
function archiveUrlFromArguments(given: string): ArchiveUrl {
  const url = parseArchiveUrl(given);
  if (url.hasPassword && !warnedAboutPassword) {
    warnedAboutPassword = true;
    warn(
      "recall: warning: the archive URL on the command line holds a password, which other users of this machine can read in `ps`; put it in PGPASSWORD or ~/.pgpass (PGPASSFILE) instead",
    );
  }
  return url;
}

/** `recall archive init <url> [--team NAME]…`. */
export async function archiveInit(args: ArchiveInitArgs): Promise<number> {
  const url = archiveUrlFromArguments(args.url);
  const context = resolveHistory(args);
  const connection = await openArchive(url);
  let report: Awaited<ReturnType<typeof initArchive>>;
  try {
    report = await initArchive(connection, args.teams);
  } finally {
    await connection.close();
  }
  const saved = args.noSave ? undefined : writeSetting(context.paths, archiveUrlSetting, url.display);
  const rights = describeCreateRights(report.createRights);
  if (rights) warn(`recall: warning: ${rights.message}; ${rights.fix}`);
  if (args.json) {
    writeOut(`${JSON.stringify({ archive: url.display, ...report, savedTo: saved ?? null })}\n`);
    return 0;
  }
  const applied =
    report.applied.length > 0
      ? `schema version ${report.version} created`
      : `schema version ${report.version} already there`;
  const teams = report.teamsCreated.length > 0 ? `; teams created: ${report.teamsCreated.join(", ")}` : "";
  writeOut(`archive ${url.display}: ${applied}${teams}\n`);
  if (!report.vectors) warn("recall: the server has no pgvector (`vector` extension): the archive is keyword-only");
  if (saved) warn(`recall: saved ${archiveUrlSetting} in ${saved}${url.hasPassword ? " (without the password)" : ""}`);
  for (const team of report.teamsCreated)
    warn(
      `recall: add members with: GRANT recall_team_${team} TO <role>;  (each member pushes and searches as that role)`,
    );
  return 0;
}

/** `recall archive push`. */
export async function archivePush(args: ArchivePushArgs): Promise<number> {
  const context = resolveHistory(args);
  const url = archiveUrlOf(args.archiveUrl, context);
  const db = await openFreshIndex(context, { reindex: !args.noReindex });
  try {
    const connection = await openArchive(url);
    const progress = args.json ? { update() {}, stop() {} } : await createProgressBar("pushing", "sessions");
    try {
      const summary = await pushToArchive(db, connection, {
        team: args.team,
        recallHome: context.recallHome,
        onProgress: (sent, total) => progress.update(sent, total),
      });
      progress.stop();
      if (args.json) writeOut(renderPushJson(summary));
      else
        writeOut(
          `pushed to ${summary.archive} (team ${summary.team}, machine ${summary.machine}): ${countOf(summary.sent, "session")} sent, ${summary.unchanged} unchanged; ${countOf(summary.turns, "turn")}, ${countOf(summary.documents, "document")}, ${countOf(summary.vectors, "vector")}; ${(summary.elapsedMs / 1000).toFixed(1)} s\n`,
        );
      return 0;
    } finally {
      progress.stop();
      await connection.close();
    }
  } finally {
    db.close();
  }
}
