import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { codexParser } from "../../src/parsers/codex.ts";
import { applyLine, createMeta, stripInjectedPreamble } from "../../src/parsers/codex/meta.ts";
import { isInjectedText, userShellCommand } from "../../src/parsers/codex/records.ts";
import { contentText } from "../../src/parsers/codex/tools.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";

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

/** One user text or assistant answer of a rollout, read straight from its lines. */
interface WrittenText {
  line: number;
  role: "user" | "assistant";
  text: string;
}

/**
 * Every user text (`user_message` events, user `response_item` messages that are not injected context, `! cmd` shell
 * items) and assistant answer (assistant `response_item` messages) of a rollout, in file order. Lines that are not
 * JSON and lines a fork copied from its parent are left out, as the parser leaves them out (it counts the former).
 */
function writtenTexts(path: string): WrittenText[] {
  const meta = createMeta();
  const texts: WrittenText[] = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((raw, index) => {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return;
      }
      if (line === null || typeof line !== "object" || applyLine(meta, line) !== "own") return;
      const payload = (line.payload ?? line) as Record<string, unknown>;
      let text = "";
      let role: WrittenText["role"] = "user";
      if (line.type === "event_msg" && payload.type === "user_message") text = String(payload.message ?? "");
      else if (payload.type === "message" && (payload.role === "user" || payload.role === "assistant")) {
        text = contentText(payload.content);
        if (payload.role === "assistant") role = "assistant";
        else text = userShellCommand(text) ?? text;
      }
      text = role === "user" ? stripInjectedPreamble(meta, text.trim()) : text.trim();
      if (text.length > 0 && !(role === "user" && isInjectedText(text))) texts.push({ line: index + 1, role, text });
    });
  return texts;
}

const flat = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * Issue 26 invariant: count the texts a rollout holds, count those its turns hold plus those its skip report counts,
 * and nothing falls between. A user text is held when a turn's prompt contains it, an answer when a turn's response
 * does; the only texts a parse may leave out are answers before the first prompt, and it counts each as skipped.
 */
function expectEveryTextPlaced(path: string, result: ParseResult): void {
  const texts = writtenTexts(path);
  const prompts = result.turns.map((turn) => flat(turn.prompt));
  const responses = result.turns.map((turn) => flat(turn.response));
  const isHeld = ({ role, text }: WrittenText) =>
    (role === "user" ? prompts : responses).some((held) => held.includes(flat(text)));
  const firstPrompt = texts.find((text) => text.role === "user")?.line ?? Number.POSITIVE_INFINITY;
  const unheld = texts.filter((text) => !isHeld(text));
  const counted = result.skipped.reasons?.["before the first prompt"]?.count ?? 0;
  expect({ path, lostAfterFirstPrompt: unheld.filter((text) => text.line > firstPrompt) }).toEqual({
    path,
    lostAfterFirstPrompt: [],
  });
  expect({ path, uncounted: Math.max(0, unheld.length - counted) }).toEqual({ path, uncounted: 0 });
}

/** Rollouts below `roots` parsed with outputs, by unit (prompt-only history sessions left out). */
function parseUnits(roots: string[]): Array<[SourceUnit, ParseResult]> {
  return codexParser
    .listUnits(codexParser.scan(roots).containers)
    .filter((unit) => !unit.promptOnly)
    .map((unit) => [unit, codexParser.parse(unit, { withOutputs: true })]);
}

describe("every user text and assistant answer of a fixture rollout ends up in a turn or is counted (issue 26)", () => {
  const fixtures = resolve(import.meta.dir, "../fixtures/codex");
  const results = parseUnits(readdirSync(fixtures).map((name) => join(fixtures, name)));

  test("the turns of each fixture rollout hold all it was written with, but answers before its first prompt, which are counted", () => {
    expect(results.length).toBeGreaterThan(10);
    for (const [unit, result] of results) expectEveryTextPlaced(unit.key, result);
  });

  test("the rollout whose first prompt was torn counts its answer before any prompt and holds the rest", () => {
    const [unit, result] = results.find(([unit]) => unit.key.includes("/issue-26/unplaced/")) ?? [];
    const texts = writtenTexts(unit?.key ?? "");
    expect(texts.map((text) => [text.line, text.role])).toEqual([
      [17, "assistant"],
      [20, "user"],
      [21, "user"],
      [42, "assistant"],
    ]);
    expect(result?.skipped.reasons?.["before the first prompt"]?.count).toBe(5);
  });
});

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

  test("every user text and assistant answer of every rollout ends up in a turn or is counted as skipped (issue 26)", () => {
    for (const [unit, result] of parseUnits(roots)) expectEveryTextPlaced(unit.key, result);
  });

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
