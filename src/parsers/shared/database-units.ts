/**
 * Units of agents that keep their sessions as rows of a SQLite database (OpenCode, Cursor, Goose, Crush, Grok CLI):
 * how a database that cannot be read now is reported, and one unit per session id when copies of a database are
 * given as several roots.
 */
import type { ParserHooks, SourceContainer, SourceId, SourceUnit } from "../types.ts";
import { describeSqliteError } from "./readonly-sqlite.ts";

/**
 * Report a container that cannot be read now: `onUnavailable` (the index keeps its sessions as they are and retries
 * it next run), or for callers without that hook a warning `<path>: <reason>`.
 */
export function reportUnavailable(hooks: ParserHooks | undefined, path: string, reason: string): void {
  if (hooks?.onUnavailable) hooks.onUnavailable(path, reason);
  else hooks?.onWarning?.(`${path}: ${reason}`);
}

/** A session row as its unit needs it: id, how many messages it holds, and its change key. */
export interface SessionRow {
  id: string;
  messages: number;
  changeKey: string;
}

/**
 * One unit per session id over every database (key `<database>#<session id>`): of copies of one session, the one with
 * more messages; of copies with as many, the first listed (`ties: "first"`) or the last (`ties: "last"`). A database
 * whose rows cannot be read is reported ({@link reportUnavailable}, with describeSqliteError's reason) and skipped.
 * @param readRows the session rows of one database, by its path; may throw (a locked, damaged or foreign file)
 * @returns the units, in the order their session ids were first met
 */
export function unitsPerSession(
  source: SourceId,
  containers: readonly SourceContainer[],
  hooks: ParserHooks,
  readRows: (path: string) => readonly SessionRow[],
  ties: "first" | "last",
): SourceUnit[] {
  const best = new Map<string, { unit: SourceUnit; messages: number }>();
  for (const container of containers) {
    let rows: readonly SessionRow[];
    try {
      rows = readRows(container.path);
    } catch (error) {
      reportUnavailable(hooks, container.path, describeSqliteError(error));
      continue;
    }
    for (const row of rows) {
      const current = best.get(row.id);
      if (current && (ties === "first" ? current.messages >= row.messages : current.messages > row.messages)) continue;
      best.set(row.id, {
        messages: row.messages,
        unit: {
          source,
          key: `${container.path}#${row.id}`,
          sessionId: row.id,
          containerPath: container.path,
          changeKey: row.changeKey,
        },
      });
    }
  }
  return [...best.values()].map((entry) => entry.unit);
}
