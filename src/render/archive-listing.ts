/**
 * Output of `recall sessions --archive` (issue 30), beside render/sessions.ts's local listing.
 * `--json`: {"version": 1, "archive": "postgresql://user@host:port/db" (no password), "sessions": [{"archive_id"
 * (string of digits: what `show --archive` takes), "session_id", "source", "project", "project_path", "title",
 * "abstract" (issue 41: format.ts `abstractJson`, each part cut to 600 characters as the local listing's), "started_at",
 * "ended_at", "turns", "git_branch", "is_subagent", "team", "pushed_by" (the PostgreSQL role that pushed it), "machine",
 * "os_user"}], "empty_sessions_hidden", "total", "offset", "next_offset" (null on the last page)}: the local listing's
 * fields the archive holds (ISO-8601 UTC times, full ids), plus the origin.
 * Text: one line per session, newest first, in aligned columns, each naming who pushed it and from where, and under a
 * session with an abstract a dim line with its first part (as render/sessions.ts); control characters from sessions
 * shown as `\xNN` (escapes.ts) in both.
 */
import type { ArchiveListing } from "../team-archive/listing.ts";
import { jsonLine, neutralizeStrings } from "./escapes.ts";
import {
  abstractJson,
  archiveOriginText,
  countOf,
  isoTime,
  localDate,
  oneLine,
  type Palette,
  projectLabel,
  sessionIdentityJson,
} from "./format.ts";
import { fitColumns, padColumns, withAbstractLine } from "./sessions.ts";

/** `recall sessions --archive --json`: one JSON object (see the file comment). */
export function renderArchiveListingJson(listing: ArchiveListing): string {
  return jsonLine({
    version: 1,
    archive: listing.archive,
    sessions: listing.items.map((s) => ({
      archive_id: s.archiveId,
      ...sessionIdentityJson(s),
      abstract: abstractJson(s.abstract),
      started_at: isoTime(s.startedAt),
      ended_at: isoTime(s.endedAt),
      turns: s.turns,
      git_branch: s.gitBranch,
      is_subagent: s.isSubagent,
      team: s.team,
      pushed_by: s.pushedBy,
      machine: s.machine,
      os_user: s.osUser,
    })),
    empty_sessions_hidden: listing.emptyHidden,
    total: listing.total,
    offset: listing.offset,
    next_offset: listing.nextOffset ?? null,
  });
}

/**
 * `recall sessions --archive`: one line per session — archive id, source, project, local date of its last activity,
 * turns, title, then who pushed it and from where (`by alice@laptop, team alpha`) — and under a session with an
 * abstract (issue 41) a dim line with its first part. When more pages follow, a line says which sessions these are of
 * how many and gives `next`, the command for the next page; when `emptyHidden` > 0, a line says how many sessions
 * without turns were left out. A last line says how to read one.
 */
export function renderArchiveListingText(listing: ArchiveListing, palette: Palette, next?: string): string {
  const hiddenNote =
    listing.emptyHidden > 0
      ? palette.dim(
          `(${countOf(listing.emptyHidden, "session")} without any turn not listed: --include-empty lists ${listing.emptyHidden === 1 ? "it" : "them"})`,
        )
      : "";
  if (listing.items.length === 0) {
    const none =
      listing.total > 0
        ? `No sessions in the archive past the first ${listing.total.toLocaleString("en-US")}.`
        : `No sessions in the archive ${listing.archive} match (or none the role may see).`;
    return `${none}${hiddenNote ? `\n${hiddenNote}` : ""}\n`;
  }
  const sessions = neutralizeStrings(listing.items);
  const idWidth = Math.max(...sessions.map((s) => s.archiveId.length));
  const turnsWidth = Math.max(...sessions.map((s) => countOf(s.turns, "turn").length));
  const lines = sessions.map((s) => {
    const project = padColumns(fitColumns(oneLine(projectLabel(s.project), 200), 24), 24);
    const line = [
      palette.cyan(s.archiveId.padStart(idWidth)),
      s.source.padEnd(11),
      s.project ? project : palette.dim(project),
      localDate(s.endedAt).padEnd(10),
      countOf(s.turns, "turn").padStart(turnsWidth),
      `${fitColumns(oneLine(s.title ?? "", 200), 60)}${s.isSubagent ? palette.dim(" (sub-agent)") : ""}  ${palette.dim(archiveOriginText(s))}`,
    ].join("  ");
    return withAbstractLine(line, s.abstract, idWidth + 2, palette);
  });
  if (next) {
    const shown = `${(listing.offset + 1).toLocaleString("en-US")}–${(listing.offset + listing.items.length).toLocaleString("en-US")}`;
    lines.push(palette.dim(`(sessions ${shown} of ${listing.total.toLocaleString("en-US")}; next page: ${next})`));
  }
  if (hiddenNote) lines.push(hiddenNote);
  lines.push(palette.dim("(read one: recall show --archive <first column>)"));
  return `${lines.join("\n")}\n`;
}
