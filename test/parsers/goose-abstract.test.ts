/**
 * Goose abstract (issue 41): the user message only the model sees (`metadata_json {userVisible: false, agentVisible:
 * true}`) that Goose writes when it compacts the context is the session's abstract; the continuation note after it
 * stays a counted hidden message; neither is a prompt.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gooseParser } from "../../src/parsers/goose.ts";
import { databaseFromScript } from "../helpers/sql-fixture.ts";

const work = mkdtempSync(join(tmpdir(), "recall-goose-abstract-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("a compaction summary the user never saw is the abstract, not a prompt; the continuation note is counted", () => {
  const path = join(work, "sessions", "sessions.db");
  databaseFromScript("goose/sessions.sql", path);
  const db = new Database(path);
  const agentOnly = JSON.stringify({ userVisible: false, agentVisible: true });
  const insert = (text: string, time: number) =>
    db.run(
      "insert into messages (session_id, role, content_json, created_timestamp, metadata_json) values ('20251108_2', 'user', ?, ?, ?)",
      [JSON.stringify([{ type: "text", text }]), time, agentOnly],
    );
  insert("Summary: the invoice total now applies the discount; tests pass.", 1762597200);
  insert("Your context was compacted. The previous message contains a summary of the conversation so far.", 1762597201);
  db.close();
  const unit = gooseParser
    .listUnits(gooseParser.scan([path]).containers)
    .find((candidate) => candidate.sessionId === "20251108_2");
  if (!unit) throw new Error("no goose unit");
  const { session, turns, skipped } = gooseParser.parse(unit);
  expect(session.abstract).toEqual([
    {
      source: "compaction",
      text: "Summary: the invoice total now applies the discount; tests pass.",
      at: 1762597200000,
    },
  ]);
  expect(turns.some((turn) => turn.prompt.includes("Summary: the invoice"))).toBe(false);
  expect(skipped.reasons).toEqual({ "message hidden from the user": { count: 1, first: `${path}: message 18` } });
});
