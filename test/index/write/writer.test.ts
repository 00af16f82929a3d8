import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath } from "../../../src/index/index.ts";
import { parseForWriting, parseRedacted } from "../../../src/index/write/parse-pipeline.ts";
import { openIndex } from "../../../src/index/schema.ts";
import { prepareSession, writePreparedSessions, type SessionToWrite } from "../../../src/index/write/writer.ts";
import { claudeCodeParser } from "../../../src/parsers/claude-code.ts";
import type { SourceUnit } from "../../../src/parsers/index.ts";
import { appendClaudeTurns, fillerText, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { dumpIndex } from "../../helpers/index-dump.ts";

const work = mkdtempSync(join(tmpdir(), "recall-writer-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const root = join(work, "claude");
const sessionId = (n: number) => `${String(n).padStart(8, "0")}-cccc-4ccc-8ccc-${String(n).padStart(12, "0")}`;
const listUnits = (): SourceUnit[] => claudeCodeParser.listUnits(claudeCodeParser.scan([root]).containers);

// Twelve sessions: English and CJK text (the trigram side index, issue 13), tool calls with outputs.
const writers = Array.from({ length: 12 }, (_, n) =>
  writeClaudeSession(join(root, `-p${n % 3}`, `${sessionId(n)}.jsonl`), {
    sessionId: sessionId(n),
    cwd: `/p${n % 3}`,
    turns: Array.from({ length: 3 }, (_, t) => ({
      prompt: n % 4 === 0 ? `调度器介入时 ${fillerText(n + t, 8)}` : `question ${t} ${fillerText(n * 5 + t, 12)}`,
      response: fillerText(n * 11 + t, 30),
      tools: [
        { name: "Read", input: { file_path: `/p${n % 3}/src/file${t}.ts` }, output: fillerText(n + 100 * t, 60) },
      ],
    })),
  }),
);
const firstWrites: SessionToWrite[] = listUnits().map((unit) => ({
  unit,
  result: parseForWriting("claude-code", unit, undefined),
}));
const appendedPath = join(root, "-p2", `${sessionId(2)}.jsonl`);
const firstParse = parseRedacted(
  "claude-code",
  firstWrites.find(({ unit }) => unit.key === appendedPath)!.unit,
  undefined,
);
// The same file grows by two turns; its new unit is written again later in the same batch, resumed.
appendClaudeTurns(appendedPath, writers[2]!, [
  { prompt: "one more about the zeppelin cache", response: "Answered." },
  { prompt: "和重试", response: "好的" },
]);
const grownUnit = listUnits().find((unit) => unit.key === appendedPath)!;

const batch: SessionToWrite[] = [
  ...firstWrites,
  { unit: grownUnit, result: parseForWriting("claude-code", grownUnit, firstParse.resume) },
];

/** Index `sessions` into a new home, `perTransaction` sessions per transaction. */
function writeHome(name: string, sessions: readonly SessionToWrite[], perTransaction: number): string {
  const home = join(work, name);
  mkdirSync(home, { recursive: true });
  const db = openIndex(databasePath(home));
  for (let start = 0; start < sessions.length; start += perTransaction) {
    db.transaction(() => writePreparedSessions(db, sessions.slice(start, start + perTransaction), 1)).immediate();
  }
  db.close();
  return home;
}

function sideIndex(home: string): unknown[] {
  const db = new Database(databasePath(home), { readonly: true });
  try {
    return db
      .query(
        "SELECT s.session_id, d.level, d.turn_number, c.text FROM documents_cjk c JOIN documents d ON d.id = c.rowid JOIN sessions s ON s.id = d.session_rowid ORDER BY 1, 2, 3",
      )
      .all();
  } finally {
    db.close();
  }
}

describe("writePreparedSessions", () => {
  test("one batch writes the same index as one session per transaction, a session written twice in it included", () => {
    expect(batch.at(-1)!.result.fromTurn).toBeGreaterThan(1); // the second write of session 2 did resume
    const oneBatch = writeHome("one-batch", batch, batch.length);
    const oneEach = writeHome("one-each", batch, 1);
    const words = ["zeppelin", "question", "answered", "file1", "调度器介入时"];
    expect(dumpIndex(oneBatch, { words })).toEqual(dumpIndex(oneEach, { words }));
    expect(sideIndex(oneBatch)).toEqual(sideIndex(oneEach));
    expect(sideIndex(oneBatch).length).toBeGreaterThan(3);
    const db = new Database(databasePath(oneBatch), { readonly: true });
    const turns = db.query("SELECT turn_count AS n FROM sessions WHERE session_id = ?").get(sessionId(2)) as {
      n: number;
    };
    const hit = db
      .query(
        "SELECT d.turn_number AS turn FROM documents_fts f JOIN documents d ON d.id = f.rowid WHERE documents_fts MATCH 'zeppelin' AND d.level = 'turn'",
      )
      .get() as { turn: number };
    db.close();
    expect(turns.n).toBe(5);
    expect(hit.turn).toBe(4);
  });

  test("the FTS rows of a batch of new sessions go to disk as one segment, not one per document", () => {
    const home = writeHome("segments", firstWrites, firstWrites.length);
    const db = new Database(databasePath(home), { readonly: true });
    const segments = db.query("SELECT count(DISTINCT segid) AS n FROM documents_fts_idx").get() as { n: number };
    const documents = db.query("SELECT count(*) AS n FROM documents").get() as { n: number };
    db.close();
    expect(documents.n).toBe(48);
    expect(segments.n).toBe(1);
  });

  test("a transaction with more new terms than FTS5's default 1 MB still writes one segment (hashsize, schema 18)", () => {
    const home = join(work, "pending-bytes");
    mkdirSync(home, { recursive: true });
    const db = openIndex(databasePath(home));
    // 2,000 documents of 400 words each, from 5,000 words: a few MB of new terms and positions.
    const word = (n: number) => `w${(n * 2654435761) % 5000}x`;
    const insert = db.query(
      "INSERT INTO documents_fts(rowid, heading, body, extra, abstract) VALUES (?, ?, ?, '', '')",
    );
    db.transaction(() => {
      for (let id = 1; id <= 2000; id++)
        insert.run(id, word(id), Array.from({ length: 400 }, (_, i) => word(id * 400 + i)).join(" "));
    }).immediate();
    const segments = db.query<{ n: number }, []>("SELECT count(DISTINCT segid) AS n FROM documents_fts_idx").get()!.n;
    db.exec(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('hashsize', ${1024 * 1024})`);
    db.transaction(() => {
      for (let id = 2001; id <= 4000; id++)
        insert.run(id, word(id), Array.from({ length: 400 }, (_, i) => word(id * 400 + i)).join(" "));
    }).immediate();
    const withDefault = db
      .query<{ n: number }, []>("SELECT count(DISTINCT segid) AS n FROM documents_fts_idx")
      .get()!.n;
    db.close();
    expect(segments).toBe(1);
    expect(withDefault - segments).toBeGreaterThan(1); // the same writes with FTS5's default flush several times
  });

  test("a session's stored range covers its turns' times, whatever range its parser gave (filtered searches rely on it)", () => {
    const home = join(work, "covering-range");
    mkdirSync(home, { recursive: true });
    const db = openIndex(databasePath(home));
    const [unit] = listUnits();
    const parsed = parseRedacted("claude-code", unit!, undefined);
    const times = parsed.turns.map((turn) => turn.timestamp);
    const first = Math.min(...times);
    const last = Math.max(...times);
    const stored = (startedAt: number, endedAt: number) => {
      const session = { ...parsed.session, startedAt, endedAt };
      db.transaction(() =>
        writePreparedSessions(db, [{ unit: unit!, result: prepareSession({ ...parsed, session }) }], 1),
      )();
      return db.query<{ started_at: number; ended_at: number }, []>("SELECT started_at, ended_at FROM sessions").get();
    };
    expect(first).toBeLessThan(last);
    expect(stored(first + 1, last - 1)).toEqual({ started_at: first, ended_at: last }); // a range inside its turns
    expect(stored(0, 0)).toEqual({ started_at: first, ended_at: last }); // no range at all
    expect(stored(first - 5, last + 5)).toEqual({ started_at: first - 5, ended_at: last + 5 }); // a wider one is kept
    db.close();
  });
});
