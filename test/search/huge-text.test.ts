/**
 * Issue 37 (hole 9): one huge text. A Claude Code session whose first prompt is ~3 MB (a word near its start, matching
 * sentences, a word at its end), through the real CLI: the prompt is found by the word near its start, at depth 1 and
 * 2; the word past its searchable part (index/write/documents.ts searchableChars) is not found by keyword, and the
 * level-2 JSON counts the whole prompt in its cut marker; level 3 (`recall show`) shows the whole text, end word
 * included. The cost of a 50 MB prompt is measured by scripts/bench/huge-text.ts, not here. Also the pieces: a
 * document's fields are cut to their searchable part without splitting a surrogate pair, a preview of a huge text
 * reads a bounded prefix and still highlights the match, and oneLine reads only what its line needs with the same
 * result as collapsing the whole text.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildSessionDocument,
  buildTurnDocument,
  searchableChars,
  searchablePart,
  unsearchableChars,
} from "../../src/index/write/documents.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { oneLine } from "../../src/render/format.ts";
import { makePreview, previewScanChars } from "../../src/search/reading/preview.ts";
import { hugePrompt, hugePromptSession } from "../fixtures/huge-prompt.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-huge-text-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const home = join(work, "home");
mkdirSync(home);
mkdirSync(join(work, "none")); // an empty OpenCode folder: a named folder must exist (issue 15)
const claudeDir = join(work, "claude");
const sessionId = "4a4a4a4a-3737-4000-8000-000000000009";

writeClaudeSession(join(claudeDir, "projects", "-home-dev-huge", `${sessionId}.jsonl`), hugePromptSession(sessionId));
writeClaudeSession(join(claudeDir, "projects", "-home-dev-small", "5b5b5b5b-3737-4000-8000-000000000009.jsonl"), {
  sessionId: "5b5b5b5b-3737-4000-8000-000000000009",
  cwd: "/home/dev/small",
  turns: [{ prompt: "why does the login form reject my email", response: "The validator was too strict." }],
});

function recall(args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, RECALL_HOME: join(work, "index") };
  for (const key of sourceLocationVariables) delete env[key];
  const none = join(work, "none");
  const sources = ["--claude-dir", claudeDir, "--opencode-dir", none];
  const {
    exitCode: code,
    stdout,
    stderr,
  } = runCli([...args, ...sources], { ...env, RECALL_OFFLINE: "1", NO_COLOR: "1" });
  return { code, stdout, stderr };
}

interface JsonAnswer {
  results: Array<{ session_id: string; turn?: number; prompt?: string }>;
}
const search = (...args: string[]): JsonAnswer => {
  const result = recall(["search", ...args, "--keyword-only", "--json"]);
  expect(result.stderr).not.toMatch(/\n\s+at .*:\d+/);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as JsonAnswer;
};

describe("issue 37: a huge prompt is searchable by its start and shown whole at level 3", () => {
  test("the index is built", () => {
    expect(hugePrompt.length).toBeGreaterThan(10 * searchableChars);
    const result = recall(["index", "--keyword-only"]);
    expect(result.code).toBe(0);
  }, 120_000);

  test("a word near its start finds the session (depth 1) and the turn (depth 2)", () => {
    expect(search("zanzibarquux").results.map((result) => result.session_id)).toEqual([sessionId]);
    const [turn] = search("zanzibarquux", "--depth", "2").results;
    expect([turn?.session_id, turn?.turn]).toEqual([sessionId, 1]);
    // The level-2 prompt is cut, and its marker counts the whole prompt, not the part the search read.
    expect(turn?.prompt).toEndWith(
      `…[cut ${hugePrompt.length - 2000} characters; full text: recall show ${sessionId}:1]`,
    );
  }, 60_000);

  test("the index stores the huge prompt's length; a turn written before schema 11 is counted from its text", () => {
    const marker = `…[cut ${hugePrompt.length - 2000} characters; full text: recall show ${sessionId}:1]`;
    const db = new Database(join(work, "index", "index.sqlite"));
    try {
      const lengths = db.query<{ prompt_chars: number | null }, []>(
        "SELECT prompt_chars FROM turns ORDER BY prompt_chars",
      );
      expect(lengths.all().map((row) => row.prompt_chars)).toEqual([null, null, hugePrompt.length]);
      db.run("UPDATE turns SET prompt_chars = NULL");
    } finally {
      db.close();
    }
    expect(search("zanzibarquux", "--depth", "2", "--no-reindex").results[0]?.prompt).toEndWith(marker);
  }, 60_000);

  test("a word past the searchable part is not found by keyword: the cut is what issue 37 bounds", () => {
    expect(search("quuxendword").results).toEqual([]);
  }, 60_000);

  test("level 3 shows the whole prompt, its last word included", () => {
    const shown = recall(["show", `${sessionId}:1`, "--json", "--no-reindex"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("quuxendword closes it");
    const turns = (JSON.parse(shown.stdout) as { turns: Array<{ prompt: string }> }).turns;
    expect(turns[0]?.prompt).toBe(hugePrompt);
  }, 60_000);
});

describe("issue 37: the work per document is bounded", () => {
  test("a turn document keeps the searchable part of each field; a session document of each prompt", () => {
    const turn = buildTurnDocument({ prompt: hugePrompt, response: hugePrompt, toolCalls: [], files: [] });
    expect([turn.heading.length, turn.body.length]).toEqual([searchableChars, searchableChars]);
    expect(turn.heading).toBe(hugePrompt.slice(0, searchableChars));
    expect(turn.embedText.length).toBeLessThanOrEqual(2 * searchableChars + 2);
    const session = buildSessionDocument({ title: null, projectName: "huge" }, [hugePrompt, "short one"], []);
    expect(session.body).toBe(`${hugePrompt.slice(0, searchableChars)}\n\nshort one`);
    expect(unsearchableChars(hugePrompt)).toBe(hugePrompt.length - searchableChars);
    expect(unsearchableChars("short")).toBe(0);
  });

  test("the cut never splits a surrogate pair", () => {
    const emoji = `${"a".repeat(searchableChars - 1)}🎉 and more`;
    expect(searchablePart(emoji)).toBe("a".repeat(searchableChars - 1));
    expect(searchablePart("🎉".repeat(searchableChars))).toHaveLength(searchableChars);
  });

  test("a preview of a huge text reads a bounded prefix and still highlights the word near its start", () => {
    const huge = `${"filler ".repeat(previewScanChars)} zanzibarquux`;
    const preview = makePreview(`zanzibarquux first. ${huge}`, ["zanzibarquux"]);
    expect(preview.highlights.length).toBe(1);
    expect(preview.text).toEndWith("…");
    // A match only past the prefix is not read: the preview shows the start.
    expect(makePreview(huge, ["zanzibarquux"]).highlights).toEqual([]);
  });

  test("oneLine gives what collapsing the whole text gives", () => {
    const whole = (text: string, maxChars: number) => {
      const flat = text.replace(/\s+/g, " ").trim();
      return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
    };
    const pieces = ["a", "word", " ", "\n\n", "\t", " ".repeat(500), "🎉", "x".repeat(300)];
    let seed = 37;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 500; i++) {
      const text = Array.from({ length: Math.floor(random() * 40) }, () => pieces[Math.floor(random() * 8)]!).join("");
      for (const maxChars of [1, 5, 90, 400]) expect(oneLine(text, maxChars)).toBe(whole(text, maxChars));
    }
  });
});
