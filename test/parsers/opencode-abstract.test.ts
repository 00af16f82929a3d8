import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { closeOpencodeDatabases, opencodeParser } from "../../src/parsers/opencode.ts";
import type { ParseResult } from "../../src/parsers/types.ts";
import { createSchema, insertMessage, insertPart, insertSession } from "../fixtures/opencode/make-db.ts";

const storage = resolve(import.meta.dir, "../fixtures/opencode/compaction/storage");
const summaryStart = "## Goal\nPaginate GET /orders with an opaque cursor.";
const tempDirs: string[] = [];
afterAll(() => {
  closeOpencodeDatabases();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

/** The fixture session as an OpenCode 1.17 database: `data` without ids, as the real migration leaves it. */
function databaseFromStorage(): string {
  const dir = mkdtempSync(join(tmpdir(), "recall-oc-abstract-"));
  tempDirs.push(dir);
  const path = join(dir, "opencode.db");
  const db = new Database(path);
  createSchema(db, "1.17");
  const session = readJson(join(storage, "session", "global", "ses_cmp.json"));
  const time = session.time as { created: number; updated: number };
  insertSession(db, {
    id: "ses_cmp",
    directory: String(session.directory),
    title: String(session.title),
    timeCreated: time.created,
    timeUpdated: time.updated,
  });
  for (const file of readdirSync(join(storage, "message", "ses_cmp"))) {
    const { id, sessionID: _session, ...data } = readJson(join(storage, "message", "ses_cmp", file));
    insertMessage(db, "ses_cmp", String(id), (data.time as { created: number }).created, data);
    for (const partFile of readdirSync(join(storage, "part", String(id)))) {
      const {
        id: partId,
        sessionID: _s,
        messageID: _m,
        ...part
      } = readJson(join(storage, "part", String(id), partFile));
      insertPart(db, "ses_cmp", String(id), String(partId), part);
    }
  }
  db.close();
  return path;
}

function parseFrom(root: string): ParseResult {
  const unit = opencodeParser
    .listUnits(opencodeParser.scan([root]).containers)
    .find((candidate) => candidate.sessionId === "ses_cmp");
  if (!unit) throw new Error(`ses_cmp not listed below ${root}`);
  return opencodeParser.parse(unit);
}

describe.each([
  ["JSON storage", () => storage],
  ["SQLite", databaseFromStorage],
])("OpenCode abstract from %s (issue 41)", (_name, root) => {
  const result = parseFrom(root());

  test("the compaction summary, the message summary body and the titles other than the session's, in order", () => {
    expect(result.session.title).toBe("Paginate the orders API");
    expect(result.session.abstract?.map((part) => [part.source, part.at])).toEqual([
      ["compaction", 3100],
      ["agent_summary", 5000],
      ["agent_title", 5000],
    ]);
    expect(result.session.abstract?.[0]?.text.startsWith(summaryStart)).toBe(true);
    expect(result.session.abstract?.[0]?.text).toContain("- Tests for the last page and for a bad cursor");
    expect(result.session.abstract?.[1]?.text).toBe(
      "Added an index on orders.created_at so the cursor query stays fast.",
    );
    expect(result.session.abstract?.[2]?.text).toBe("Index orders by creation time");
  });

  test("the summary is in no turn: the compaction and its continue note fold into turn 1", () => {
    expect(result.turns.map((turn) => turn.prompt)).toEqual([
      "Add cursor pagination to GET /orders",
      "Now add an index on orders.created_at",
    ]);
    expect(result.turns[0]?.response).toBe(
      "I added `cursor` and `limit` query parameters to GET /orders in src/routes/orders.ts.\n\n" +
        "The tests for the last page and a bad cursor pass now.",
    );
    expect(JSON.stringify(result.turns)).not.toContain("opaque cursor");
  });
});

test("OpenCode: a summary message that ended in an error is no compaction, and a session without summaries has no abstract", () => {
  const dir = mkdtempSync(join(tmpdir(), "recall-oc-abstract-"));
  tempDirs.push(dir);
  const path = join(dir, "opencode.db");
  const db = new Database(path);
  createSchema(db, "1.17");
  insertSession(db, { id: "ses_cmp", title: "Plain", timeCreated: 1, timeUpdated: 9 });
  insertMessage(db, "ses_cmp", "msg_1", 2, { role: "user", time: { created: 2 } });
  insertPart(db, "ses_cmp", "msg_1", "prt_1", { type: "text", text: "hello" });
  insertMessage(db, "ses_cmp", "msg_2", 3, {
    role: "assistant",
    parentID: "msg_1",
    summary: true,
    error: { name: "MessageAbortedError", data: { message: "aborted" } },
    time: { created: 3 },
  });
  insertPart(db, "ses_cmp", "msg_2", "prt_2", { type: "text", text: "half a summary" });
  db.close();
  const result = parseFrom(path);
  expect(result.session.abstract).toBeUndefined();
  expect(JSON.stringify(result.turns)).not.toContain("half a summary");
});
