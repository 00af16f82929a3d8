/**
 * What `recall archive init` and `recall archive push` do (issue 30); the flags are in archive.ts.
 */
import { writeSetting } from "../embed/settings-file.ts";
import { renderPushJson } from "../render/archive.ts";
import { countOf } from "../render/format.ts";
import { createProgressBar } from "../render/progress.ts";
import { writeOut } from "../render/terminal.ts";
import { openArchive } from "../team-archive/connection.ts";
import { archiveUrlFromArguments, archiveUrlOf, archiveUrlSetting } from "../service/archive-url.ts";
import { describeCreateRights } from "../team-archive/create-rights.ts";
import { pushToArchive } from "../team-archive/push.ts";
import { initArchive } from "../team-archive/schema.ts";
import type { ArchiveInitArgs, ArchivePushArgs } from "./archive.ts";
import { openFreshIndex, resolveHistory, warn } from "../service/context.ts";

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
