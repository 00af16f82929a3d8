/**
 * `recall search --archive` (issue 30): the search runs in the team archive instead of the local index; results are
 * marked with who pushed them and from where.
 */
import { renderArchiveSearchText } from "../render/archive.ts";
import { writeOut } from "../render/terminal.ts";
import type { SearchFilters } from "../search/filters.ts";
import type { SearchLevel } from "../search/lexical.ts";
import { openArchive } from "../team-archive/connection.ts";
import { assertArchiveReady } from "../team-archive/schema.ts";
import { searchArchive } from "../team-archive/search.ts";
import { archiveUrlOf } from "./archive-handler.ts";
import { resolveHistory } from "./context.ts";
import type { SearchArgs } from "./search.ts";

/** Run the search in the archive and print it (text, or one JSON object with --json). */
export async function searchTheArchive(
  args: SearchArgs,
  query: string,
  level: SearchLevel,
  filters: SearchFilters,
  limit: number,
): Promise<number> {
  const url = archiveUrlOf(args.archiveUrl, resolveHistory(args));
  const connection = await openArchive(url);
  try {
    await assertArchiveReady(connection);
    const response = await searchArchive(connection, {
      query,
      level,
      filters: args.session ? { ...filters, sessionId: args.session } : filters,
      limit,
    });
    writeOut(args.json ? `${JSON.stringify(response)}\n` : renderArchiveSearchText(response));
    return 0;
  } finally {
    await connection.close();
  }
}
