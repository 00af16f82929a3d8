/**
 * Issue 27: the held-out retrieval queries (test/corpus/queries-heldout.json, described at the end of QUERIES.md) are
 * well formed against an index of the real corpus. Shape only: which kinds, which sessions and turns they name, and that
 * they are disjoint from queries.json; how well recall ranks them is the eval's business, not this test's.
 */
import { describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { sessionIdOf as aiderSessionIdOf } from "../../src/parsers/aider/sessions.ts";
import type { LabelledQuery } from "../../scripts/eval/evaluate.ts";
import { allCorpusRoots, corpusDir, hasCorpus } from "../helpers/corpus.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import heldout from "./queries-heldout.json";
import queries from "./queries.json";

const tempDir = tempDirs("recall-heldout-");

/** The kinds of QUERIES.md; `topic` is a known kind although the held-out set has none. */
const knownKinds = ["keyword", "topic", "question", "paraphrase", "negative"];

/**
 * Where the corpus was when the Aider labels were written: an Aider session id hashes the absolute path of its history
 * file (src/parsers/aider/sessions.ts), so a checkout whose ../shared/corpus lies elsewhere names the same sessions
 * differently. The test translates its own ids to this location before looking labels up.
 */
const labelledCorpusDir = "/work/shared/corpus";

/** One main (non-sub-agent) session of the index, as the labels name it. */
interface IndexedSession {
  source: string;
  turns: number;
}

/** Index every source of the corpus in a fresh RECALL_HOME; main sessions keyed by the id the labels use. */
async function indexedSessions(): Promise<Map<string, IndexedSession>> {
  const home = tempDir();
  const summary = await runIndex({ recallHome: home, roots: allCorpusRoots() });
  expect(summary.failedUnits).toBe(0);
  const db = openIndex(databasePath(home), { readonly: true });
  const rows = db
    .query<
      { source: string; session_id: string; turn_count: number; container_path: string; unit_locator: string | null },
      []
    >("SELECT source, session_id, turn_count, container_path, unit_locator FROM sessions WHERE is_subagent = 0")
    .all();
  db.close();
  const sessions = new Map<string, IndexedSession>();
  for (const row of rows) {
    let id = row.session_id;
    if (row.source === "aider" && row.unit_locator) {
      const { header, ordinal } = JSON.parse(row.unit_locator) as { header: string; ordinal: number };
      id = aiderSessionIdOf(join(labelledCorpusDir, relative(corpusDir, row.container_path)), header, ordinal);
    }
    sessions.set(id, { source: row.source, turns: row.turn_count });
  }
  return sessions;
}

const labelled = heldout as LabelledQuery[];

describe("held-out retrieval queries (issue 27): the file alone", () => {
  test("every query has a known kind, the counts QUERIES.md states, a note, and no text shared with queries.json or another held-out query", () => {
    const counts: Record<string, number> = {};
    for (const query of labelled) {
      expect(knownKinds).toContain(query.kind);
      expect(query.query.trim().length).toBeGreaterThan(0);
      expect(query.note?.trim().length ?? 0).toBeGreaterThan(0);
      counts[query.kind] = (counts[query.kind] ?? 0) + 1;
    }
    expect(counts).toEqual({ paraphrase: 40, question: 25, keyword: 10, negative: 15 });
    const seen = new Set((queries as LabelledQuery[]).map((query) => query.query.toLowerCase()));
    for (const query of labelled) {
      expect(seen.has(query.query.toLowerCase())).toBe(false);
      seen.add(query.query.toLowerCase());
    }
  });

  test("negatives name no session and no turn; positives name at least one session, and their turn is in the first one", () => {
    for (const query of labelled) {
      if (query.kind === "negative") {
        expect(query.expected_sessions).toEqual([]);
        expect(query.expected_turn).toBeUndefined();
        continue;
      }
      expect(query.expected_sessions.length).toBeGreaterThan(0);
      expect(new Set(query.expected_sessions).size).toBe(query.expected_sessions.length);
      if (query.expected_turn) expect(query.expected_turn.session).toBe(query.expected_sessions[0]!);
    }
    // every paraphrase was written for one turn that holds the answer
    for (const query of labelled.filter((q) => q.kind === "paraphrase")) expect(query.expected_turn).toBeDefined();
  });

  test("no session is the best answer of more than three held-out queries", () => {
    const perSession = new Map<string, number>();
    for (const query of labelled) {
      const first = query.expected_sessions[0];
      if (first) perSession.set(first, (perSession.get(first) ?? 0) + 1);
    }
    expect([...perSession].filter(([, count]) => count > 3)).toEqual([]);
  });
});

describe.skipIf(!hasCorpus)(
  "held-out retrieval queries (issue 27) against an index of the real corpus (needs ../shared/corpus)",
  () => {
    test("every expected session is a main session of the index, every expected turn exists in it, and every source is covered", async () => {
      const sessions = await indexedSessions();
      const missing: string[] = [];
      const badTurns: string[] = [];
      const sources = new Set<string>();
      for (const query of labelled) {
        for (const id of query.expected_sessions) if (!sessions.has(id)) missing.push(`${id} (${query.query})`);
        const first = sessions.get(query.expected_sessions[0] ?? "");
        if (first) sources.add(first.source);
        const turn = query.expected_turn;
        const session = turn && sessions.get(turn.session);
        if (turn && session && !(Number.isInteger(turn.turn) && turn.turn >= 1 && turn.turn <= session.turns))
          badTurns.push(`${turn.session} turn ${turn.turn} of ${session.turns} (${query.query})`);
      }
      expect(missing).toEqual([]);
      expect(badTurns).toEqual([]);
      expect([...sources].sort()).toEqual(["aider", "claude-code", "codex", "cursor", "gemini-cli", "opencode"]);
    });
  },
);
