/**
 * Labelled queries from the user's own history (issue 43): text a session's author or agent wrote about it, which names
 * the session it describes. Kinds kept:
 *   * `commit`: the subject of a `git commit -m` an agent ran (commit-message.ts). Level 1 expects its session; level
 *     2 expects one of the turns since the session's previous commit, up to the turn that committed: the work the
 *     message describes.
 *   * `title`: a title the agent wrote (Claude Code `ai-title`/`summary` records, Codex thread names, OpenCode, Gemini
 *     CLI and Cursor titles: `sessions.title` and the abstract's `agent_title` parts). A title that is the first
 *     prompt cut short (Cursor's and others' fallback) or a default ("New session - <date>") says nothing new and is
 *     left out. Level 2 expects any turn of the session.
 * Not kept: cross-session references ("like we did in …"): they name no session, so which one is meant would be a
 * guess; and a `--resume` continuation copies the earlier session's text, so the copy, not a description, finds it.
 * Sub-agent sessions are left out, as `recall search` leaves them out by default.
 * Each label records its source ({@link LabelSource}) so that measuring it can withhold that text (withhold.ts).
 * The labels are kept in the index (`eval_labels`, schema v14), so `forget` removes them with their sessions.
 */
import type { Database } from "bun:sqlite";
import { storedAbstract } from "../index/index.ts";
import { commitMessageOf, commitQueryOf } from "./commit-message.ts";

/** The kinds of label, in display order. */
export const labelKinds = ["commit", "title"] as const;

/** One kind of label. */
export type LabelKind = (typeof labelKinds)[number];

/** What a label was taken from in one session: the text withheld while it is measured. */
export interface LabelSource {
  /** Tool calls holding the commit message: turn number and the call's index in `turns.tools`. */
  calls?: Array<{ turn: number; call: number }>;
  /** The session's title (`sessions.title`). */
  title?: boolean;
  /** Indexes of the session's abstract parts (`sessions.abstract`) holding the title. */
  abstractParts?: number[];
}

/** A session a label names. */
export interface LabelSession {
  /** sessions.id */
  rowid: number;
  source: string;
  sessionId: string;
  /** Turn numbers a level-2 hit may be (1-based, ascending). */
  turns: number[];
  withheld: LabelSource;
}

/** One labelled query. */
export interface Label {
  kind: LabelKind;
  query: string;
  /** Every session the same query was taken from (usually one). */
  sessions: LabelSession[];
}

/** Options of {@link findLabels}. */
export interface FindLabelsOptions {
  /** Labels kept per kind at most, from the newest sessions on; default 300. */
  perKind?: number;
}

const normalized = (text: string): string =>
  text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[\s.…:!?]+$/, "")
    .trim();

/** Adds `session` to the label of `query` (one label per kind and normalized query). */
function addTo(
  labels: Map<string, Label>,
  kind: LabelKind,
  query: string,
  session: Omit<LabelSession, "withheld">,
  withheld: LabelSource,
): void {
  const key = `${kind}\u0000${normalized(query)}`;
  const label = labels.get(key) ?? { kind, query, sessions: [] };
  labels.set(key, label);
  const existing = label.sessions.find((entry) => entry.rowid === session.rowid);
  if (!existing) {
    label.sessions.push({ ...session, withheld });
    return;
  }
  existing.turns = [...new Set([...existing.turns, ...session.turns])].sort((a, b) => a - b);
  existing.withheld = {
    calls: [...(existing.withheld.calls ?? []), ...(withheld.calls ?? [])],
    title: existing.withheld.title || withheld.title,
    abstractParts: [...(existing.withheld.abstractParts ?? []), ...(withheld.abstractParts ?? [])],
  };
}

interface SessionRow {
  id: number;
  source: string;
  session_id: string;
  title: string | null;
  abstract: string | null;
}

/** Sessions the labels are read from: main sessions with turns, newest first. */
const sessionsSql = `SELECT id, source, session_id, title, abstract
  FROM sessions WHERE is_subagent = 0 AND turn_count > 0 ORDER BY ended_at DESC, id`;

/**
 * The turns that may run a commit, of main sessions, newest session first: one scan of `turns` (a query per session
 * cost 2.4 s at 20,000 sessions).
 */
const commitTurnsSql = `SELECT t.session_rowid, t.number, t.tools FROM turns t JOIN sessions s ON s.id = t.session_rowid
  WHERE s.is_subagent = 0 AND s.turn_count > 0 AND t.number > 0 AND t.tools LIKE '%commit%'
  ORDER BY s.ended_at DESC, s.id, t.number`;

function commitLabels(db: Database, sessions: readonly SessionRow[], labels: Map<string, Label>, cap: number): void {
  const byRowid = new Map(sessions.map((session) => [session.id, session]));
  let current = -1;
  let previousCommitTurn = 0;
  for (const turn of db.query<{ session_rowid: number; number: number; tools: string }, []>(commitTurnsSql).iterate()) {
    if (turn.session_rowid !== current) {
      if (labels.size >= cap) return;
      current = turn.session_rowid;
      previousCommitTurn = 0;
    }
    const session = byRowid.get(turn.session_rowid)!;
    const calls = JSON.parse(turn.tools) as Array<{ input?: string }>;
    let committed = false;
    for (const [index, call] of calls.entries()) {
      const message = call.input ? commitMessageOf(call.input) : undefined;
      if (!message) continue;
      committed = true;
      const query = commitQueryOf(message.text);
      if (!query) continue;
      const first = previousCommitTurn < turn.number ? previousCommitTurn + 1 : turn.number;
      const span = Array.from({ length: turn.number - first + 1 }, (_, offset) => first + offset);
      addTo(
        labels,
        "commit",
        query,
        { rowid: session.id, source: session.source, sessionId: session.session_id, turns: span },
        { calls: [{ turn: turn.number, call: index }] },
      );
    }
    if (committed) previousCommitTurn = turn.number;
  }
}

/** Whether a title says something the session's first prompt does not already say word for word. */
function isAgentWritten(title: string, firstPrompt: string | null): boolean {
  const text = normalized(title);
  if (/^new session\b/.test(text) || text.split(" ").filter((word) => /\p{L}{2}/u.test(word)).length < 3) return false;
  const prompt = normalized(firstPrompt ?? "");
  return !(prompt.startsWith(text) || (text.length >= 20 && prompt.startsWith(text.slice(0, 20))));
}

function titleLabels(db: Database, sessions: readonly SessionRow[], labels: Map<string, Label>, cap: number): void {
  const turnNumbers = db.query<{ number: number }, [number]>(
    "SELECT number FROM turns WHERE session_rowid = ? AND number > 0 ORDER BY number",
  );
  const firstPromptOf = db.query<{ prompt: string }, [number]>(
    "SELECT substr(prompt, 1, 400) AS prompt FROM turns WHERE session_rowid = ? AND number > 0 ORDER BY number LIMIT 1",
  );
  for (const session of sessions) {
    if (labels.size >= cap) return;
    const parts = storedAbstract(session.abstract);
    let titles = [
      ...(session.title ? [session.title] : []),
      ...parts.filter((part) => part.source === "agent_title").map((part) => part.text),
    ];
    if (titles.length === 0) continue;
    const firstPrompt = firstPromptOf.get(session.id)?.prompt ?? null;
    titles = titles.filter((title) => isAgentWritten(title, firstPrompt));
    if (titles.length === 0) continue;
    const turns = turnNumbers.all(session.id).map((row) => row.number);
    for (const title of new Set(titles)) {
      const key = normalized(title);
      const abstractParts = parts.flatMap((part, index) =>
        part.source === "agent_title" && normalized(part.text) === key ? [index] : [],
      );
      addTo(
        labels,
        "title",
        title.replace(/\s+/g, " ").trim(),
        { rowid: session.id, source: session.source, sessionId: session.session_id, turns },
        { title: session.title !== null && normalized(session.title) === key, abstractParts },
      );
    }
  }
}

/**
 * Find the labelled queries of an index (module doc), newest sessions first.
 * @returns commit labels, then title labels; [] for a history with neither (LoCoMo's transcripts, say)
 */
export function findLabels(db: Database, options: FindLabelsOptions = {}): Label[] {
  const cap = options.perKind ?? 300;
  const sessions = db.query<SessionRow, []>(sessionsSql).all();
  const commits = new Map<string, Label>();
  commitLabels(db, sessions, commits, cap);
  const titles = new Map<string, Label>();
  titleLabels(db, sessions, titles, cap);
  return [...[...commits.values()].slice(0, cap), ...[...titles.values()].slice(0, cap)];
}

/** Replace the stored labels (`eval_labels`) with `labels`, in one transaction. */
export function storeLabels(db: Database, labels: readonly Label[]): void {
  const insert = db.query<never, [number, string, string, number, string, string]>(
    "INSERT INTO eval_labels(label, kind, query, session_rowid, turns, withheld) VALUES (?, ?, ?, ?, ?, ?)",
  );
  db.transaction(() => {
    db.exec("DELETE FROM eval_labels");
    labels.forEach((label, index) => {
      for (const session of label.sessions)
        insert.run(
          index,
          label.kind,
          label.query,
          session.rowid,
          JSON.stringify(session.turns),
          JSON.stringify(session.withheld),
        );
    });
  }).immediate();
}

/** The labels stored by the last run, in its order (sessions forgotten since are gone with their rows). */
export function readStoredLabels(db: Database): Label[] {
  const rows = db
    .query<
      {
        label: number;
        kind: LabelKind;
        query: string;
        session_rowid: number;
        source: string;
        session_id: string;
        turns: string;
        withheld: string;
      },
      []
    >(
      `SELECT l.label, l.kind, l.query, l.session_rowid, s.source, s.session_id, l.turns, l.withheld
       FROM eval_labels l JOIN sessions s ON s.id = l.session_rowid ORDER BY l.label, l.session_rowid`,
    )
    .all();
  const labels = new Map<number, Label>();
  for (const row of rows) {
    const label = labels.get(row.label) ?? { kind: row.kind, query: row.query, sessions: [] };
    labels.set(row.label, label);
    label.sessions.push({
      rowid: row.session_rowid,
      source: row.source,
      sessionId: row.session_id,
      turns: JSON.parse(row.turns) as number[],
      withheld: JSON.parse(row.withheld) as LabelSource,
    });
  }
  return [...labels.values()];
}

/** Main sessions with turns: the sessions labels are looked for in. */
export function countLabelledSessions(db: Database): number {
  return (
    db.query<{ n: number }, []>("SELECT count(*) AS n FROM sessions WHERE is_subagent = 0 AND turn_count > 0").get()
      ?.n ?? 0
  );
}
