/**
 * OpenClaw abstract (issue 41): pi's `compaction {summary}` entries (and `compactionSummary` messages) are
 * `compaction` parts, `branch_summary {fromId, summary}` entries (and `branchSummary` messages) `agent_summary` parts;
 * the same text twice is kept once; none is a turn or a skipped record.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openclawParser } from "../../src/parsers/openclaw.ts";

const work = mkdtempSync(join(tmpdir(), "recall-openclaw-abstract-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("compaction and branch summaries are the abstract, in no turn", () => {
  const id = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
  const folder = join(work, ".openclaw", "agents", "main", "sessions");
  mkdirSync(folder, { recursive: true });
  const lines = [
    { type: "session", version: 3, id, timestamp: "2026-05-01T10:00:00.000Z", cwd: "/w/app" },
    {
      type: "message",
      id: "a1",
      parentId: null,
      timestamp: "2026-05-01T10:00:01.000Z",
      message: { role: "user", content: "Add pagination to /orders" },
    },
    {
      type: "message",
      id: "a2",
      parentId: "a1",
      timestamp: "2026-05-01T10:00:05.000Z",
      message: { role: "assistant", content: [{ type: "text", text: "Added it." }], stopReason: "stop" },
    },
    {
      type: "branch_summary",
      id: "a3",
      parentId: "a2",
      timestamp: "2026-05-01T10:02:00.000Z",
      fromId: "a2",
      summary: "Tried offset paging first.",
    },
    {
      type: "compaction",
      id: "a4",
      parentId: "a3",
      timestamp: "2026-05-01T10:05:00.000Z",
      summary: "Goal: paginate /orders with a cursor.",
      firstKeptEntryId: "a2",
      tokensBefore: 90000,
    },
    {
      type: "message",
      id: "a5",
      parentId: "a4",
      timestamp: "2026-05-01T10:05:00.000Z",
      message: { role: "compactionSummary", summary: "Goal: paginate /orders with a cursor.", tokensBefore: 90000 },
    },
  ];
  writeFileSync(join(folder, `${id}.jsonl`), lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  const unit = openclawParser.listUnits(openclawParser.scan([join(work, ".openclaw")]).containers)[0];
  if (!unit) throw new Error("no openclaw unit");
  const { session, turns, skipped } = openclawParser.parse(unit);
  expect(session.abstract).toEqual([
    { source: "compaction", text: "Goal: paginate /orders with a cursor.", at: Date.parse("2026-05-01T10:05:00.000Z") },
    { source: "agent_summary", text: "Tried offset paging first.", at: Date.parse("2026-05-01T10:02:00.000Z") },
  ]);
  expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([["Add pagination to /orders", "Added it."]]);
  expect(skipped.count).toBe(0);
});
