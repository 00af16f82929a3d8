/**
 * `recall search --archive` (issue 30): the search runs in the team archive instead of the local index; results are
 * marked with who pushed them and from where.
 */
import { renderArchiveSearchJson, renderArchiveSearchText } from "../render/archive.ts";
import { writeOut } from "../render/terminal.ts";
import type { SearchFilters } from "../search/filters.ts";
import type { SearchLevel } from "../search/lexical.ts";
import { existsSync } from "node:fs";
import type { Embedder } from "../embed/index.ts";
import { databasePath, openIndex, readMeta } from "../index/index.ts";
import { embedFingerprintKey } from "../index/vectors/vector-files.ts";
import type { VectorLeg } from "../search/api.ts";
import { type ArchiveConnection, openArchive } from "../team-archive/connection.ts";
import { archiveModel, createArchiveVectorLeg } from "../team-archive/vectors.ts";
import { createEmbedderOpener } from "./embedder.ts";
import { assertArchiveReady } from "../team-archive/schema.ts";
import { type ArchiveSearchResponse, searchArchive } from "../team-archive/search.ts";
import { resolveArchiveSessionId } from "../team-archive/show.ts";
import { parseOffset } from "../search/paging.ts";
import { archiveUrlOf } from "./archive-handler.ts";
import { type HistoryContext, resolveHistory } from "./context.ts";
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
    const semantic = args.keywordOnly ? undefined : await archiveVectorLeg(connection, context, args.model);
    embedder = semantic?.embedder;
    const sessionId = args.session ? await resolveArchiveSessionId(connection, args.session) : undefined;
    const response = await searchArchive(
      connection,
      {
        query,
        level,
        filters: sessionId ? { ...filters, sessionId } : filters,
        limit,
        offset: args.everywhere ? 0 : parseOffset(args.offset, "--offset"),
      },
      semantic?.leg,
    );
    if (semantic?.notice) response.notices.push(semantic.notice);
    return response;
  } finally {
    await embedder?.dispose();
    await connection.close();
  }
}

/**
 * The archive's vector leg, when this machine's model wrote vectors the archive holds: the local index names the
 * model (its fingerprint), the archive has it registered, and the configured model opens with that fingerprint.
 * Otherwise undefined with the reason as a notice (the search is keyword-only).
 */
async function archiveVectorLeg(
  connection: ArchiveConnection,
  context: HistoryContext,
  modelFlag: string | undefined,
): Promise<{ leg?: VectorLeg; embedder?: Embedder; notice?: string } | undefined> {
  if (!existsSync(databasePath(context.recallHome))) return undefined;
  const db = openIndex(databasePath(context.recallHome), { readonly: true });
  let fingerprint: string | undefined;
  try {
    fingerprint = readMeta(db, embedFingerprintKey);
  } finally {
    db.close();
  }
  if (!fingerprint) return undefined;
  const model = await archiveModel(connection, fingerprint);
  if (!model) return { notice: "keyword-only search: the archive holds no vectors of this machine's model" };
  const opener = createEmbedderOpener(context.paths, modelFlag, false);
  let embedder: Embedder;
  try {
    embedder = await opener.open();
  } catch (error) {
    return { notice: `keyword-only search: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (embedder.fingerprintKey !== fingerprint) {
    await embedder.dispose();
    return { notice: "keyword-only search: the configured model is not the one that wrote the archive's vectors" };
  }
  const leg = createArchiveVectorLeg(connection, model, {
    name: embedder.fingerprint.name,
    embedQuery: (text) => embedder.embedQuery(text),
  });
  return { leg, embedder };
}
