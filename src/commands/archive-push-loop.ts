/**
 * `recall watch --push` (issue 30): push to the team archive after the watcher commits changes. One push at a time; a
 * change during a push asks for one more after it. A failed push (server down, connection dropped) is said once per
 * failure and tried again at the next change; what was committed stays (push.ts: one transaction per batch).
 */
import { databasePath, openIndex } from "../index/index.ts";
import { type ArchiveUrl, openArchive } from "../team-archive/connection.ts";
import { chooseTeam, type PushSummary, pushToArchive } from "../team-archive/push.ts";
import { assertArchiveReady } from "../team-archive/schema.ts";

/** A pusher that follows the watcher. */
export interface ArchivePusher {
  /** Ask for a push (now, or after the one in flight). */
  request(): void;
  /** Wait for the push in flight, then stop taking requests. */
  close(): Promise<void>;
}

/**
 * Check that the archive can be pushed to now (reachable, initialized, the role in `team` or in one team), so a
 * misconfigured `watch --push` fails at start with one line rather than at the first change.
 * @returns the team pushes go to
 * @throws ArchiveError ARCHIVE_UNREACHABLE, ARCHIVE_AUTH, ARCHIVE_NOT_INITIALIZED, ARCHIVE_REFUSED
 */
export async function checkArchiveForPush(url: ArchiveUrl, team: string | undefined): Promise<string> {
  const connection = await openArchive(url);
  try {
    await assertArchiveReady(connection);
    return await chooseTeam(connection, team);
  } finally {
    await connection.close();
  }
}

/**
 * Start a pusher for the index in `recallHome`.
 * @param hooks.onPushed after each push that sent something; hooks.onError with each failure (never throws)
 */
export function createArchivePusher(
  url: ArchiveUrl,
  team: string,
  recallHome: string,
  hooks: { onPushed(summary: PushSummary): void; onError(error: unknown): void },
): ArchivePusher {
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  const pushOnce = async () => {
    const db = openIndex(databasePath(recallHome), { readonly: true });
    try {
      const connection = await openArchive(url);
      try {
        const summary = await pushToArchive(db, connection, { team, recallHome });
        if (summary.sent > 0) hooks.onPushed(summary);
      } finally {
        await connection.close();
      }
    } finally {
      db.close();
    }
  };
  const run = () => {
    running = (async () => {
      do {
        again = false;
        try {
          await pushOnce();
        } catch (error) {
          hooks.onError(error);
        }
      } while (again && !closed);
      running = undefined;
    })();
  };
  return {
    request() {
      if (closed) return;
      if (running) again = true;
      else run();
    },
    async close() {
      closed = true;
      await running;
    },
  };
}
