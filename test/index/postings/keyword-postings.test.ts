import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { databasePath, runIndex } from "../../../src/index/index.ts";
import { openIndex } from "../../../src/index/schema.ts";
import {
  postingTotals,
  ftsTotals,
  readTermPostings,
  staleDocuments,
  totalsInStep,
} from "../../../src/index/postings/keyword-postings.ts";
import { forgetSessions } from "../../../src/index/store/forget.ts";
import { refreshStoredSessionDocument } from "../../../src/index/write/writer.ts";
import { appendClaudeTurns, fillerText, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { tempDirs } from "../../helpers/temp-dirs.ts";

// The keyword index's own posting lists (issue 42) must hold, for every term, exactly the documents FTS5 holds it in,
// with bm25's inputs as FTS5 counts them: after a first index, appends (documents replaced in place), deletions, a
// summary stored, many small runs (segments merged) and a migration that builds them for an older index.

const tempDir = tempDirs("recall-postings-");
const weight: Record<string, number> = { heading: 2, body: 1, extra: 1, abstract: 1 };

/** term → document id → Σ column weights of its instances, and document id → tokens, as FTS5 holds them. */
function ftsPostings(db: Database): { terms: Map<string, Map<number, number>>; lengths: Map<number, number> } {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.instances USING fts5vocab(main, documents_fts, instance)");
  const terms = new Map<string, Map<number, number>>();
  const lengths = new Map<number, number>();
  for (const [term, doc, column] of db.query("SELECT term, doc, col FROM temp.instances").values() as Array<
    [string, number, string]
  >) {
    let documents = terms.get(term);
    if (!documents) terms.set(term, (documents = new Map()));
    documents.set(doc, (documents.get(doc) ?? 0) + weight[column]!);
    lengths.set(doc, (lengths.get(doc) ?? 0) + 1);
  }
  return { terms, lengths };
}

/** The same from the posting lists, every term's live postings read as search reads them. */
function ownPostings(db: Database): { terms: Map<string, Map<number, number>>; lengths: Map<number, number> } {
  const stale = staleDocuments(db);
  const terms = new Map<string, Map<number, number>>();
  const lengths = new Map<number, number>();
  for (const { term } of db.query<{ term: string }, []>("SELECT DISTINCT term FROM keyword_postings").all()) {
    const list = readTermPostings(db, term, stale);
    if (list.positions.length === 0) continue;
    const documents = new Map<number, number>();
    for (let i = 0; i < list.positions.length; i++) {
      const id = list.positions[i]!;
      documents.set(id, list.frequencies[i]!);
      expect(lengths.get(id) ?? list.lengths[i]).toBe(list.lengths[i]!); // one length per document in every list
      lengths.set(id, list.lengths[i]!);
    }
    terms.set(term, documents);
  }
  return { terms, lengths };
}

/** Assert that the index's posting lists equal FTS5's postings, and that search may use them. */
function expectListsEqualFts(home: string): void {
  const db = new Database(databasePath(home));
  try {
    const fts = ftsPostings(db);
    const own = ownPostings(db);
    expect(own.terms.size).toBeGreaterThan(0);
    expect(own.terms).toEqual(fts.terms);
    // documents without a token have no posting: compare the lengths of those with one
    const ftsLengths = new Map([...fts.lengths].filter(([id]) => own.lengths.has(id)));
    expect(own.lengths).toEqual(ftsLengths);
    expect(postingTotals(db)).toEqual(ftsTotals(db)!);
    expect(totalsInStep(db)).toBeDefined();
  } finally {
    db.close();
  }
}

const roots = (root: string) => ({ "claude-code": [root], opencode: [join(root, "none")] });
const sessionId = (n: number) => `${String(n).padStart(8, "0")}-aaaa-4aaa-8aaa-${String(n).padStart(12, "0")}`;

/** Write session `n` (3 turns with a tool call; headings, bodies and tool inputs all hold words) under `root`. */
function writeSession(root: string, n: number) {
  const path = join(root, `-p${n % 3}`, `${sessionId(n)}.jsonl`);
  const state = writeClaudeSession(path, {
    sessionId: sessionId(n),
    cwd: `/p${n % 3}`,
    turns: Array.from({ length: 3 }, (_, t) => ({
      // A term above U+FFFF and one in U+E000–U+FFFF: SQLite orders them by UTF-8 bytes (ｆｕｌｌ first), JavaScript's <
      // by UTF-16 units (𠀀𠀁 first). A merge meets a segment at ｆｕｌｌ beside one already at 𠀀𠀁.
      prompt: `question ${t} about the docker bridge ${fillerText(n * 7 + t, 10)} Café naïve ${n % 3 === 0 ? "ｆｕｌｌ 𠀀𠀁" : "𠀀𠀁"}`,
      response: `${fillerText(n * 13 + t, 25)} running runs ran onlyinsession${n}`,
      tools: [{ name: "Read", input: { file_path: `/p${n % 3}/src/file${t}.ts` }, output: fillerText(n + t, 20) }],
    })),
  });
  return { path, state };
}

describe("the keyword posting lists hold what FTS5 holds", () => {
  test("after a first index, appends, a summary stored and a forgotten session", async () => {
    const root = tempDir();
    const home = tempDir();
    const sessions = Array.from({ length: 9 }, (_, n) => writeSession(root, n));
    await runIndex({ recallHome: home, roots: roots(root) });
    expectListsEqualFts(home);

    // appended turns: the session document is replaced in place (same id), new turn documents are added
    for (const [i, { path, state }] of sessions.slice(0, 3).entries())
      appendClaudeTurns(path, state, [{ prompt: `zeppelin cache ${i}`, response: "Answered with a zeppelin." }]);
    expect(await runIndex({ recallHome: home, roots: roots(root) })).toMatchObject({ updated: 3 });
    const db = openIndex(databasePath(home));
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM keyword_stale").get()!.n).toBeGreaterThan(0);
    // a summary stored: the session document gets the abstract column
    db.query("INSERT INTO summaries(session_rowid, text) VALUES (1, 'Summary: the zeppelin hangar was rebuilt')").run();
    db.transaction(() => refreshStoredSessionDocument(db, 1))();
    db.close();
    expectListsEqualFts(home);

    const reader = new Database(databasePath(home), { readonly: true });
    const rowid = reader
      .query<{ id: number }, [string]>("SELECT id FROM sessions WHERE session_id = ?")
      .get(sessionId(2))!;
    reader.close();
    await forgetSessions(home, [rowid.id]);
    expectListsEqualFts(home);
    const after = new Database(databasePath(home), { readonly: true });
    // forget merges the lists: nothing of the forgotten session is left, not its words, not even a stale row
    const terms = (word: string) =>
      after.query<{ n: number }, [string]>("SELECT count(*) AS n FROM keyword_postings WHERE term = ?").get(word)!.n;
    expect(terms("onlyinsession1")).toBe(1);
    expect(terms("onlyinsession2")).toBe(0);
    expect(after.query<{ n: number }, []>("SELECT count(*) AS n FROM keyword_stale").get()!.n).toBe(0);
    expect(after.query<{ n: number }, []>("SELECT count(*) AS n FROM keyword_segments").get()!.n).toBe(1);
    after.close();
  });

  test("many small index runs: segments merge four at a time and stay few", async () => {
    const root = tempDir();
    const home = tempDir();
    for (let n = 0; n < 22; n++) {
      writeSession(root, n);
      await runIndex({ recallHome: home, roots: roots(root) });
    }
    expectListsEqualFts(home);
    const db = new Database(databasePath(home), { readonly: true });
    const segments = db.query<{ documents: number }, []>("SELECT documents FROM keyword_segments").all();
    db.close();
    // 22 runs of 4 documents: without merging 22 segments; merged four of a size class at a time, at most 3 per class
    expect(segments.length).toBeLessThan(8);
    const classes = new Map<number, number>();
    for (const { documents } of segments) {
      const sizeClass = Math.floor(Math.log(documents) / Math.log(4));
      classes.set(sizeClass, (classes.get(sizeClass) ?? 0) + 1);
    }
    expect(Math.max(...classes.values())).toBeLessThan(4);
  });

  test("an index written before the lists gets them when it is opened (schema v21)", async () => {
    const root = tempDir();
    const home = tempDir();
    for (let n = 0; n < 5; n++) writeSession(root, n);
    await runIndex({ recallHome: home, roots: roots(root) });
    const db = new Database(databasePath(home));
    db.exec(`DROP TRIGGER documents_keyword_ad; DROP TABLE keyword_segments; DROP TABLE keyword_postings;
      DROP TABLE keyword_documents; DROP TABLE keyword_stale; PRAGMA user_version = 20;`);
    db.close();
    openIndex(databasePath(home)).close();
    expectListsEqualFts(home);
  });

  test("a keyword row written without its posting lists makes search leave them (the totals differ)", async () => {
    const root = tempDir();
    const home = tempDir();
    writeSession(root, 1);
    await runIndex({ recallHome: home, roots: roots(root) });
    const db = openIndex(databasePath(home));
    expect(totalsInStep(db)).toBeDefined();
    db.query(
      "INSERT INTO documents_fts(rowid, heading, body, extra, abstract) VALUES (999, 'stray', '', '', '')",
    ).run();
    expect(totalsInStep(db)).toBeUndefined();
    db.close();
  });
});
