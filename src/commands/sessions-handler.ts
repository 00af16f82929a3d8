/** What `recall sessions` does (its flags and help: sessions.ts): list indexed sessions, newest first, with filters. */
import { paletteFor } from "../render/format.ts";
import { renderSessionsJson, renderSessionsText } from "../render/sessions.ts";
import { writeOut } from "../render/terminal.ts";
import { parseFilterArgs } from "../search/arguments.ts";
import { parseLimit } from "../search/paging.ts";
import { listSessions } from "../search/sessions.ts";
import { openFreshIndex, resolveHistory } from "./context.ts";
import type { SessionsArgs } from "./sessions.ts";

/** Runs `recall sessions` with its parsed arguments; resolves to the exit code. */
export async function sessions(args: SessionsArgs): Promise<number> {
  const limit = parseLimit(args.limit, 20, "--limit");
  const filters = parseFilterArgs(args);
  const db = await openFreshIndex(resolveHistory(args), { reindex: !args.noReindex });
  try {
    const sessions = listSessions(db, filters, limit);
    writeOut(args.json ? `${renderSessionsJson(sessions)}\n` : renderSessionsText(sessions, await paletteFor(1)));
  } finally {
    db.close();
  }
  return 0;
}
