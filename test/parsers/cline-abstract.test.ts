/**
 * The abstract of the Cline task-folder family (issue 41): Cline's `ask "condense"` / `ask "summarize_task"` texts
 * and Roo Code's (and Kilo Code's) `say "condense_context"` `contextCondense.summary` become `compaction` parts, newest
 * first, and neither a turn nor a skipped message.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clineParser } from "../../src/parsers/cline.ts";
import { rooCodeParser } from "../../src/parsers/roo-code.ts";
import type { ParseResult, Parser } from "../../src/parsers/types.ts";

const work = mkdtempSync(join(tmpdir(), "recall-cline-abstract-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Write one task's chat below a fresh storage folder and parse it. */
function parseChat(parser: Parser, name: string, messages: object[]): ParseResult {
  const task = join(work, name, "tasks", "1767644899093");
  mkdirSync(task, { recursive: true });
  writeFileSync(join(task, "ui_messages.json"), JSON.stringify(messages));
  const unit = parser.listUnits(parser.scan([join(work, name)]).containers)[0];
  if (!unit) throw new Error(`no ${parser.id} unit`);
  return parser.parse(unit);
}

test("Cline: condense and summarize_task summaries are the abstract, in no turn", () => {
  const { session, turns, skipped } = parseChat(clineParser, "cline", [
    { ts: 1000, type: "say", say: "text", text: "Add pagination to /orders" },
    { ts: 2000, type: "say", say: "text", text: "Added it." },
    { ts: 3000, type: "ask", ask: "condense", text: "1. Goal: paginate /orders.\n2. Done: cursor parameter." },
    { ts: 4000, type: "say", say: "user_feedback", text: "Now the tests" },
    { ts: 5000, type: "ask", ask: "summarize_task", text: "Pagination and its tests are done." },
  ]);
  expect(session.abstract).toEqual([
    { source: "compaction", text: "Pagination and its tests are done.", at: 5000 },
    { source: "compaction", text: "1. Goal: paginate /orders.\n2. Done: cursor parameter.", at: 3000 },
  ]);
  expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([
    ["Add pagination to /orders", "Added it."],
    ["Now the tests", ""],
  ]);
  expect(skipped.count).toBe(0);
});

test("Roo Code: a condense_context message's summary is the abstract; a partial one without it adds nothing", () => {
  const { session, turns, skipped } = parseChat(rooCodeParser, "roo", [
    { ts: 1000, type: "say", say: "text", text: "Add pagination to /orders" },
    { ts: 2000, type: "say", say: "condense_context", partial: true },
    {
      ts: 2500,
      type: "say",
      say: "condense_context",
      contextCondense: { cost: 0.01, prevContextTokens: 90000, newContextTokens: 4000, summary: "Goal: paginate." },
    },
    { ts: 3000, type: "say", say: "text", text: "Added it." },
  ]);
  expect(session.abstract).toEqual([{ source: "compaction", text: "Goal: paginate.", at: 2500 }]);
  expect(turns.map((turn) => turn.response)).toEqual(["Added it."]);
  expect(skipped.count).toBe(0);
});
