/**
 * Copilot CLI abstract (issue 41): `session.compaction_complete` `summaryContent` is a `compaction`, and
 * `session.task_complete` `summary` an `agent_summary` (github/copilot-sdk session-events.ts `CompactionCompleteData`,
 * `TaskCompleteData`); a sub-agent's (`agentId`) are left out; none is a turn.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copilotCliParser } from "../../src/parsers/copilot-cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-copilot-abstract-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("compaction and task-complete summaries of the main agent are the abstract, in no turn", () => {
  const id = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
  const folder = join(work, "session-state", id);
  mkdirSync(folder, { recursive: true });
  let n = 0;
  const event = (type: string, timestamp: string, data: object, extra: object = {}) =>
    JSON.stringify({ type, data, id: `e${++n}`, timestamp, parentId: n > 1 ? `e${n - 1}` : null, ...extra });
  const lines = [
    event("session.start", "2026-05-01T10:00:00.000Z", { sessionId: id, context: { cwd: "/w/app" } }),
    event("user.message", "2026-05-01T10:00:01.000Z", { content: "Add pagination to /orders" }),
    event("assistant.message", "2026-05-01T10:00:05.000Z", { content: "Added it.", toolRequests: [] }),
    event("session.compaction_start", "2026-05-01T10:05:00.000Z", {}),
    event("session.compaction_complete", "2026-05-01T10:05:30.000Z", {
      success: true,
      preCompactionTokens: 90000,
      postCompactionTokens: 4000,
      summaryContent: "<overview>Paginate /orders with a cursor.</overview>",
    }),
    event(
      "session.compaction_complete",
      "2026-05-01T10:06:00.000Z",
      { success: true, summaryContent: "a sub-agent's own context" },
      { agentId: "explore-1" },
    ),
    event("session.task_complete", "2026-05-01T10:07:00.000Z", { success: true, summary: "Pagination added." }),
  ];
  writeFileSync(join(folder, "events.jsonl"), `${lines.join("\n")}\n`);
  const unit = copilotCliParser.listUnits(copilotCliParser.scan([work]).containers)[0];
  if (!unit) throw new Error("no copilot-cli unit");
  const { session, turns, skipped } = copilotCliParser.parse(unit);
  expect(session.abstract).toEqual([
    {
      source: "compaction",
      text: "<overview>Paginate /orders with a cursor.</overview>",
      at: Date.parse("2026-05-01T10:05:30.000Z"),
    },
    { source: "agent_summary", text: "Pagination added.", at: Date.parse("2026-05-01T10:07:00.000Z") },
  ]);
  expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([["Add pagination to /orders", "Added it."]]);
  expect(skipped.count).toBe(0);
});
