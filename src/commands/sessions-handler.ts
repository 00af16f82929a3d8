/**
 * What `recall sessions` does (its flags and help: sessions.ts): list indexed sessions, newest first, with filters, one
 * page at a time (`--limit N|all`, `--offset N`; issue 26: at most 1,000 and no way to the next ones).
 */
import { paletteFor } from "../render/format.ts";
import { renderSessionsJson, renderSessionsText } from "../render/sessions.ts";
import { writeOut } from "../render/terminal.ts";
import { loadDateWords, parseFilterArgs } from "../search/listing/arguments.ts";
import { shellQuote } from "../search/reading/hydrate.ts";
import { pageOf, parseListLimit, parseOffset } from "../search/listing/paging.ts";
import { countSessions, listSessions } from "../search/listing/sessions.ts";
import { openFreshIndex, resolveHistory } from "../service/context.ts";
import type { SessionsArgs } from "./sessions.ts";

/** Runs `recall sessions` with its parsed arguments; resolves to the exit code. */
export async function sessions(args: SessionsArgs): Promise<number> {
  const limit = parseListLimit(args.limit, 20, "--limit");
  const offset = parseOffset(args.offset, "--offset");
  await loadDateWords([args.since, args.until]);
  const filters = parseFilterArgs(args);
  if (args.archive || args.archiveUrl !== undefined)
    return (await import("./archive-sessions-handler.ts")).listTheArchive(args, filters, limit, offset);
  const db = await openFreshIndex(resolveHistory(args), { reindex: !args.noReindex });
  try {
    // Sessions without any turn (a file holding only summaries or snapshots) are noise in a listing: counted, not listed.
    const listed = args.includeEmpty ? filters : { ...filters, hasTurns: true };
    // One row more than the page tells whether another follows.
    const rows = listSessions(db, listed, Number.isFinite(limit) ? limit + 1 : -1, offset);
    const page = { ...pageOf(rows, offset, limit), total: countSessions(db, listed) };
    const emptyHidden = args.includeEmpty ? 0 : countSessions(db, { ...filters, hasTurns: false });
    const next = page.nextOffset === undefined ? undefined : nextPageCommand(args, page.nextOffset);
    writeOut(
      args.json
        ? `${renderSessionsJson(page, emptyHidden)}\n`
        : renderSessionsText(page, await paletteFor(1), emptyHidden, next),
    );
  } finally {
    db.close();
  }
  return 0;
}

/**
 * The command that lists the next page: the same filters and flags, `--offset` moved on, every value shell-quoted.
 * Example: `recall sessions --project shop --since 2026-03-01 --offset 20`.
 */
export function nextPageCommand(args: SessionsArgs, offset: number): string {
  const words = ["recall", "sessions"];
  const add = (name: string, value: string | number | undefined) => {
    if (value !== undefined) words.push(name, shellQuote(String(value)));
  };
  add("--project", args.project);
  add("--source", args.source);
  add("--since", args.since);
  add("--until", args.until);
  add("--branch", args.branch);
  if (args.includeSubagents) words.push("--include-subagents");
  if (args.includeEmpty) words.push("--include-empty");
  add("--limit", args.limit);
  add("--offset", offset);
  return words.join(" ");
}
