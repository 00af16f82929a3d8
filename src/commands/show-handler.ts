/**
 * What `recall show <session>[:<from>-<to>]` does (its flags and help: show.ts): re-parse the source and print the
 * full conversation for those turns, with tool calls. `:5` means turn 5; no range means all turns; `:r2` or
 * `--rewound` the turns of branches the user rewound past (issue 26). When the source is gone or unreadable, the turns
 * come from recall's archive and a note says so (issue 9). Secrets are redacted unless `--no-redact`.
 */
import { UsageError } from "../errors.ts";
import { paletteFor } from "../render/format.ts";
import { archiveNote, renderShowJson, renderShowText, showViewOf } from "../render/show.ts";
import { writeOut } from "../render/terminal.ts";
import { findSession, readSessionTurns, selectTurnRange, type TurnBranch } from "../search/index.ts";
import { openFreshIndex, resolveHistory, warn } from "../service/context.ts";
import type { ShowArgs } from "./show.ts";

/** A parsed `<session>[:<from>[-<to>]]` argument; `to` undefined means "to the end". */
export interface SessionRange {
  id: string;
  from: number;
  to: number | undefined;
  /** `rewound` for `:r2` or `:r1-r3`, the turns of branches the user rewound past (issue 26). */
  branch: TurnBranch;
}

/**
 * Parse a session reference. Examples: `abc12345` → all turns; `abc12345:5` → turn 5;
 * `abc12345:5-9` → turns 5 to 9; `abc12345:5-` → 5 to the end; `abc12345:r2` → rewound turn 2; `abc12345:r1-r3` (or
 * `:r1-3`) → rewound turns 1 to 3.
 * @throws UsageError for a malformed range or turn numbers below 1
 */
export function parseSessionRange(text: string): SessionRange {
  const match = /^([^:\s]+)(?::(r?)(\d+)(?:-(r?)(\d*))?)?$/.exec(text.trim());
  if (!match || (match[4] === "r" && match[2] !== "r"))
    throw new UsageError(
      `cannot read "${text}" as <session>[:<from>-<to>]`,
      "example: recall show 2c5941bd:5-9 (or :r1-r2 for rewound turns)",
    );
  const branch: TurnBranch = match[2] === "r" ? "rewound" : "main";
  const from = match[3] === undefined ? 1 : Number(match[3]);
  const to =
    match[3] === undefined ? undefined : match[5] === undefined ? from : match[5] === "" ? undefined : Number(match[5]);
  if (from < 1 || (to !== undefined && to < from))
    throw new UsageError(
      `turn range ${match[3]}-${match[5] ?? match[3]} is empty`,
      "turns are numbered from 1, as in 5-9",
    );
  return { id: match[1]!, from, to, branch };
}

/** Runs `recall show` with its parsed arguments; resolves to the exit code. */
export async function show(args: ShowArgs): Promise<number> {
  const range = parseSessionRange(args.target);
  if (args.archive || args.archiveUrl !== undefined) return showFromArchive(args, range);
  const db = await openFreshIndex(resolveHistory(args), { reindex: !args.noReindex });
  try {
    const summary = findSession(db, range.id);
    const read = readSessionTurns(db, summary, { redact: !args.noRedact });
    // The checks MCP read_turns shares: a turn past the last one (any turn after 1 of a session without turns) is a usage error.
    const branch: TurnBranch = args.rewound ? "rewound" : range.branch;
    const chosen = selectTurnRange(
      summary.sessionId,
      read.result.turns,
      read.result.session.turnCount,
      range.from,
      range.to,
      branch,
    );
    const view = showViewOf({ summary, read }, chosen.from, chosen.to, branch);
    if (view.fromArchive) warn(`recall: ${summary.sessionId}: ${archiveNote(view)}`);
    writeOut(args.json ? `${renderShowJson(view)}\n` : renderShowText(view, await paletteFor(1)));
  } finally {
    db.close();
  }
  return 0;
}

/** `recall show --archive <id>[:<from>-<to>]`: the turns as the team archive holds them (issue 30). */
async function showFromArchive(args: ShowArgs, range: SessionRange): Promise<number> {
  if (range.branch === "rewound" || args.rewound)
    throw new UsageError("the archive holds the conversation only, not rewound turns", "drop :r… and --rewound");
  const [
    { archiveUrlOf },
    { openArchive },
    { assertArchiveReady },
    { readArchiveSession },
    { renderArchiveSessionJson, renderArchiveSessionText },
  ] = await Promise.all([
    import("../service/archive-url.ts"),
    import("../team-archive/connection.ts"),
    import("../team-archive/schema.ts"),
    import("../team-archive/show.ts"),
    import("../render/archive.ts"),
  ]);
  const connection = await openArchive(archiveUrlOf(args.archiveUrl, resolveHistory(args)));
  try {
    await assertArchiveReady(connection);
    const session = await readArchiveSession(connection, range.id, range.from, range.to);
    writeOut(args.json ? renderArchiveSessionJson(session) : renderArchiveSessionText(session));
    return 0;
  } finally {
    await connection.close();
  }
}
