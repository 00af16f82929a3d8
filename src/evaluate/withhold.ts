/**
 * The fairness rule of `recall eval` (issue 43): the text a label was taken from must not be what finds it. While one
 * label is measured, its source is taken out of the index inside a write transaction that is always rolled back:
 *   * a commit message: cut from each tool call that holds it (commit-message.ts `commitMessageOf`; the rest of the
 *     command, its paths included, stays), and the turn's document rebuilt (its keyword row replaced; tool inputs are
 *     never embedded, so its vectors stay);
 *   * a title: the session's title and the abstract parts that hold it removed, and the session document rebuilt: its
 *     keyword row without them and, since its embedded text changed, without its chunks, so the vector leg cannot find
 *     it by the title either;
 *   * for either kind, every verbatim copy of the query in the session's prompts and replies (case and spacing
 *     ignored): an agent that committed "chore: update codex state" often says so in its reply, and a user may have
 *     typed the message; those turns' documents are rebuilt without it (and lose their vectors, which embedded it).
 * A turn that changed in any of these ways is rebuilt once.
 * Everything else (other sessions, the rest of the session's prompts and replies, the agent's other titles) ranks as
 * the user's searches see it. The rollback leaves the index as it was: nothing is committed, ever, and a crash
 * mid-transaction is rolled back by SQLite's journal. The connection must be a read-write one used by nothing else meanwhile.
 */
import type { Database } from "bun:sqlite";
import { refreshStoredSessionDocument, refreshStoredTurnDocument, storedAbstract } from "../index/index.ts";
import { commitMessageOf } from "./commit-message.ts";
import type { Label, LabelSession } from "./labels.ts";

/** A pattern matching `query` anywhere, case and runs of spaces ignored. */
const copiesOf = (query: string): RegExp =>
  new RegExp(
    query
      .trim()
      .split(/\s+/)
      .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("\\s+"),
    "giu",
  );

/** `tools` (a `turns.tools` value) with the commit message cut from the calls at `indexes`. */
function withoutCommitMessages(tools: string, indexes: readonly number[]): string {
  const calls = JSON.parse(tools) as Array<{ input?: string }>;
  for (const index of indexes) {
    const input = calls[index]?.input;
    const message = input ? commitMessageOf(input) : undefined;
    if (input && message) calls[index]!.input = input.slice(0, message.start) + input.slice(message.end);
  }
  return JSON.stringify(calls);
}

/**
 * In one pass over the session's turns, cut the commit messages of `session.withheld.calls` and every copy of `query`
 * from the prompts and replies, and rebuild each turn that changed once.
 * @returns whether a prompt changed (the session document, which holds every prompt, must be rebuilt then)
 */
function withholdFromTurns(db: Database, session: LabelSession, query: string): boolean {
  const pattern = copiesOf(query);
  const callsByTurn = new Map<number, number[]>();
  for (const { turn, call } of session.withheld.calls ?? [])
    callsByTurn.set(turn, [...(callsByTurn.get(turn) ?? []), call]);
  const rows = db
    .query<{ number: number; prompt: string; response: string; tools: string }, [number]>(
      "SELECT number, prompt, response, tools FROM turns WHERE session_rowid = ?",
    )
    .all(session.rowid);
  const write = db.query<never, [string, string, string, number, number]>(
    "UPDATE turns SET prompt = ?, response = ?, tools = ? WHERE session_rowid = ? AND number = ?",
  );
  let promptChanged = false;
  for (const row of rows) {
    const prompt = row.prompt.replace(pattern, "");
    const response = row.response.replace(pattern, "");
    const indexes = callsByTurn.get(row.number);
    const tools = indexes ? withoutCommitMessages(row.tools, indexes) : row.tools;
    if (prompt === row.prompt && response === row.response && tools === row.tools) continue;
    promptChanged ||= prompt !== row.prompt;
    write.run(prompt, response, tools, session.rowid, row.number);
    refreshStoredTurnDocument(db, session.rowid, row.number);
  }
  return promptChanged;
}

/**
 * Remove the session's title and the abstract parts holding it, and rebuild its session document (also when only
 * `promptChanged`).
 */
function withholdTitle(db: Database, session: LabelSession, promptChanged: boolean): void {
  const { title, abstractParts = [] } = session.withheld;
  if (!title && abstractParts.length === 0) {
    if (promptChanged) refreshStoredSessionDocument(db, session.rowid);
    return;
  }
  const row = db
    .query<{ abstract: string | null }, [number]>("SELECT abstract FROM sessions WHERE id = ?")
    .get(session.rowid);
  const parts = storedAbstract(row?.abstract ?? null);
  const kept = parts.filter((_, index) => !abstractParts.includes(index));
  db.query<never, [number, string | null, number]>(
    "UPDATE sessions SET title = CASE WHEN ? THEN NULL ELSE title END, abstract = ? WHERE id = ?",
  ).run(title ? 1 : 0, kept.length > 0 ? JSON.stringify(kept) : null, session.rowid);
  refreshStoredSessionDocument(db, session.rowid);
}

/**
 * Run `measure` over the index with `label`'s source withheld (module doc), then roll back.
 * @param db a read-write connection to the index, used by nothing else until `measure` settles
 * @returns what `measure` returns
 * @throws SQLITE_BUSY when another writer holds the index past the connection's busy timeout; whatever `measure` throws
 */
export async function withSourceWithheld<T>(db: Database, label: Label, measure: () => Promise<T>): Promise<T> {
  db.exec("BEGIN IMMEDIATE");
  try {
    for (const session of label.sessions) {
      withholdTitle(db, session, withholdFromTurns(db, session, label.query));
    }
    return await measure();
  } finally {
    db.exec("ROLLBACK");
  }
}
