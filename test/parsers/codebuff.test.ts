/**
 * Codebuff (issue 40): the chat of test/fixtures/codebuff (SOURCE.md) read into a session and its turns, the folders
 * the scan takes, and the whole path through the CLI from the agent's default folder.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codebuffParser } from "../../src/parsers/codebuff.ts";
import { chatStartOf } from "../../src/parsers/codebuff/parse.ts";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const fixtures = join(import.meta.dir, "../fixtures/codebuff");
const chatId = "2026-03-21T17-14-03.768Z";
const work = mkdtempSync(join(tmpdir(), "recall-codebuff-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function unitsBelow(root: string): SourceUnit[] {
  return codebuffParser.listUnits(codebuffParser.scan([root]).containers);
}

describe("codebuff parse", () => {
  const [unit] = unitsBelow(join(fixtures, ".config", "manicode"));
  const result = codebuffParser.parse(unit!, { withOutputs: true });

  test("the session: the chat id, its start, the project root from run-state.json; nothing skipped", () => {
    expect(result.session).toMatchObject({
      id: chatId,
      source: "codebuff",
      projectPath: "/home/dev/code/weather-cli",
      projectName: "weather-cli",
      gitBranch: null,
      turnCount: 2,
      isSubagent: false,
      startedAt: Date.parse("2026-03-21T17:14:03.768Z"),
      endedAt: Date.parse("2026-03-21T17:14:03.768Z"),
    });
    expect(result.skipped.count).toBe(0);
  });

  test("user messages are turns; text blocks (not reasoning), tool blocks and the sub-agent's work go to them", () => {
    const [first, second] = result.turns;
    expect(first!.prompt).toStartWith("The forecast command prints temperatures in Kelvin");
    expect(first!.timestamp).toBe(Date.parse("2026-03-21T17:14:03.768Z")); // `05:14 PM` names no date
    expect(first!.response).toBe(
      "src/units.ts converts the API's Kelvin values; src/commands/forecast.ts passes the --units flag.\n\n" +
        "The metric branch is missing: `convert` only handles imperial and standard, so metric falls through and returns Kelvin. Celsius belongs to metric, not standard.",
    );
    expect(first!.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ["Grep", "kelvinTo"],
      ["Read", "src/units.ts"],
      ["Edit", "src/units.ts"],
    ]);
    expect(first!.toolCalls[1]!.output).toContain("return kelvinToFahrenheit(k)");
    const edit = first!.toolCalls[2]!;
    expect([edit.linesAdded, edit.linesRemoved, edit.change?.kind]).toEqual([2, 2, "edit"]);
    expect(first!.files).toEqual(["src/units.ts"]);
    expect(second!.prompt).toBe("Run the unit tests for the converter.");
    expect(second!.toolCalls.map((call) => `${call.name} ${call.input}`)).toEqual(["Bash bun test src/units.test.ts"]);
    expect(second!.response).toBe("All six converter tests pass, including the new metric case.");
  });

  test("an unknown variant or block that carries text is counted; an error message is kept; a full date is used", () => {
    const dir = join(work, "unknown", "projects", "app", "chats", "2026-03-01T10-00-00.000Z");
    mkdirSync(dir, { recursive: true });
    const messages = [
      { id: "user-1", variant: "user", content: "rename the flag", timestamp: "2026-03-01T10:00:05.000Z" },
      {
        id: "ai-1",
        variant: "ai",
        content: "",
        blocks: [{ type: "callout", content: "a block recall does not know" }],
      },
      { id: "sys-1", variant: "system", content: "a variant recall does not know" },
      { id: "err-1", variant: "error", content: "Out of credits" },
    ];
    writeFileSync(join(dir, "chat-messages.json"), JSON.stringify(messages));
    const parsed = codebuffParser.parse(unitsBelow(join(work, "unknown"))[0]!);
    expect(parsed.turns.map((turn) => [turn.prompt, turn.response, turn.timestamp])).toEqual([
      ["rename the flag", "[error] Out of credits", Date.parse("2026-03-01T10:00:05.000Z")],
    ]);
    expect(parsed.session.projectName).toBe("app"); // no run-state.json: the project folder's name
    expect(parsed.session.endedAt).toBe(Date.parse("2026-03-01T10:00:05.000Z"));
    expect(Object.keys(parsed.skipped.reasons ?? {}).sort()).toEqual(["block kind callout", "message variant system"]);
    expect(chatStartOf("not-a-time")).toBe(0);
  });
});

describe("codebuff scan", () => {
  test("a data dir: only projects/ is walked; two copies of a chat are one session; scansContainerPaths holds", () => {
    const data = join(work, "layouts", "manicode");
    cpSync(join(fixtures, ".config", "manicode"), data, { recursive: true });
    mkdirSync(join(data, "logs"));
    writeFileSync(join(data, "logs", "chat-messages.json"), "[]");
    const copy = join(work, "layouts", "backup", "chats", chatId);
    mkdirSync(copy, { recursive: true });
    writeFileSync(join(copy, "chat-messages.json"), "[]");
    expect(unitsBelow(data).map((unit) => unit.sessionId)).toEqual([chatId]);
    const both = codebuffParser.listUnits(codebuffParser.scan([data, join(work, "layouts", "backup")]).containers);
    expect(both.map((unit) => [unit.sessionId, unit.key.includes("/manicode/")])).toEqual([[chatId, true]]);
    const [container] = codebuffParser.scan([data]).containers;
    expect(codebuffParser.scan([container!.path]).containers).toEqual([container!]);
  });

  test("default folder ~/.config/manicode; resume is `codebuff --continue <chat id>` in the project folder", () => {
    expect(sourceInfo("codebuff").defaultRoots({}, "/home/ada")).toEqual(["/home/ada/.config/manicode"]);
    expect(parserFor("codebuff").resumeInvocation(chatId, "/home/dev/code/weather-cli")).toEqual({
      cwd: "/home/dev/code/weather-cli",
      argv: ["codebuff", "--continue", chatId],
    });
  });
});

describe("codebuff end to end", () => {
  const home = join(work, "e2e-home");
  const recallHome = join(work, "e2e-recall");
  cpSync(join(fixtures, ".config"), join(home, ".config"), { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the chat and from recall's copy", () => {
    const indexed = run(["index", "--keyword-only"]);
    expect(indexed.exitCode).toBe(0);
    const status = run(["status"]).stdout;
    expect(status).toMatch(/codebuff\s+1 session\s+2 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("temperatures in Kelvin")).toContain("Q: The forecast command prints temperatures in Kelvin");
    expect(search("metric falls through")).toContain("[codebuff] turn=2026-03-21T1:1");
    expect(search("bun test")).toContain("tools: Bash");
    const fromChat = run(["show", `${chatId}:1`, "--no-reindex"]).stdout;
    expect(fromChat).toContain(`resume: cd /home/dev/code/weather-cli && codebuff --continue ${chatId}`);
    expect(fromChat).toContain("src/units.ts:8:export function kelvinToCelsius");
    rmSync(join(home, ".config"), { recursive: true });
    const fromCopy = run(["show", `${chatId}:1`, "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("[Edit] src/units.ts");
    expect(fromCopy.stdout).toContain("shown from recall's archive");
  });
});
