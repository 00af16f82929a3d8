/**
 * The team archive's side of `recall search --archive` and `--everywhere` (issue 30): the connection, checked to hold
 * this recall's schema, and the archive's vector leg of this machine's model (hybrid when the archive holds its
 * vectors and the search is not --keyword-only), with the reason among the notices when there is none. The search
 * and its rendering are local search's (search-handler.ts).
 */
import type { Embedder } from "../embed/index.ts";
import type { VectorLeg } from "../search/pipeline.ts";
import { type ArchiveConnection, openArchive } from "../team-archive/connection.ts";
import { assertArchiveReady } from "../team-archive/schema.ts";
import { resolveArchiveSessionId } from "../team-archive/show.ts";
import { chooseArchiveVectorLeg, localModelFingerprint } from "../team-archive/vectors.ts";
import { archiveUrlOf } from "../service/archive-url.ts";
import type { HistoryContext } from "../service/context.ts";
import { createEmbedderOpener } from "../service/embedder.ts";
import type { SearchArgs } from "./search.ts";

/** An archive opened for one search. */
export interface ArchiveForSearch {
  connection: ArchiveConnection;
  /** The archive's vector leg, absent for keyword-only. */
  vectorLeg: VectorLeg | undefined;
  /** Why there is no vector leg (replaces the pipeline's generic notice); undefined with a leg or --keyword-only. */
  notice: string | undefined;
  /** The session `--session` names in the archive (an archive id, a session id or a prefix), when given. */
  sessionId: string | undefined;
  /** Release the model (when one was loaded) and the connection. */
  close(): Promise<void>;
}

/**
 * Open the archive for a search (module doc).
 * @param resolveSession whether `--session` names a session of the archive (`--archive`), not of this machine
 * @throws UsageError when no archive is set up; ArchiveError from the archive; SessionLookupError for an unknown
 *         `--session`
 */
export async function openArchiveForSearch(
  args: SearchArgs,
  context: HistoryContext,
  resolveSession: boolean,
): Promise<ArchiveForSearch> {
  const connection = await openArchive(archiveUrlOf(args.archiveUrl, context));
  let embedder: Embedder | undefined;
  const close = async () => {
    await embedder?.dispose();
    await connection.close();
  };
  try {
    await assertArchiveReady(connection);
    const semantic = args.keywordOnly
      ? {}
      : await chooseArchiveVectorLeg(connection, localModelFingerprint(context.recallHome), async () => {
          embedder = await createEmbedderOpener(context.paths, args.model, false).open();
          return embedder;
        });
    const sessionId =
      resolveSession && args.session ? await resolveArchiveSessionId(connection, args.session) : undefined;
    return { connection, vectorLeg: semantic.leg, notice: semantic.notice, sessionId, close };
  } catch (error) {
    await close();
    throw error;
  }
}
