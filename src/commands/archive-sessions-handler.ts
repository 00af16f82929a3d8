/**
 * `recall sessions --archive [URL]` (issue 30): the listing comes from the team archive instead of the local index,
 * with the same filters and paging; each session names who pushed it and from where, and its archive id.
 */
import { renderArchiveListingJson, renderArchiveListingText } from "../render/archive-listing.ts";
import { paletteFor } from "../render/format.ts";
import { writeOut } from "../render/terminal.ts";
import type { SearchFilters } from "../search/listing/filters.ts";
import { shellQuote } from "../search/reading/hydrate.ts";
import { openArchive } from "../team-archive/connection.ts";
import { listArchiveSessions } from "../team-archive/listing.ts";
import { assertArchiveReady } from "../team-archive/schema.ts";
import { archiveUrlOf } from "../service/archive-url.ts";
import { resolveHistory } from "../service/context.ts";
import { nextPageCommand } from "./sessions-handler.ts";
import type { SessionsArgs } from "./sessions.ts";

/**
 * List one page of the archive's sessions and print it (text, or one JSON object with --json).
 * @param limit sessions per page (Infinity: all); `offset` sessions skipped first
 * @throws UsageError when no archive is named (service/archive-url.ts archiveUrlOf); ArchiveError from the archive
 */
export async function listTheArchive(
  args: SessionsArgs,
  filters: SearchFilters,
  limit: number,
  offset: number,
): Promise<number> {
  const url = archiveUrlOf(args.archiveUrl, resolveHistory(args));
  const connection = await openArchive(url);
  try {
    await assertArchiveReady(connection);
    const listing = await listArchiveSessions(connection, {
      filters: args.includeEmpty ? filters : { ...filters, hasTurns: true },
      limit,
      offset,
    });
    if (args.json) {
      writeOut(`${renderArchiveListingJson(listing)}\n`);
      return 0;
    }
    // The next page repeats the archive as given, without its password (it belongs in PGPASSWORD or ~/.pgpass).
    const archive = args.archiveUrl === undefined ? "--archive" : `--archive ${shellQuote(url.display)}`;
    const next =
      listing.nextOffset === undefined
        ? undefined
        : nextPageCommand(args, listing.nextOffset).replace(/^recall sessions/, `recall sessions ${archive}`);
    writeOut(renderArchiveListingText(listing, await paletteFor(1), next));
    return 0;
  } finally {
    await connection.close();
  }
}
