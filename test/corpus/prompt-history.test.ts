/**
 * Issue 11: the prompt-history files of the real corpus (Claude Code `history.jsonl` ×3, Codex `history.jsonl` ×3,
 * Gemini `logs.json` ×3) become prompt-only sessions, one per session id whose transcript is not in the corpus.
 * Expected counts were computed with a separate Python script over the raw files (json per line / per array entry;
 * a prompt counts unless it is empty or a slash command with at most one argument word; a session counts when it has
 * such a prompt and no transcript of its id exists among that tool's corpus files).
 */
import { describe, expect, test } from "bun:test";
import { basename, dirname, join } from "node:path";
import { claudeCodeParser } from "../../src/parsers/claude-code.ts";
import { codexParser } from "../../src/parsers/codex.ts";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import type { ParseResult, Parser, SourceUnit } from "../../src/parsers/types.ts";
import { claudeCorpusRoots, codexCorpusRoots, corpusDir, geminiCorpusRoots, hasCorpus } from "../helpers/corpus.ts";

/** Prompt-only units of one source over its whole corpus, parsed, keyed by session id. */
function promptOnlySessions(parser: Parser, roots: string[]): Map<string, { unit: SourceUnit; result: ParseResult }> {
  const units = parser.listUnits(parser.scan(roots).containers);
  expect(new Set(units.map((unit) => unit.sessionId)).size).toBe(units.length); // never a transcript and its prompts twice
  const out = new Map<string, { unit: SourceUnit; result: ParseResult }>();
  for (const unit of units) if (unit.promptOnly) out.set(unit.sessionId, { unit, result: parser.parse(unit) });
  return out;
}

/** Sessions and turns per history file, by the folder of the repository copy it came from. */
function countsByRepository(
  sessions: Map<string, { unit: SourceUnit; result: ParseResult }>,
  tool: string,
): Record<string, [number, number]> {
  const counts: Record<string, [number, number]> = {};
  for (const { unit, result } of sessions.values()) {
    const repository = unit.containerPath.slice(join(corpusDir, tool).length + 1).split("/")[0]!;
    const entry = (counts[repository] ??= [0, 0]);
    entry[0]++;
    entry[1] += result.turns.length;
  }
  return counts;
}

describe.skipIf(!hasCorpus)("prompt-history files of the real corpus (needs ../shared/corpus)", () => {
  test("Claude Code history.jsonl: 55 prompt-only sessions, /usage and /status probes left out, transcripts never duplicated", () => {
    const sessions = promptOnlySessions(claudeCodeParser, claudeCorpusRoots());
    expect(countsByRepository(sessions, "claude-code")).toEqual({
      "LAF-US__IDAHO-VAULT": [5, 36],
      "Xu-Wentao__dotfile": [48, 123], // 3,883 session ids in 5,618 lines: all but 62 hold only interface commands
      "fabien-lessirard__dotfiles": [2, 58],
    });
    const vim = sessions.get("68d4d8e8-d886-45a6-bff8-57b7ba9881fb")!.result;
    expect(vim.session).toMatchObject({
      source: "claude-code",
      projectName: "paas-controller",
      promptOnly: true,
      title: null,
      turnCount: 4,
    });
    expect(vim.turns[0]?.prompt).toStartWith("后端提供的terminal接口（通过websocket）前端为什么一打开vim就会退出");
    expect(vim.turns.every((turn) => turn.response === "" && turn.toolCalls.length === 0)).toBe(true);
    for (const { result } of sessions.values()) {
      expect(result.turns.map((turn) => turn.number)).toEqual(result.turns.map((_, index) => index + 1));
      for (const turn of result.turns) expect(turn.prompt).not.toMatch(/^\/\S*(\s+\S+)?$/);
    }
  });

  test("Codex history.jsonl: 8 prompt-only threads, times from epoch seconds, no project (the file records none)", () => {
    const sessions = promptOnlySessions(codexParser, codexCorpusRoots());
    expect(countsByRepository(sessions, "codex")).toEqual({ "LAF-US__IDAHO-VAULT": [8, 127] });
    const bell = sessions.get("019d417c-54dd-7ee3-b9e7-538a07d03f7a")!.result;
    expect(bell.session).toMatchObject({
      source: "codex",
      projectPath: "",
      promptOnly: true,
      turnCount: 76,
      startedAt: 1774921194000,
    });
    expect(bell.turns[0]?.prompt).toStartWith("Logan has awakened you and left. You hear the RING of a Triune Bell.");
  });

  test("Gemini logs.json: 13 prompt-only sessions with the project from .project_root", () => {
    const sessions = promptOnlySessions(geminiCliParser, geminiCorpusRoots());
    expect(countsByRepository(sessions, "gemini-cli")).toEqual({
      "LAF-US__IDAHO-VAULT": [12, 292],
      "wingorithm__Vibe-Coding-Comparison-Project": [1, 1],
    });
    const gcloud = sessions.get("b1f31681-4b57-4337-8bc5-ac73580f752a")!;
    expect(basename(dirname(gcloud.unit.containerPath))).toBe("idaho-vault");
    expect(gcloud.result.session).toMatchObject({
      source: "gemini-cli",
      projectPath: "c:\\users\\loganf\\documents\\idaho-vault",
      projectName: "idaho-vault",
      promptOnly: true,
      turnCount: 30,
      startedAt: Date.parse("2026-04-16T22:39:06.490Z"),
    });
    expect(gcloud.result.turns[0]?.prompt).toBe("gcloud gemini");
  });
});
