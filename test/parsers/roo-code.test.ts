/**
 * Roo Code (issue 40): a real Architect-mode task of 2026-08, reduced, with the `history_item.json` Roo Code writes
 * beside it (test/fixtures/roo-code/SOURCE.md). Read by the Cline family's parser (src/parsers/cline/).
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { rooCodeParser } from "../../src/parsers/roo-code.ts";
import { checkTaskFolderSource } from "./task-folders.ts";

const fixture = resolve(import.meta.dir, "../fixtures/roo-code");
const task = "019e5a21-7c4e-7b2a-9d3f-4be1a0c2d6f1";

function parseOnly(root: string, withOutputs = false) {
  const units = rooCodeParser.listUnits(rooCodeParser.scan([root]).containers);
  expect(units).toHaveLength(1);
  return rooCodeParser.parse(units[0]!, { withOutputs });
}

describe("Roo Code task folders", () => {
  test("the task's folder comes from history_item.json `workspace`; the first message and a user_feedback start turns", () => {
    const { session, turns, skipped } = parseOnly(fixture, true);
    expect(session).toMatchObject({
      id: task,
      source: "roo-code",
      projectPath: "c:\\Projects\\vscode\\BeeLlamaTest",
      projectName: "BeeLlamaTest",
      gitBranch: null,
      startedAt: 1787366936311,
      endedAt: 1787447396429,
      turnCount: 2,
      parentSessionId: null,
      isSubagent: false,
    });
    // a failed condensation notice is not part of the conversation: counted, not indexed
    expect(skipped.reasons).toEqual({
      "condense_context_error message not indexed": {
        count: 1,
        first: `${join(fixture, "tasks", task, "ui_messages.json")}: message 20`,
      },
    });
    const [turn, second] = turns;
    expect(turn!.prompt).toStartWith(
      "# Task 6M — 0.4.4 Preview Migration Plan\n\nThis is a **research and planning task only**.",
    );
    expect(turn!.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ["TodoWrite", ""],
      ["LS", "plans"],
      ["Read", "plans/migration-analysis/README.md"],
      ["mcp__memory__search_nodes", '{"query":"BeeLlama 0.4.4 migration DFlash KV device chain"}'],
      ["Read", "plans/migration-analysis/01-verdict-and-git-reconstruction.md"],
    ]);
    expect(turn!.toolCalls[1]!.output).toContain("migration-analysis/02-local-inventory.md");
    expect(turn!.toolCalls[3]!.output).toBe('{\n  "entities": [],\n  "relations": []\n}');
    // Roo Code's api_req_started records tokens but no model: no usage is attributed to a guessed model
    expect(turn!.usage).toBeUndefined();
    expect(turn!.response).toBe("How would you like to proceed with the moved 0.4.4 (Z) target?");
    expect(second!.prompt).toStartWith("I am going to condense your context now");
    expect(second!.response).toStartWith("Understood. Before condensation, here is the compact state summary");
    expect(second!.response).toEndWith("Awaiting your next steps on the moved 0.4.4 target.");
  });

  test("a sub-task (history_item.json `parentTaskId`) is a sub-agent session of its parent", () => {
    const work = mkdtempSync(join(tmpdir(), "recall-roo-"));
    try {
      const child = join(work, "tasks", "child-1");
      cpSync(join(fixture, "tasks", task), child, { recursive: true });
      const item = JSON.parse(readFileSync(join(child, "history_item.json"), "utf8"));
      writeFileSync(join(child, "history_item.json"), JSON.stringify({ ...item, id: "child-1", parentTaskId: task }));
      const { session, turns } = parseOnly(work);
      expect(session).toMatchObject({ id: "child-1", parentSessionId: task, isSubagent: true });
      expect(turns.every((turn) => turn.isSubagent)).toBe(true);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test("no resume command: the project folder opens in VS Code", () => {
    expect(rooCodeParser.resumeInvocation(task, "/home/dev/llama")).toEqual({
      cwd: undefined,
      argv: ["code", "/home/dev/llama"],
    });
  });

  test("end to end: indexed from VS Code's default place, found by a prompt, a reply and an MCP call, shown", () => {
    checkTaskFolderSource({
      source: "roo-code",
      fixture,
      defaultPlace: ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline",
      sessions: 1,
      phrases: [
        { text: "Preview Migration Plan research and planning task", session: task, turn: 1 },
        { text: "CRLF defect gitattributes before merge", session: task, turn: 2 },
        { text: "DFlash KV device chain", session: task, turn: 1 },
      ],
      shown: { session: task, turn: 1, contains: "plans/migration-analysis/README.md" },
    });
  });
});
