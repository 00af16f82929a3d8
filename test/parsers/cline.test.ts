/**
 * Cline (issue 40): task folders read from two real chats, reduced (test/fixtures/cline/SOURCE.md): one of 2026-01
 * whose messages carry `modelInfo`, one of 2025-10 with commands, a plan-mode answer and MCP calls. The parser is the
 * Cline family's (src/parsers/cline/), shared with Roo Code and Kilo Code.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SourceError } from "../../src/errors.ts";
import { clineParser } from "../../src/parsers/cline.ts";
import { diffLineCounts } from "../../src/parsers/cline/tools.ts";
import type { ParseResult } from "../../src/parsers/index.ts";
import { checkTaskFolderSource } from "./task-folders.ts";

const fixture = resolve(import.meta.dir, "../fixtures/cline/data");
const greeting = "1767644899093";
const mcpTask = "1760534080239";

function parseAll(root: string, withOutputs = false): Map<string, ParseResult> {
  const scan = clineParser.scan([root]);
  const units = clineParser.listUnits(scan.containers);
  return new Map(units.map((unit) => [unit.sessionId, clineParser.parse(unit, { withOutputs })]));
}

describe("Cline task folders", () => {
  const parsed = parseAll(fixture, true);

  test("one session per task folder, named by the folder, with the folder the environment details name", () => {
    expect([...parsed.keys()].sort()).toEqual([mcpTask, greeting]);
    expect(parsed.get(greeting)!.session).toMatchObject({
      source: "cline",
      projectPath: "c:/Users/Haram/Desktop/flutter_application_1",
      projectName: "flutter_application_1",
      gitBranch: null,
      startedAt: 1767644899093,
      endedAt: 1767645328935,
      turnCount: 3,
      parentSessionId: null,
      isSubagent: false,
    });
    expect(parsed.get(mcpTask)!.session.projectPath).toBe("e:/devWorkSpace/mcp-vscode-server");
    expect(parsed.get(greeting)!.skipped.count).toBe(0);
  });

  test("the first message and each user_feedback start a turn; replies, reads and checklists fall in their turn", () => {
    const turns = parsed.get(greeting)!.turns;
    expect(turns.map((turn) => [turn.number, turn.timestamp, turn.prompt.slice(0, 40)])).toEqual([
      [1, 1767644899093, "yo wassup"],
      [2, 1767644955855, "look at this project and tell me what is"],
      [3, 1767645312535, "ok bro so i am working on the OCR right "],
    ]);
    expect(turns[0]!.response).toBe("Hey there!");
    expect(turns[1]!.response).toStartWith("This is FinEye, a UAE Tax Compliance Management mobile app");
    expect(turns[1]!.toolCalls.map((call) => [call.name, call.input.slice(0, 30)])).toEqual([
      ["Read", "pubspec.yaml"],
      ["TodoWrite", "- [ ] Read project configurati"],
      ["Read", "lib/main.dart"],
      ["TodoWrite", "- [x] Read project configurati"],
      ["TodoWrite", "- [x] Read project configurati"],
    ]);
    expect(turns[1]!.files).toEqual(["pubspec.yaml", "lib/main.dart"]);
    // the model's thinking (`say "reasoning"`) is not part of the reply
    expect(turns.some((turn) => turn.response.includes("casual greeting"))).toBe(false);
  });

  test("each api_req_started adds its tokens and cost to the turn, under the model the messages name", () => {
    const turns = parsed.get(greeting)!.turns;
    expect(turns[0]!.usage).toEqual([
      { model: "x-ai/grok-code-fast-1", input: 11495, output: 16, cacheRead: 512, cacheWrite: 0, costUsd: 0 },
    ]);
    expect(turns[1]!.usage).toEqual([
      { model: "x-ai/grok-code-fast-1", input: 1649, output: 121, cacheRead: 25280, cacheWrite: 0, costUsd: 0 },
    ]);
    // a chat of 2025-10 names no model: its tokens are not attributed to a guessed one
    expect(parsed.get(mcpTask)!.turns.every((turn) => turn.usage === undefined)).toBe(true);
  });

  test("a chat whose messages name no model takes it from task_metadata.json `model_usage`", () => {
    const work = mkdtempSync(join(tmpdir(), "recall-cline-"));
    try {
      cpSync(join(fixture, "tasks", mcpTask), join(work, "tasks", mcpTask), { recursive: true });
      const metadata = {
        files_in_context: [],
        model_usage: [
          { ts: 1760534080000, model_id: "claude-sonnet-4-5", model_provider_id: "anthropic", mode: "plan" },
        ],
        environment_history: [],
      };
      writeFileSync(join(work, "tasks", mcpTask, "task_metadata.json"), JSON.stringify(metadata));
      expect(parseAll(work).get(mcpTask)!.turns[0]!.usage).toEqual([
        { model: "claude-sonnet-4-5", input: 0, output: 173, cacheRead: 0, cacheWrite: 11145, costUsd: 0.00319945 },
      ]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test("Cline's task list (state/taskHistory.json) names the start folder of a multi-root task", () => {
    const work = mkdtempSync(join(tmpdir(), "recall-cline-"));
    try {
      const task = join(work, "tasks", greeting);
      cpSync(join(fixture, "tasks", greeting), task, { recursive: true });
      const chat = readFileSync(join(task, "ui_messages.json"), "utf8");
      writeFileSync(
        join(task, "ui_messages.json"),
        chat.replace(
          "# Current Working Directory (c:/Users/Haram/Desktop/flutter_application_1) Files",
          "# Current Working Directory (Primary: flutter_application_1) Files",
        ),
      );
      // a primary folder's name is not a path
      expect(parseAll(work).get(greeting)!.session.projectPath).toBe("");
      mkdirSync(join(work, "state"));
      const item = { id: greeting, ts: 1767645328935, task: "yo wassup", tokensIn: 0, tokensOut: 0, totalCost: 0 };
      writeFileSync(
        join(work, "state", "taskHistory.json"),
        JSON.stringify([{ ...item, cwdOnTaskInitialization: "c:\\Users\\Haram\\Desktop\\flutter_application_1" }]),
      );
      expect(parseAll(work).get(greeting)!.session).toMatchObject({
        projectPath: "c:\\Users\\Haram\\Desktop\\flutter_application_1",
        projectName: "flutter_application_1",
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test("a root is the storage folder, its tasks folder or one task folder; side files move the fingerprint", () => {
    const paths = (roots: string[]) => clineParser.scan(roots).containers.map((container) => container.path);
    const all = paths([fixture]);
    expect(all).toEqual([
      join(fixture, "tasks", mcpTask, "ui_messages.json"),
      join(fixture, "tasks", greeting, "ui_messages.json"),
    ]);
    expect(paths([join(fixture, "tasks")])).toEqual(all);
    expect(paths([join(fixture, "tasks", greeting)])).toEqual([all[1]!]);
    expect(clineParser.scan([join(fixture, "nowhere")]).missingRoots).toEqual([join(fixture, "nowhere")]);
    const work = mkdtempSync(join(tmpdir(), "recall-cline-"));
    try {
      cpSync(join(fixture, "tasks", greeting), join(work, "tasks", greeting), { recursive: true });
      const before = clineParser.scan([work]).containers[0]!.fingerprint;
      writeFileSync(join(work, "tasks", greeting, "task_metadata.json"), "{}");
      expect(clineParser.scan([work]).containers[0]!.fingerprint).not.toBe(before);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test("commands, a plan-mode answer and MCP calls, with their outputs at level 3", () => {
    const [first, second] = parsed.get(mcpTask)!.turns;
    expect(first!.response).toContain("基于我对MCP文档和当前环境的分析");
    expect(first!.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ["LS", "mcp-vscode-server"],
      ["LoadMcpDocumentation", ""],
      [
        "Bash",
        'cd "C:\\Users\\70912\\Documents\\Cline\\MCP" && npx @modelcontextprotocol/create-server vscode-commands-server',
      ],
      ["Bash", "code --version"],
    ]);
    expect(first!.toolCalls[3]!.output).toContain("1.105.0");
    expect(second!.toolCalls.map((call) => [call.name, call.input, call.output?.split("\n").at(-1)])).toEqual([
      [
        "mcp__vscode-commands__open_explorer",
        "{}",
        "Error: VSCode extension is not connected. Please make sure the extension is installed and active.",
      ],
      [
        "mcp__vscode-commands__change_theme",
        '{ "theme": "Default Dark+" }',
        "Error: Command timeout: vscode-commands.changeTheme",
      ],
    ]);
    expect(parseAll(fixture).get(mcpTask)!.turns[0]!.toolCalls[3]!.output).toBeUndefined();
  });

  test("a message of a kind recall does not index is counted by kind; a chat cut mid-write is a SourceError", () => {
    const work = mkdtempSync(join(tmpdir(), "recall-cline-"));
    try {
      const task = join(work, "tasks", "1");
      cpSync(join(fixture, "tasks", greeting), task, { recursive: true });
      writeFileSync(
        join(task, "ui_messages.json"),
        JSON.stringify([
          { ts: 1, type: "say", say: "text", text: "rename the helper" },
          { ts: 2, type: "say", say: "user_feedback_diff", text: '{"tool":"editedExistingFile"}' },
          { ts: 3, type: "say", say: "checkpoint_created" },
          7,
        ]),
      );
      const result = parseAll(work).get("1")!;
      expect(result.turns.map((turn) => turn.prompt)).toEqual(["rename the helper"]);
      expect(result.skipped.reasons).toEqual({
        "user_feedback_diff message not indexed": { count: 1, first: `${join(task, "ui_messages.json")}: message 1` },
        "not an object": { count: 1, first: `${join(task, "ui_messages.json")}: message 3` },
      });
      // Cline's code names the first message `say "task"` (the real chats of the fixtures use `say "text"`)
      writeFileSync(
        join(task, "ui_messages.json"),
        JSON.stringify([
          { ts: 1, type: "say", say: "task", text: "rename the helper" },
          { ts: 2, type: "say", say: "text", text: "Renamed it in utils.ts." },
        ]),
      );
      expect(
        parseAll(work)
          .get("1")!
          .turns.map((turn) => [turn.prompt, turn.response]),
      ).toEqual([["rename the helper", "Renamed it in utils.ts."]]);
      writeFileSync(join(task, "ui_messages.json"), '[{"ts":1,"type":"say","say":"text","text":"rena');
      const [unit] = clineParser.listUnits(clineParser.scan([work]).containers);
      expect(() => clineParser.parse(unit!)).toThrow(SourceError);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test("edits count the lines of a SEARCH/REPLACE diff or a unified diff", () => {
    expect(diffLineCounts("<<<<<<< SEARCH\n:start_line:9\n-------\na\n=======\nb\nc\n>>>>>>> REPLACE")).toEqual({
      added: 2,
      removed: 1,
    });
    expect(diffLineCounts("--- a/x\n+++ b/x\n-old\n+new\n+more\n context")).toEqual({ added: 2, removed: 1 });
  });

  test("no resume command: the project folder opens in VS Code, whose Cline history lists the task", () => {
    expect(clineParser.resumeInvocation(greeting, "/home/dev/shop")).toEqual({
      cwd: undefined,
      argv: ["code", "/home/dev/shop"],
    });
    expect(clineParser.resumeInvocation(greeting, "")).toEqual({ cwd: undefined, argv: ["code"] });
  });

  test("end to end: indexed from VS Code's default place, found by a prompt, a reply and a command, shown", () => {
    checkTaskFolderSource({
      source: "cline",
      fixture,
      defaultPlace: ".config/Code/User/globalStorage/saoudrizwan.claude-dev",
      sessions: 2,
      phrases: [
        { text: "look at this project and tell me what it is about", session: greeting, turn: 2 },
        { text: "UAE Tax Compliance Management mobile app", session: greeting, turn: 2 },
        { text: "modelcontextprotocol create-server", session: mcpTask, turn: 1 },
      ],
      shown: { session: greeting, turn: 2, contains: "This is FinEye, a UAE Tax Compliance Management mobile app" },
    });
  });
});
