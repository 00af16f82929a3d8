/**
 * What the MCP tools stand on: the history (roots, RECALL_HOME), the embedding model opener and access to the
 * index, shared by every tool call of one server.
 * With the watcher running (the default), calls never re-index: the watcher keeps the index fresh, and calls
 * share one read-only connection (WAL: each statement sees the last commit and never waits for the writer).
 * Keeping it saves ~2 ms a search on the real corpus (open + schema check ~0.9 ms, statements prepared once;
 * measured 2026-11 on the 2-vCPU bench machine). The connection is reopened when the database file is replaced
 * (a snapshot restored, a damaged file set aside: another inode) or after it reported damage.
 * Without the watcher (`--no-watch`) each call brings the index up to date first and opens it afresh, exactly as
 * `recall search` does.
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { IndexError } from "../errors.ts";
import { openFreshIndex, type HistoryContext } from "./context.ts";
import type { EmbedderOpener } from "./embedder.ts";
import { openVectorLeg, type VectorLegChoice } from "./vector-leg.ts";
import { databasePath, longLivedPageCacheKibibytes } from "../index/index.ts";
import { attachLongLivedSearch } from "../search/index.ts";

/** Options of {@link createBackend}. */
export interface BackendOptions {
  context: HistoryContext;
  /** The model opener for the vector leg; undefined runs every search keyword-only. */
  embedder: EmbedderOpener | undefined;
  /** True while a watcher keeps the index fresh: calls answer from the last committed index. */
  watching: boolean;
  /** The folder the server was started in (its project is `recent`'s default). */
  cwd: string;
}

/** Index access for tool handlers. */
export interface Backend {
  readonly context: HistoryContext;
  readonly cwd: string;
  /**
   * Run `fn` on a read-only connection to the index. Without a committed index yet, the first one is built (or
   * the run building it is awaited, up to RECALL_FIRST_INDEX_WAIT_MS).
   * @throws IndexError from opening (INDEX_CORRUPT, INDEX_BUILDING, HOME_UNUSABLE), or whatever `fn` throws
   */
  withIndex<T>(fn: (db: Database) => T | Promise<T>): Promise<T>;
  /** The vector leg for a search on `db`, or the one-line reason there is none (service/vector-leg.ts). */
  vectorLeg(db: Database): Promise<VectorLegChoice>;
  /** The server's model opener (shared by every call, kept open), undefined when searches are keyword-only. */
  readonly embedder: EmbedderOpener | undefined;
  /** Close the shared connection and release the model. */
  close(): Promise<void>;
}

const noVectorLeg: VectorLegChoice = { leg: undefined, notice: undefined };

/** A shared connection, the file it was opened on, and how many calls use it now. */
interface Shared {
  db: Database;
  fileId: string;
  users: number;
  stale: boolean;
  /** Detaches what its searches share (search/long-lived.ts): the match worker, the kept scorings. */
  detachSearch: () => void;
}

/** Device and inode of the database file ("" when absent): a new value means another file took its place. */
function fileIdOf(path: string): string {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? `${stat.dev}:${stat.ino}` : "";
}

/** Create the backend of one server. */
export function createBackend(options: BackendOptions): Backend {
  const { context, embedder } = options;
  const path = databasePath(context.recallHome);
  let shared: Shared | undefined;

  async function openCommitted(): Promise<Database> {
    try {
      return await openFreshIndex(context, { reindex: false, pageCacheKibibytes: longLivedPageCacheKibibytes });
    } catch (error) {
      const noIndexYet =
        error instanceof IndexError && (error.code === "INDEX_MISSING" || error.code === "INDEX_BUILDING");
      if (!noIndexYet) throw error;
      return openFreshIndex(context, { reindex: true, embedder, pageCacheKibibytes: longLivedPageCacheKibibytes });
    }
  }
  const closeShared = (entry: Shared) => {
    entry.detachSearch();
    entry.db.close();
  };
  const release = (entry: Shared) => {
    entry.users--;
    if (entry.stale && entry.users === 0) closeShared(entry);
  };
  const retire = (entry: Shared) => {
    entry.stale = true;
    if (shared === entry) shared = undefined;
    if (entry.users === 0) closeShared(entry);
  };
  async function acquire(): Promise<Shared> {
    if (shared && shared.fileId !== fileIdOf(path)) retire(shared);
    if (!shared) {
      const db = await openCommitted();
      if (shared)
        db.close(); // another call opened one meanwhile
      else shared = { db, fileId: fileIdOf(path), users: 0, stale: false, detachSearch: attachLongLivedSearch(db) };
    }
    shared!.users++;
    return shared!;
  }

  return {
    context,
    cwd: options.cwd,
    async withIndex(fn) {
      if (!options.watching) {
        const db = await openFreshIndex(context, { reindex: true, embedder });
        try {
          return await fn(db);
        } finally {
          db.close();
        }
      }
      const entry = await acquire();
      try {
        return await fn(entry.db);
      } catch (error) {
        if (error instanceof IndexError) retire(entry); // damage met mid-query: reopen (and re-check) next time
        throw error;
      } finally {
        release(entry);
      }
    },
    embedder,
    vectorLeg: (db) => (embedder ? openVectorLeg(db, context.recallHome, embedder) : Promise.resolve(noVectorLeg)),
    async close() {
      if (shared) retire(shared);
      await embedder?.dispose();
    },
  };
}
