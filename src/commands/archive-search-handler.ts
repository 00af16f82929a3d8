/**
 * `recall search --archive` (issue 30): the search runs in the team archive instead of the local index; results are
 * marked with who pushed them and from where.
 */
import { renderArchiveSearchJson, renderArchiveSearchText } from "../render/archive.ts";
import { writeOut } from "../render/terminal.ts";
import type { SearchFilters } from "../search/listing/filters.ts";
import type { SearchLevel } from "../search/ranking/lexical.ts";
import type { Embedder } from "../embed/index.ts";
import { openArchive } from "../team-archive/connection.ts";
import { chooseArchiveVectorLeg, localModelFingerprint } from "../team-archive/vectors.ts";
import { createEmbedderOpener } from "../service/embedder.ts";
import { assertArchiveReady } from "../team-archive/schema.ts";
import { type ArchiveSearchResponse, searchArchive } from "../team-archive/search.ts";
import { resolveArchiveSessionId } from "../team-archive/show.ts";
import { parseOffset } from "../search/listing/paging.ts";
import { archiveUrlOf } from "../service/archive-url.ts";
import { type HistoryContext, resolveHistory } from "../service/context.ts";
import type { SearchArgs } from "./search.ts";

/** Run the search in the archive and print it (text, or one JSON object with --json). */
export async function searchTheArchive(
  args: SearchArgs,
  query: string,
  level: SearchLevel,
  filters: SearchFilters,
  limit: number,
): Promise<number> {
  const response = await archiveSearchResponse(args, resolveHistory(args), query, level, filters, limit);
  writeOut(args.json ? renderArchiveSearchJson(response) : renderArchiveSearchText(response));
  return 0;
}

/**
 * The archive's answer to a search: hybrid when this machine's model wrote vectors the archive holds (and the search
 * is not --keyword-only), else keyword-only with the reason among the notices.
 * @throws UsageError when no archive is set up; ArchiveError from the archive
 */
export async function archiveSearchResponse(
  args: SearchArgs,
  context: HistoryContext,
  query: string,
  level: SearchLevel,
  filters: SearchFilters,
  limit: number,
): Promise<ArchiveSearchResponse> {
  const url = archiveUrlOf(args.archiveUrl, context);
  const connection = await openArchive(url);
  let embedder: Embedder | undefined;
  try {
    await assertArchiveReady(connection);
    const semantic = args.keywordOnly
      ? {}
      : await chooseArchiveVectorLeg(connection, localModelFingerprint(context.recallHome), async () => {
          embedder = await createEmbedderOpener(context.paths, args.model, false).open();
          return embedder;
        });
    const sessionId = args.session ? await resolveArchiveSessionId(connection, args.session) : undefined;
    const response = await searchArchive(
      connection,
      {
        query,
        level,
        filters: sessionId ? { ...filters, sessionId } : filters,
        limit,
        offset: args.everywhere ? 0 : parseOffset(args.offset, "--offset"),
        mode: args.keywordOnly ? "keyword" : args.vectorOnly ? "vector" : semantic.leg ? "hybrid" : "keyword",
        alpha: args.alpha,
      },
      semantic.leg,
    );
    // as local search: the vector leg's reason replaces the generic notice, and --keyword-only asked for none
    if (args.keywordOnly) response.notices = [];
    else if (semantic.notice) response.notices = [semantic.notice];
    return response;
  } finally {
    await embedder?.dispose();
    await connection.close();
  }
}
