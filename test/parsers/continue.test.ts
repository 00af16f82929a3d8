/**
 * Continue (issue 40): two session files and their `sessions.json` index in the shapes Continue writes
 * (test/fixtures/continue/SOURCE.md), parsed into turns with tool calls, results and usage, and the whole path through
 * the CLI from `~/.continue`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { continueParser } from "../../src/parsers/continue.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const fixture = join(repo, "test/fixtures/continue");
const ideId = "3f9d2c1e-7b4a-4e8f-9c2d-5a6b7c8d9e0f";
const cliId = "a1c3e5f7-2b4d-4f6a-8c0e-1d3f5b7a9c2e";
const work = mkdtempSync(join(tmpdir(), "recall-continue-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function listing(roots: string[]): { units: SourceUnit[]; rejected: string[] } {
  const rejected: string[] = [];
  const units = continueParser.listUnits(continueParser.scan(roots).containers, {
    onRejected: (path, reason) => rejected.push(`${path}: ${reason}`),
  });
  return { units, rejected };
}

describe("Continue session files", () => {
  const { units } = listing([fixture]);
  const parse = (id: string, withOutputs = true): ParseResult =>
    continueParser.parse(units.find((unit) => unit.sessionId === id)!, { withOutputs });
  const ide = parse(ideId);
  const cli = parse(cliId);

  test("each <id>.json is one session named by its file; sessions.json is the index, not a session", () => {
    expect(units.map((unit) => unit.sessionId).sort()).toEqual([ideId, cliId].sort());
    expect(ide.session).toMatchObject({
      source: "continue",
      projectPath: "/home/dev/shop", // the IDE's file:// URI as a folder
      projectName: "shop",
      gitBranch: null,
      title: "Cart total ignores quantity",
      turnCount: 2,
      isSubagent: false,
      parentSessionId: null,
      startedAt: 1762610000000, // dateCreated in sessions.json
    });
    expect(ide.session.endedAt).toBeGreaterThanOrEqual(ide.session.startedAt); // the file's last save
    expect(cli.session).toMatchObject({ projectPath: "/home/dev/shop", startedAt: 1762613600000, turnCount: 1 });
  });

  test("turns hold the prompt, the reply and the tool calls with their results; thinking is not prose", () => {
    const [first, second] = ide.turns;
    expect(first!.prompt).toBe("cartTotal ignores the quantity of each line item; fix it");
    expect(first!.timestamp).toBe(1762610000000); // Continue keeps no time per message: the session's creation
    expect(first!.response).toBe(
      "Let me read the cart total first.\n\ncartTotal now multiplies each price by its quantity.",
    );
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Read", "src/cart/total.ts", false],
      ["Edit", "src/cart/total.ts", false],
    ]);
    expect(first!.toolCalls[0]!.output).toContain("return items.reduce((sum, item) => sum + item.price, 0);");
    expect(first!.toolCalls[1]!.change).toEqual({
      path: "src/cart/total.ts",
      kind: "edit",
      edits: [
        {
          before: "return items.reduce((sum, item) => sum + item.price, 0);",
          after: "return items.reduce((sum, item) => sum + item.price * item.quantity, 0);",
        },
      ],
    });
    expect(first!.response).not.toContain("I should read total.ts");
    expect(second!.prompt).toBe("run the cart tests");
    expect(second!.toolCalls[0]).toMatchObject({ name: "Bash", input: "npm test -- cart", isError: true });
    expect(second!.toolCalls[0]!.output).toContain("expected 30, received 10");
  });

  test("assistant usage is summed per turn under the session's model; the session cost is on the last turn", () => {
    expect(ide.turns[0]!.usage).toEqual([
      { model: "Claude Sonnet 4.5", input: 6896, output: 173, cacheRead: 9216, cacheWrite: null, costUsd: null },
    ]);
    expect(ide.turns[1]!.usage).toEqual([
      { model: "Claude Sonnet 4.5", input: null, output: null, cacheRead: null, cacheWrite: null, costUsd: 0.0213 },
    ]);
    expect(cli.turns[0]!.usage).toBeUndefined(); // no model title, no usage recorded
  });

  test("attached context and a system message are counted as not kept", () => {
    expect(Object.keys(ide.skipped.reasons ?? {}).sort()).toEqual(["attached context"]);
    expect(ide.skipped.count).toBe(1);
    expect(Object.keys(cli.skipped.reasons ?? {})).toEqual(["system message"]);
  });

  test("issue 41: the compaction summary (conversationSummary) is the session's abstract, in no turn", () => {
    expect(ide.session.abstract).toEqual([
      { source: "compaction", text: "Fixed cartTotal to use quantity; cart test fixture lacks quantity.", at: 0 },
    ]);
    expect(ide.turns.some((turn) => turn.response.includes("cart test fixture lacks quantity"))).toBe(false);
  });

  test("without outputs the index parse keeps no tool output or change", () => {
    const lean = parse(ideId, false);
    expect(lean.turns.flatMap((turn) => turn.toolCalls).some((call) => call.output || call.change)).toBe(false);
  });

  test("a file that is no JSON object is rejected; one without history fails to parse with the reason", () => {
    const dir = join(work, "odd", "sessions");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "notes.json"), '["not a session"]');
    writeFileSync(join(dir, "draft.json"), '{"sessionId":"draft","title":"New Session"}');
    const odd = listing([join(work, "odd")]);
    expect(odd.rejected).toEqual([`${join(dir, "notes.json")}: not a JSON object`]);
    expect(() => continueParser.parse(odd.units[0]!)).toThrow(/no history list; not a continue session/);
  });

  test("Continue's CLI picks a session up by forking it (cn --fork <id>) in its folder", () => {
    expect(continueParser.resumeInvocation(ideId, "/home/dev/shop")).toEqual({
      cwd: "/home/dev/shop",
      argv: ["cn", "--fork", ideId],
    });
  });
});

describe("Continue through the CLI, from ~/.continue", () => {
  const home = join(work, "home");
  mkdirSync(join(home, ".continue"), { recursive: true });
  cpSync(join(fixture, "sessions"), join(home, ".continue", "sessions"), { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, RECALL_HOME: join(work, "recall") };
  for (const key of sourceLocationVariables) delete env[key];
  const recall = (args: string[]) => runCli(args, env);

  test("index, then status lists Continue with its sessions", () => {
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(recall(["status"]).stdout).toMatch(/^ {2}continue +2 sessions +3 turns/m);
  });

  test("a prompt, a reply and a tool call are each found at depth 2, with Continue's command", () => {
    for (const phrase of ["run the cart tests", "still expects the old fixture total", "npm test -- cart"]) {
      const run = recall(["search", phrase, "--depth", "2", "--json", "--no-reindex"]);
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout).results[0]).toMatchObject({ source: "continue", session_id: ideId, turn: 2 });
    }
    const session = JSON.parse(recall(["search", "npm test -- cart", "--json", "--no-reindex"]).stdout).results[0];
    expect(session.resume_command).toBe(`cd /home/dev/shop && cn --fork ${ideId}`);
  });

  test("recall show reads a turn from the file, and from recall's own copy once Continue's file is gone", () => {
    const shown = recall(["show", `${ideId.slice(0, 12)}:2`, "--no-reindex"]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain("> run the cart tests");
    expect(shown.stdout).toContain("[Bash] npm test -- cart");
    expect(shown.stdout).toContain("expected 30, received 10"); // the output, read from the file
    rmSync(join(home, ".continue", "sessions"), { recursive: true });
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    const kept = recall(["show", `${ideId.slice(0, 12)}:2`, "--no-reindex"]);
    expect(kept.exitCode).toBe(0);
    expect(kept.stdout).toContain("> run the cart tests");
  });
});
