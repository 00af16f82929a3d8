import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { codexParser } from "../../src/parsers/codex.ts";
import type { ParseResult } from "../../src/parsers/types.ts";

/** `../shared/corpus/codex`: real Codex homes and samples copied from public repositories (see its SOURCES.md). */
const corpusCodex = resolve(import.meta.dir, "../../../shared/corpus/codex");
const hasCodexCorpus = existsSync(corpusCodex);
/** One root per repository folder; the rollouts sit at different depths inside (`.codex/sessions/…`, `tests/samples/`). */
const roots = hasCodexCorpus
  ? readdirSync(corpusCodex)
      .sort()
      .map((name) => join(corpusCodex, name))
  : [];

function parseAll(): Map<string, ParseResult> {
  const scan = codexParser.scan(roots);
  const results = new Map<string, ParseResult>();
  // Rollouts only: the prompt-only sessions of history.jsonl are checked in test/corpus/prompt-history.test.ts.
  for (const unit of codexParser.listUnits(scan.containers))
    if (!unit.promptOnly) results.set(unit.sessionId, codexParser.parse(unit, { withOutputs: true }));
  return results;
}

const injectedStarts = [
  "# AGENTS.md",
  "<environment_context>",
  "<user_instructions>",
  "<permissions instructions>",
  "<turn_aborted>",
  "<user_action>",
];

describe.skipIf(!hasCodexCorpus)("codex parser on the real corpus (needs ../shared/corpus/codex)", () => {
  const results = hasCodexCorpus ? parseAll() : new Map<string, ParseResult>();

  test("every rollout of the corpus is found, parses without skipped lines, and ids are unique", () => {
    const scan = codexParser.scan(roots);
    expect(scan.missingRoots).toEqual([]);
    expect(scan.unavailable).toEqual([]);
    expect(scan.containers.length).toBeGreaterThan(0);
    expect(results.size).toBe(scan.containers.filter((container) => !container.path.endsWith("/history.jsonl")).length);
    for (const result of results.values()) expect(result.skipped.count).toBe(0);
  });

  test("sessions have a project from cwd, UTC times in order, and turns numbered 1..n with a human prompt", () => {
    for (const [id, { session, turns }] of results) {
      expect(session.id).toBe(id);
      expect(session.projectPath.length).toBeGreaterThan(0);
      expect(session.startedAt).toBeGreaterThan(Date.parse("2025-01-01"));
      expect(session.endedAt).toBeGreaterThanOrEqual(session.startedAt);
      expect(turns.map((turn) => turn.number)).toEqual(turns.map((_, index) => index + 1));
      expect(session.turnCount).toBe(turns.length);
      let previous = 0;
      for (const turn of turns) {
        expect(turn.prompt.trim().length).toBeGreaterThan(0);
        for (const marker of injectedStarts) expect(turn.prompt.startsWith(marker)).toBe(false);
        expect(turn.prompt.startsWith("This is a web application written using the Phoenix web framework.")).toBe(
          false,
        );
        expect(turn.response).not.toContain("gAAAAA"); // encrypted reasoning never becomes prose
        expect(turn.timestamp).toBeGreaterThanOrEqual(previous);
        previous = turn.timestamp;
        for (const call of turn.toolCalls) expect(call.name.length).toBeGreaterThan(0);
      }
    }
  });

  test("the 0.77 review sub-agent is linked to the rollout that entered review mode", () => {
    expect(results.get("019b5669-8da8-7bc3-bed8-e1c1b805dad5")?.session).toMatchObject({
      isSubagent: true,
      parentSessionId: "019b55c1-d022-7061-bbb9-b0c90708472b",
    });
    expect(results.get("019b88e5-a2e4-7b90-8953-38fce393c653")?.session).toMatchObject({
      isSubagent: true,
      parentSessionId: "019b88e0-0b0f-7bb0-a9ba-5cc2d8dffde9",
    });
  });

  test("the parent's doubled review prompt is one turn, and titles come from session_index.jsonl", () => {
    const parent = results.get("019b55c1-d022-7061-bbb9-b0c90708472b");
    const reviews =
      parent?.turns.filter((turn) =>
        turn.prompt.startsWith("Review the code changes against the base branch 'main'"),
      ) ?? [];
    expect(reviews).toHaveLength(1);
    expect(results.get("019d19a2-6ff2-7cf3-a8e7-16f38b9dee35")?.session.title).toBe("List available tools");
  });

  test("apply_patch calls become Edit/Write with files and line counts", () => {
    const calls = [...results.values()].flatMap((result) => result.turns.flatMap((turn) => turn.toolCalls));
    const edits = calls.filter((call) => call.name === "Edit" || call.name === "Write");
    expect(edits.length).toBeGreaterThan(0);
    for (const edit of edits) {
      expect(edit.filePath?.length ?? 0).toBeGreaterThan(0);
      expect((edit.linesAdded ?? 0) + (edit.linesRemoved ?? 0)).toBeGreaterThanOrEqual(0);
    }
    expect(calls.some((call) => call.name === "Bash" && call.isError)).toBe(true);
  });
});
