/**
 * The worker thread of match-window.ts: opens the index read-only on its first message ({@link MatchWorkerOpen}, with
 * the page cache of the connection it serves), then answers each {@link MatchWorkerRequest} with the ranked documents
 * of its rowid range, or the phrase ranking of that range, in the order asked.
 */
import { Database } from "bun:sqlite";
import {
  type MatchWorkerAnswer,
  type MatchWorkerOpen,
  type MatchWorkerRequest,
  rankPhraseRange,
  rankRange,
} from "./match-window.ts";

// A worker does the heavy work: the normal JIT at once, not the start-up policy the binary begins with (src/cli.ts).
Bun.unsafe.setJITPolicy(1);

declare const self: Worker;
let db: Database | undefined;
let openError: string | undefined;

self.onmessage = (event: MessageEvent<MatchWorkerOpen | MatchWorkerRequest>) => {
  const message = event.data;
  if ("open" in message) {
    try {
      db = new Database(message.open, { readonly: true });
      db.exec("PRAGMA busy_timeout = 5000"); // as index/schema.ts openIndex: a reader waits out a checkpoint's lock
      db.exec(`PRAGMA cache_size = ${Math.trunc(message.cacheSize)}`); // as large as the attached connection's
      db.query("SELECT count(*) FROM sqlite_schema").get(); // reads the schema: the first request pays nothing more
      self.postMessage({ ready: true } satisfies MatchWorkerAnswer);
    } catch (error) {
      openError = `cannot open ${message.open}: ${error instanceof Error ? error.message : String(error)}`;
    }
    return;
  }
  let answer: MatchWorkerAnswer;
  try {
    if (!db) throw new Error(openError ?? "the match worker has no index open");
    if (message.byId) {
      const ranking = rankPhraseRange(db, message.match, message.first, message.last);
      // the arrays' memory moves to the asking thread instead of being copied
      self.postMessage({ id: message.id, ranking } satisfies MatchWorkerAnswer, {
        transfer: [ranking.ids.buffer, ranking.ranks.buffer] as ArrayBuffer[],
      });
      return;
    }
    answer = { id: message.id, documents: rankRange(db, message.match, message.first, message.last, message.limit) };
  } catch (error) {
    answer = { id: message.id, error: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(answer);
};
