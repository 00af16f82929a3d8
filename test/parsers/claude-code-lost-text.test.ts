import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeParser } from "../../src/parsers/claude-code.ts";
import type { SourceUnit } from "../../src/parsers/types.ts";

/**
 * Issue 26: text the Claude Code parser dropped on real files, each case on a faithfully reduced file
 * (test/fixtures/claude-code/: several-roots, sidechain-first, tool-use-without-id, queued-prompt).
 */
const fixtures = resolve(import.meta.dir, "../fixtures/claude-code");
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Every unit `listUnits` makes of the files below `root` (sidechain units included). */
function unitsBelow(root: string): SourceUnit[] {
  return claudeCodeParser.listUnits(claudeCodeParser.scan([root]).containers);
}

/** A fixture copied into a fresh project folder under a temp root, named as a main transcript. */
function copyFixture(name: string, sessionId = "33333333-3333-4333-8333-333333333333"): string {
  const root = mkdtempSync(join(tmpdir(), "recall-cc-lost-"));
  temps.push(root);
  mkdirSync(join(root, "-home-dev-proj"));
  cpSync(join(fixtures, name), join(root, "-home-dev-proj", `${sessionId}.jsonl`));
  return root;
}

describe("claude code text that was lost (issue 26)", () => {
  test("a file with two parentUuid:null chains keeps both, in file order", () => {
    const [unit] = unitsBelow(copyFixture("several-roots.jsonl"));
    const { session, turns } = claudeCodeParser.parse(unit!);
    expect(turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [1, "Set up the staging database", "Created the staging database with the seed data."],
      [2, "Now migrate it", "Migrated to schema 12."],
      [3, "Rotate the staging credentials", "Rotated; the new secret is in the vault."],
    ]);
    expect(session.turnCount).toBe(3);
  });

  test("a main file whose first lines are a sub-agent's is a main session with an inline sub-agent, not a sub-agent", () => {
    const root = copyFixture("sidechain-first.jsonl");
    const units = unitsBelow(root);
    expect(units.map((unit) => unit.sessionId)).toEqual(["33333333-3333-4333-8333-333333333333", "agent-s1"]);
    const main = claudeCodeParser.parse(units[0]!);
    expect(main.session.isSubagent).toBe(false);
    expect(main.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["Which files call parseConfig?", "Two files: main.ts and cli.ts."],
    ]);
    expect(main.turns[0]?.toolCalls.map((call) => [call.name, call.input, call.subagentSessionId])).toEqual([
      ["Task", "Find parseConfig callers", "agent-s1"],
    ]);
    const agent = claudeCodeParser.parse(units[1]!);
    expect(agent.session).toMatchObject({
      id: "agent-s1",
      isSubagent: true,
      parentSessionId: "33333333-3333-4333-8333-333333333333",
      title: "Find parseConfig callers",
      startedAt: Date.parse("2026-03-02T09:00:01.000Z"),
      endedAt: Date.parse("2026-03-02T09:00:04.000Z"),
    });
    expect(agent.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["Find every caller of parseConfig and list them", "parseConfig is called from main.ts and cli.ts."],
    ]);
  });

  test("a file of sidechain lines only is one sub-agent transcript", () => {
    const root = mkdtempSync(join(tmpdir(), "recall-cc-lost-"));
    temps.push(root);
    mkdirSync(join(root, "-home-dev-proj"));
    const lines = [
      { type: "user", uuid: "s1", parentUuid: null, isSidechain: true, sessionId: "P", message: { content: "Search" } },
      {
        type: "assistant",
        uuid: "s2",
        parentUuid: "s1",
        isSidechain: true,
        sessionId: "P",
        message: { id: "m", content: [{ type: "text", text: "Found it." }] },
      },
    ];
    writeFileSync(join(root, "-home-dev-proj", "x.jsonl"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const units = unitsBelow(root);
    expect(units).toHaveLength(1);
    const { session, turns } = claudeCodeParser.parse(units[0]!);
    expect(session).toMatchObject({ isSubagent: true, parentSessionId: "P" });
    expect(turns.map((turn) => turn.response)).toEqual(["Found it."]);
  });

  test("a main file without any conversation line (summary-only, empty) stays a main session, not a sub-agent", () => {
    for (const name of ["summary-only.jsonl", "empty.jsonl"]) {
      const [unit] = unitsBelow(copyFixture(name));
      const { session, turns } = claudeCodeParser.parse(unit!);
      expect(session.isSubagent).toBe(false);
      expect(session.parentSessionId).toBeNull();
      expect(turns).toEqual([]);
    }
  });

  test("a tool_use block without an id is kept as a call", () => {
    const [unit] = unitsBelow(copyFixture("tool-use-without-id.jsonl"));
    const { turns } = claudeCodeParser.parse(unit!);
    expect(turns[0]?.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Bash", "ls db/migrations", false],
    ]);
    expect(turns[0]?.response).toBe("There are 12 migrations.");
  });

  test("a queued prompt removed before it was sent is counted as not kept; a sent one is a turn", () => {
    const root = copyFixture("queued-prompt.jsonl");
    const [unit] = unitsBelow(root);
    const { turns, skipped } = claudeCodeParser.parse(unit!);
    expect(turns.map((turn) => turn.prompt)).toEqual(["Refactor the auth module", "now run the tests"]);
    expect(skipped.reasons).toEqual({
      "queued prompt never sent": { count: 1, first: `${join(root, "-home-dev-proj", unit!.sessionId)}.jsonl:2` },
    });
  });

  test("a nested agent file whose lines carry its own id as sessionId gets its parent from the folder it sits in", () => {
    const root = mkdtempSync(join(tmpdir(), "recall-cc-lost-"));
    temps.push(root);
    const parent = "44444444-4444-4444-8444-444444444444";
    const folder = join(root, "-home-dev-proj", parent, "subagents");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(root, "-home-dev-proj", `${parent}.jsonl`), "");
    const line = (value: object) => JSON.stringify({ isSidechain: true, sessionId: "a5", agentId: "a5", ...value });
    writeFileSync(
      join(folder, "agent-a5.jsonl"),
      `${[
        line({ type: "user", uuid: "u1", parentUuid: null, message: { content: "Check the logs" } }),
        line({
          type: "assistant",
          uuid: "u2",
          parentUuid: "u1",
          message: { id: "m", content: [{ type: "text", text: "Clean." }] },
        }),
      ].join("\n")}\n`,
    );
    const agent = unitsBelow(root).find((unit) => unit.sessionId === "agent-a5")!;
    expect(claudeCodeParser.parse(agent).session.parentSessionId).toBe(parent);
  });
});
