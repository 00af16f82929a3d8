/** What `recall sessions` does (its flags and help: sessions.ts): list indexed sessions, newest first, with filters. */
import { paletteFor } from "../render/format.ts";
import { renderSessionsJson, renderSessionsText } from "../render/sessions.ts";
import { writeOut } from "../render/terminal.ts";
import { loadDateWords, parseFilterArgs } from "../search/arguments.ts";
import { parseLimit } from "../search/paging.ts";
import { countSessions, listSessions } from "../search/sessions.ts";
import { openFreshIndex, resolveHistory } from "./context.ts";
import type { SessionsArgs } from "./sessions.ts";

/** Runs `recall sessions` with its parsed arguments; resolves to the exit code. */
export async function sessions(args: SessionsArgs): Promise<number> {
  const limit = parseLimit(args.limit, 20, "--limit");
  await loadDateWords([args.since, args.until]);
  const filters = parseFilterArgs(args);
  const db = await openFreshIndex(resolveHistory(args), { reindex: !args.noReindex });
  try {
    // Sessions without any turn (a file holding only summaries or snapshots) are noise in a listing: counted, not listed.
    const sessions = listSessions(db, args.includeEmpty ? filters : { ...filters, hasTurns: true }, limit);
    const emptyHidden = args.includeEmpty ? 0 : countSessions(db, { ...filters, hasTurns: false });
    writeOut(
      args.json
        ? `${renderSessionsJson(sessions, emptyHidden)}\n`
        : renderSessionsText(sessions, await paletteFor(1), emptyHidden),
    );
  } finally {
    db.close();
  }
  return 0;
}
