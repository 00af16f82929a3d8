/**
 * A notice said at most once a day per index (issue 38: "keyword-only search: no embeddings yet" was printed above
 * every search of an index that never held vectors, which is a set-up, not a fault). The time it was last said is the
 * modification time of a small file in recall's data folder, beside the index it is about.
 */
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The file whose modification time says when the keyword-only notice was last shown, in the data folder. */
export const keywordOnlyNoticeFile = "keyword-only-notice";

const dayMs = 24 * 60 * 60 * 1000;

/**
 * True when the notice named `file` was not shown in the last 24 hours under `dataDir`, and then records `now` as
 * the time it is shown; false when it was. A marker that cannot be written (a read-only folder) leaves the answer
 * true: the notice is said again rather than never. Never throws.
 * @param dataDir recall's data folder (the index's folder)
 * @param now epoch ms
 */
export function dueOncePerDay(dataDir: string, file: string, now = Date.now()): boolean {
  const path = join(dataDir, file);
  const last = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
  if (last !== undefined && now - last >= 0 && now - last < dayMs) return false;
  try {
    writeFileSync(path, `${new Date(now).toISOString()}\n`);
  } catch {
    // a read-only data folder: say the notice each time, as before
  }
  return true;
}
