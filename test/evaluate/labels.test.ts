/**
 * `recall eval`'s labels and its fairness rule (issue 43) on a generated Claude Code history with planted commit
 * messages and agent titles: a query whose only match is its own source text (the commit command, a reply quoting it,
 * the title) is not counted as found; a query the session's other text answers is; the index is left as it was; and
 * `forget` removes a session's labels.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { findLabels, measureLabels, readStoredLabels, storeLabels, type Label } from "../../src/evaluate/index.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { forgetSessions } from "../../src/index/store/forget.ts";
import { searchIndex, type SessionResult } from "../../src/search/index.ts";
import { writeClaudeSession, type TestSession } from "../helpers/claude-writer.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const tempDir = tempDirs("recall-eval-labels-");

const commit = (message: string) => ({
  name: "Bash",
  input: { command: `git commit -am "${message}"` },
  output: "[main 1a2b3c4] done",
});

/** Sessions whose planted labels have a known answer (see each comment). */
const sessions: TestSession[] = [
  {
    // Found: the prompts and the reply say what the commit message says, in other words too.
    sessionId: "11111111-1111-4111-8111-111111111111",
    cwd: "/work/chat",
    turns: [
      { prompt: "the websocket reconnect is flaky after a server restart", response: "The backoff resets too early." },
      {
        prompt: "make the websocket reconnect wait with exponential backoff",
        response: "Done, the reconnect now backs off.",
        tools: [commit("fix: Flaky websocket reconnect backoff")],
      },
    ],
  },
  {
    // Not found: "quokka telemetry exporter" is written only in the commit command.
    sessionId: "22222222-2222-4222-8222-222222222222",
    cwd: "/work/metrics",
    turns: [
      {
        prompt: "wire up the new module we talked about",
        response: "It is wired in and the tests pass.",
        tools: [commit("feat(metrics): Add quokka telemetry exporter")],
      },
    ],
  },
  {
    // Not found: the reply quotes the commit message verbatim, and nothing else says it.
    sessionId: "33333333-3333-4333-8333-333333333333",
    cwd: "/work/books",
    turns: [
      {
        prompt: "commit what we have",
        response: "Committed `Rename pelican ledger columns` on main.",
        tools: [commit("Rename pelican ledger columns")],
      },
    ],
  },
  {
    // Not found: the title is the only text holding "marmoset cache invalidation".
    sessionId: "44444444-4444-4444-8444-444444444444",
    cwd: "/work/web",
    title: "Marmoset cache invalidation review",
    turns: [{ prompt: "look at how this project stores things", response: "It keeps everything in memory." }],
  },
  {
    // Found: the title says what the prompts say.
    sessionId: "55555555-5555-4555-8555-555555555555",
    cwd: "/work/infra",
    title: "Docker bridge network repair",
    turns: [
      {
        prompt: "containers cannot reach each other on the docker bridge network",
        response: "The bridge lost its route.",
      },
      { prompt: "repair the bridge network config", response: "Recreated the docker network." },
    ],
  },
  {
    // A title that is the first prompt cut short says nothing new: no label.
    sessionId: "66666666-6666-4666-8666-666666666666",
    cwd: "/work/web",
    title: "explain the router setup",
    turns: [{ prompt: "explain the router setup in this app", response: "It uses nested routes." }],
  },
];

async function indexHistory(): Promise<{ db: Database; home: string }> {
  const home = tempDir();
  const claude = join(home, "claude");
  for (const [index, session] of sessions.entries())
    writeClaudeSession(join(claude, `-work-p${index}`, `${session.sessionId}.jsonl`), {
      ...session,
      startMs: Date.UTC(2026, 2, 1 + index, 9),
    });
  await runIndex({ recallHome: home, roots: { "claude-code": [claude] } });
  return { db: openIndex(databasePath(home)), home };
}

const byQuery = (labels: readonly Label[], query: string): Label => {
  const label = labels.find((entry) => entry.query === query);
  if (!label) throw new Error(`no label "${query}" among ${labels.map((entry) => entry.query).join(" | ")}`);
  return label;
};

/** Every document's keyword row, as the search sees them: one MATCH per planted word, counted. */
const planted = ["quokka", "pelican", "marmoset", "websocket", "bridge"];
const keywordCounts = (db: Database) =>
  planted.map(
    (word) =>
      db
        .query<{ n: number }, [string]>("SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?")
        .get(word)!.n,
  );

describe("recall eval's labels (issue 43)", () => {
  test("commit subjects without their type, agent titles, and no title that copies the first prompt", async () => {
    const { db } = await indexHistory();
    try {
      const labels = findLabels(db);
      expect(labels.map((label) => [label.kind, label.query])).toEqual([
        ["commit", "Rename pelican ledger columns"],
        ["commit", "Add quokka telemetry exporter"],
        ["commit", "Flaky websocket reconnect backoff"],
        ["title", "Docker bridge network repair"],
        ["title", "Marmoset cache invalidation review"],
      ]);
      const websocket = byQuery(labels, "Flaky websocket reconnect backoff").sessions[0]!;
      expect(websocket.turns).toEqual([1, 2]); // the work since the session's start, up to the committing turn
      expect(websocket.withheld).toEqual({ calls: [{ turn: 2, call: 0 }] });
    } finally {
      db.close();
    }
  });

  test("a query whose only match is its own source text is not counted as found; the rest are", async () => {
    const { db } = await indexHistory();
    try {
      const labels = findLabels(db);
      // Without the rule, each planted query finds its own session first: the measure below can fail.
      for (const label of labels) {
        const plain = await searchIndex(db, {
          query: label.query,
          level: "session",
          filters: { includeSubagents: false },
          mode: "keyword",
        });
        expect((plain.results as SessionResult[])[0]?.sessionId).toBe(label.sessions[0]!.sessionId);
      }
      const before = keywordCounts(db);
      const outcomes = await measureLabels(db, labels, { mode: "keyword" });
      const rank = (query: string) => outcomes.find((outcome) => outcome.label.query === query)!.sessions.rank;
      expect(rank("Add quokka telemetry exporter")).toBe(Infinity);
      expect(rank("Rename pelican ledger columns")).toBe(Infinity);
      expect(rank("Marmoset cache invalidation review")).toBe(Infinity);
      expect(rank("Flaky websocket reconnect backoff")).toBe(1);
      expect(rank("Docker bridge network repair")).toBe(1);
      const websocketTurn = outcomes.find((outcome) => outcome.label.query === "Flaky websocket reconnect backoff")!;
      expect(websocketTurn.turns.rank).toBe(1);
      // Rolled back: every keyword row as it was, the commit command and the title searchable again.
      expect(keywordCounts(db)).toEqual(before);
      expect(before.every((count) => count > 0)).toBe(true);
      expect(
        db.query<{ title: string }, []>("SELECT title FROM sessions WHERE title LIKE 'Marmoset%'").get()?.title,
      ).toBe("Marmoset cache invalidation review");
    } finally {
      db.close();
    }
  });

  test("the labels are kept in the index and go with their session (forget)", async () => {
    const { db, home } = await indexHistory();
    try {
      storeLabels(db, findLabels(db));
      expect(readStoredLabels(db).map((label) => label.query)).toContain("Add quokka telemetry exporter");
      const rowid = db
        .query<{ id: number }, [string]>("SELECT id FROM sessions WHERE session_id = ?")
        .get("22222222-2222-4222-8222-222222222222")!.id;
      db.close();
      await forgetSessions(home, [rowid]);
      const reopened = openIndex(databasePath(home));
      try {
        const left = readStoredLabels(reopened).map((label) => label.query);
        expect(left).not.toContain("Add quokka telemetry exporter");
        expect(left).toContain("Rename pelican ledger columns");
      } finally {
        reopened.close();
      }
    } finally {
      db.close(); // closing twice is allowed
    }
  });
});
