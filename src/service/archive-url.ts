/**
 * Which team archive a command uses: `--archive-url`, else RECALL_ARCHIVE_URL (the environment, then the settings
 * file), for every front end that reaches the archive (the CLI's archive commands, `recall watch`, the MCP tools).
 */
import { UsageError } from "../errors.ts";
import { loadEnvWithDotEnv } from "../embed/config.ts";
import type { RecallPaths } from "../home/paths.ts";
import { parseArchiveUrl, type ArchiveUrl } from "../team-archive/connection.ts";
import { warn, type HistoryContext } from "./context.ts";

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
export function archiveUrlFromArguments(given: string): ArchiveUrl {
  const url = parseArchiveUrl(given);
  if (url.hasPassword && !warnedAboutPassword) {
    warnedAboutPassword = true;
    warn(
      "recall: warning: the archive URL on the command line holds a password, which other users of this machine can read in `ps`; put it in PGPASSWORD or ~/.pgpass (PGPASSFILE) instead",
    );
  }
  return url;
}
