/**
 * Issue 26: `read_turns` budget and paging, driven through the real stdio server on a Claude Code session with
 * long turns (a 30k-character reply of many lines, a long multi-line prompt with terminal escapes and emoji, a
 * 12k-character reply without a newline, tool calls with outputs). For several budgets: every answer is at most
 * `budget` characters (header and marker included), and following the markers page by page gives back exactly
 * the text one unbudgeted read gives, nothing skipped or repeated; the structured parts of a split turn join up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fenceChars } from "../../src/mcp/session-text.ts";
import { fillerText, type TestTurn, writeClaudeSession } from "../helpers/claude-writer.ts";
import { type Connection, call, connectStdio, fromSource, isolatedEnv, textOf } from "./helpers.ts";

const work = mkdtempSync(join(tmpdir(), "recall-mcp-paging-"));
const home = join(work, "home");
const claudeDir = join(work, "claude");
mkdirSync(home);
const sessionId = "26262626-aaaa-4bbb-8ccc-000000000026";
let server: Connection;

/** Lines of `words` filler words each, `count` of them. */
const paragraph = (seed: number, count: number, words: number) =>
  Array.from({ length: count }, (_, i) => fillerText(seed + i, words)).join("\n");

const turns: TestTurn[] = [
  { prompt: "where do the index files live?", response: "Under RECALL_HOME: one SQLite file and the vectors." },
  { prompt: "explain the whole indexer, step by step", response: paragraph(1, 400, 12) },
  {
    prompt: `${paragraph(500, 60, 10)}\nthe log had \u001b]0;pwned\u0007 in it 🎉🎉 and ${"é".repeat(40)}\n${paragraph(600, 20, 8)}`,
    response: "Noted.",
  },
  {
    prompt: "run the tests",
    response: "Running them now.",
    tools: [
      { name: "Bash", input: { command: "bun test" }, output: paragraph(700, 30, 6) },
      { name: "Read", input: { file_path: "/home/dev/long/src/indexer.ts" }, output: paragraph(800, 50, 6) },
      { name: "Bash", input: { command: "bun test --bail" }, output: "1 fail", isError: true },
    ],
  },
  { prompt: "one long line please", response: `${"🚀word ".repeat(1500)}end` },
];

beforeAll(async () => {
  writeClaudeSession(join(claudeDir, "projects", "-home-dev-long", `${sessionId}.jsonl`), {
    sessionId,
    cwd: "/home/dev/long",
    title: "A session with long turns",
    turns,
  });
  server = await connectStdio(
    [...fromSource, "mcp", "--no-watch", "--claude-dir", claudeDir],
    isolatedEnv(home, join(work, "recall-home")),
  );
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

interface Truncated {
  more_chars: number;
  next_from: number;
  next_to: number;
  next_from_char: number;
}
interface StructuredTurn {
  turn: number;
  prompt: string;
  response: string;
  tools: Array<{ name: string; input: string }>;
  cut?: boolean;
  part?: { from_char: number; to_char: number; total_chars: number };
}
interface Answer {
  text: string;
  turns: StructuredTurn[];
  truncated: Truncated | null;
}

async function readTurns(args: Record<string, unknown>): Promise<Answer> {
  const result = await call(server.client, "read_turns", { session: sessionId, ...args });
  expect(result.isError).toBeFalsy();
  const structured = result.structuredContent as { turns: StructuredTurn[]; truncated: Truncated | null };
  return { text: textOf(result), turns: structured.turns, truncated: structured.truncated };
}

/**
 * The turns' text of an answer: after its 3 header lines, before its marker line, without the fence lines around its
 * session text (issue 37: they carry a new nonce in each answer and are not part of the turns' text).
 */
function bodyOf(answer: Answer): string {
  const rest = answer.text.split("\n").slice(3).join("\n");
  const body = answer.truncated ? rest.slice(0, rest.lastIndexOf("\n")) : rest;
  return body.replace(/<<<session-text [0-9a-f]{12}\n/g, "").replace(/\n>>>session-text [0-9a-f]{12}/g, "");
}

/** Follow the markers from turn `from` at `budget`; every answer checked against the budget on the way. */
async function readAll(budget: number, from = 1, to?: number): Promise<Answer[]> {
  const pages: Answer[] = [];
  let args: Record<string, unknown> = { from, ...(to ? { to } : {}), budget };
  for (;;) {
    const page = await readTurns(args);
    expect(page.text.length).toBeLessThanOrEqual(budget);
    pages.push(page);
    if (!page.truncated) return pages;
    expect(pages.length).toBeLessThan(1000);
    const { next_from, next_to, next_from_char, more_chars } = page.truncated;
    const marker = `[truncated, ${more_chars} more characters, ask for turns ${next_from}-${next_to}${next_from_char > 0 ? ` from_char=${next_from_char}` : ""}]`;
    expect(page.text.endsWith(`\n${marker}`)).toBe(true);
    args = { from: next_from, to: next_to, from_char: next_from_char, budget };
  }
}

describe("issue 26: read_turns keeps to its budget and pages without losing anything", () => {
  test("an unbudgeted read of the session is whole (the reference the pages are compared with)", async () => {
    const whole = await readTurns({ budget: 200_000 });
    expect(whole.truncated).toBeNull();
    expect(whole.text.length).toBeGreaterThan(45_000);
    expect(whole.text).toContain("\\x1b]0;pwned\\x07"); // neutralized before it is measured
    expect(whole.text).not.toContain("\u001b");
  });

  for (const budget of [500, 777, 1500, 2500, 8000]) {
    test(`at budget ${budget} every answer is at most ${budget} characters and the pages join into the whole text`, async () => {
      const whole = bodyOf(await readTurns({ budget: 200_000 }));
      const pages = await readAll(budget);
      let joined = "";
      for (const page of pages) {
        joined += bodyOf(page);
        if (page.truncated && page.truncated.next_from_char === 0) joined += "\n"; // stopped between two turns
        if (page.truncated) expect(page.truncated.more_chars).toBe(whole.length - joined.length);
      }
      expect(joined).toBe(whole);
      // Pages are not mostly empty: text fills a third of the budget left after room for two fence pairs (issue 37).
      expect(pages.length).toBeLessThanOrEqual(Math.ceil(whole.length / ((budget - 2 * fenceChars) / 3)) + 1);
    }, 60_000);
  }

  test("the structured parts of a split turn join into its prompt, reply and calls, each call on one page only", async () => {
    const whole = (await readTurns({ budget: 200_000 })).turns;
    const pages = await readAll(900);
    for (const reference of whole) {
      const parts = pages.flatMap((page) => page.turns.filter((turn) => turn.turn === reference.turn));
      expect(parts.length).toBeGreaterThan(0);
      expect(parts.map((part) => part.prompt).join("")).toBe(reference.prompt);
      expect(parts.map((part) => part.response).join("")).toBe(reference.response);
      expect(parts.flatMap((part) => part.tools)).toEqual(reference.tools);
      if (parts.length > 1) {
        // Not toMatchObject with expect.any(Object): Bun 1.4.5 empties the received object it matches that against.
        for (const part of parts) expect([part.cut, typeof part.part]).toEqual([true, "object"]);
        expect(parts.map((part) => [part.part!.from_char, part.part!.to_char])).toEqual(
          parts.map((part, i) => [i === 0 ? 0 : parts[i - 1]!.part!.to_char, part.part!.to_char]),
        );
      }
    }
  }, 60_000);

  test("a page never splits an emoji (a surrogate pair) and prefers to end on a whole line or word", async () => {
    const pages = await readAll(1000, 5, 5);
    expect(pages.length).toBeGreaterThan(5);
    for (const page of pages) {
      const body = bodyOf(page);
      expect(body).not.toMatch(/[\uD800-\uDBFF]$/);
      expect(body).not.toMatch(/^[\uDC00-\uDFFF]/);
      if (page.truncated) expect(body).toMatch(/[\s]$/);
    }
  }, 60_000);

  test("a page that starts inside a turn says so in its header", async () => {
    const [first] = await readAll(600, 2, 2);
    const next = await readTurns({ from: 2, to: 2, from_char: first!.truncated!.next_from_char, budget: 600 });
    expect(next.text.split("\n")[1]).toBe(`turn 2 of 5, turn 2 from character ${first!.truncated!.next_from_char}`);
  }, 60_000);

  test("a from_char past the end of its turn, or not a whole number, is a tool error", async () => {
    const past = await call(server.client, "read_turns", { session: sessionId, from: 1, from_char: 100_000 });
    expect(past.isError).toBe(true);
    expect(textOf(past)).toMatch(/^from_char 100000 is past the end of turn 1 \(\d+ characters\)/);
    const negative = await call(server.client, "read_turns", { session: sessionId, from_char: -1 });
    expect(textOf(negative)).toMatch(/^from_char must be a whole number of at least 0, got -1/);
  });
});
