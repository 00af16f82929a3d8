import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeParser } from "../../src/parsers/claude-code.ts";
import { hashBlockBytes } from "../../src/parsers/shared/prefix-hash.ts";
import { appendClaudeTurns, fillerText, writeClaudeSession, type WriterState } from "../helpers/claude-writer.ts";
import { replayAt, unitOfFile } from "./claude-code-replay.ts";
import { expectResumeMatchesFullParse } from "./replay.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/claude-code");
const growable = [
  "split-assistant.jsonl",
  "tool-results.jsonl",
  "meta-and-commands.jsonl",
  "rewind-branch.jsonl",
  "compaction.jsonl",
  "inline-sidechain.jsonl",
  "inline-sidechain-2.0.jsonl",
  "after-compaction.jsonl",
  "malformed-lines.jsonl",
  "persisted-output.jsonl",
  "dot-claude/projects/C--Users-dev-win-proj/agent-1234abcd.jsonl",
];

/** A temp copy of a fixture's first `lines` lines; returns the file and the remaining text. */
function startCopy(name: string, lines: number): { dir: string; file: string; rest: string } {
  const text = readFileSync(join(fixtures, name), "utf8");
  const all = text.split("\n");
  const dir = mkdtempSync(join(tmpdir(), "recall-cc-resume-"));
  const file = join(dir, "s.jsonl");
  writeFileSync(file, `${all.slice(0, lines).join("\n")}\n`);
  return { dir, file, rest: all.slice(lines).join("\n") };
}

const line = (value: object) => `${JSON.stringify(value)}\n`;
const user = (uuid: string, parentUuid: string | null, content: string) =>
  line({
    type: "user",
    uuid,
    parentUuid,
    sessionId: "S",
    cwd: "/home/dev/proj",
    timestamp: "2026-03-01T11:00:00.000Z",
    message: { role: "user", content },
  });
const assistant = (uuid: string, parentUuid: string, id: string, text: string) =>
  line({
    type: "assistant",
    uuid,
    parentUuid,
    sessionId: "S",
    timestamp: "2026-03-01T11:00:01.000Z",
    message: { id, role: "assistant", content: [{ type: "text", text }] },
  });

describe("claude code incremental resume", () => {
  for (const name of growable) {
    test(`resuming ${name} at every line boundary and mid-line gives the full parse`, () => {
      const source = join(fixtures, name);
      expectResumeMatchesFullParse(replayAt, source);
    });
  }

  test("an appended turn decodes only the new bytes; the already-parsed prefix is only hashed", () => {
    const { dir, file } = startCopy("split-assistant.jsonl", 11);
    try {
      appendFileSync(file, `${'{"type":"queue-operation","operation":"enqueue","content":"x"}\n'.repeat(200)}`);
      const first = claudeCodeParser.parse(unitOfFile(file));
      expect(first.bytesRead).toBeGreaterThan(10_000);
      const sizeBefore = readFileSync(file).length;
      const added = user("p9", "a5", "A new question") + assistant("a9", "p9", "msg_9", "A new answer");
      appendFileSync(file, added);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(resumed.bytesRead).toBe(Buffer.byteLength(added));
      expect(resumed.bytesVerified).toBe(sizeBefore);
      expect(resumed.fromTurn).toBe(2);
      expect(resumed.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
        [2, "A new question", "A new answer"],
      ]);
      expect(resumed.session.turnCount).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a grown last turn is re-emitted from its own number", () => {
    const { dir, file, rest } = startCopy("split-assistant.jsonl", 8);
    try {
      const first = claudeCodeParser.parse(unitOfFile(file));
      expect(first.turns[0]?.response).toBe("Let me look at the config.");
      appendFileSync(file, rest);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(resumed.fromTurn).toBe(1);
      expect(resumed.turns[0]?.response).toBe(
        "Let me look at the config.\n\nThe build fails because a module is missing.",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("nothing appended returns no turns and fromTurn past the end", () => {
    const { dir, file } = startCopy("compaction.jsonl", 8);
    try {
      const first = claudeCodeParser.parse(unitOfFile(file));
      const again = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(again.turns).toEqual([]);
      expect(again.fromTurn).toBe(4);
      expect(again.session).toEqual(first.session);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a rewind onto an earlier turn falls back to a full parse, which keeps the rewound turn apart (issue 26)", () => {
    const { dir, file } = startCopy("rewind-branch.jsonl", 2);
    try {
      appendFileSync(file, user("p2", "a1", "Second") + assistant("a2", "p2", "msg_2", "Two"));
      const first = claudeCodeParser.parse(unitOfFile(file));
      expect(first.turns).toHaveLength(2);
      const rewind = user("p2b", "a1", "Second, edited") + assistant("a2b", "p2b", "msg_2b", "Other answer");
      appendFileSync(file, rewind);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(resumed.fromTurn).toBe(1);
      expect(resumed.turns.map((turn) => [turn.number, turn.prompt])).toEqual([
        [1, "First question"],
        [2, "Second, edited"],
        [-1, "Second"],
      ]);
      expect(resumed.session.turnCount).toBe(2);
      expect(resumed.turns).toEqual(claudeCodeParser.parse(unitOfFile(file)).turns);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a second root chain appended to a file continues the turns after the first chain (issue 26)", () => {
    const { dir, file } = startCopy("rewind-branch.jsonl", 2);
    try {
      appendFileSync(file, user("p2", "a1", "Second") + assistant("a2", "p2", "msg_2", "Two"));
      const first = claudeCodeParser.parse(unitOfFile(file));
      appendFileSync(file, user("q1", null, "Another start") + assistant("b1", "q1", "msg_b1", "Another answer"));
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(resumed.fromTurn).toBe(3);
      expect(resumed.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
        [3, "Another start", "Another answer"],
      ]);
      expect(claudeCodeParser.parse(unitOfFile(file)).turns.map((turn) => turn.prompt)).toEqual([
        "First question",
        "Second",
        "Another start",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a file that shrank or whose prefix changed is parsed fully again", () => {
    const { dir, file } = startCopy("compaction.jsonl", 8);
    try {
      const first = claudeCodeParser.parse(unitOfFile(file));
      const text = readFileSync(file, "utf8");
      writeFileSync(file, text.replace("Thanks", "THANKS"));
      const changed = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(changed.fromTurn).toBe(1);
      expect(changed.turns.at(-1)?.prompt).toBe("THANKS");
      writeFileSync(file, `${text.split("\n").slice(0, 3).join("\n")}\n`);
      const shrunk = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(shrunk.fromTurn).toBe(1);
      expect(shrunk.session.turnCount).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the resume state survives a JSON round trip", () => {
    const { dir, file, rest } = startCopy("tool-results.jsonl", 4);
    try {
      const first = claudeCodeParser.parse(unitOfFile(file));
      const state = JSON.parse(JSON.stringify(first.resume));
      expect(state.kind).toBe("claude-code/v5");
      appendFileSync(file, rest);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: state });
      const full = claudeCodeParser.parse(unitOfFile(file));
      expect(resumed.turns).toEqual(full.turns);
      expect(resumed.bytesRead).toBeLessThan(full.bytesRead + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** A ~2.5 MiB session (three hash blocks) in a temp folder. */
  function bigSession(): { dir: string; file: string; state: WriterState } {
    const dir = mkdtempSync(join(tmpdir(), "recall-cc-prefix-"));
    const file = join(dir, "33333333-3333-4333-8333-333333333333.jsonl");
    const turns = Array.from({ length: 300 }, (_, i) => ({
      prompt: `step ${i} ${fillerText(i, 30)}`,
      response: fillerText(i + 7, 1200),
    }));
    const state = writeClaudeSession(file, {
      sessionId: "33333333-3333-4333-8333-333333333333",
      cwd: "/home/dev/big",
      turns,
    });
    expect(readFileSync(file).length).toBeGreaterThan(2 * hashBlockBytes);
    return { dir, file, state };
  }

  /** Replace `from` by `to` (same byte length) at its first occurrence at or after byte `after`, keeping the size. */
  function editInPlace(file: string, from: string, to: string, after = 0): void {
    const bytes = readFileSync(file);
    const at = bytes.indexOf(from, after);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(Buffer.byteLength(to)).toBe(Buffer.byteLength(from));
    bytes.write(to, at);
    writeFileSync(file, bytes);
  }

  test("issue 9: an edit early in the file followed by an append is seen, and the result equals a full parse", () => {
    const { dir, file, state } = bigSession();
    try {
      const first = claudeCodeParser.parse(unitOfFile(file));
      editInPlace(file, "step 0 ", "STEP 0 ");
      appendClaudeTurns(file, state, [{ prompt: "one more", response: "done" }]);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      const full = claudeCodeParser.parse(unitOfFile(file));
      expect(resumed.fromTurn).toBe(1);
      expect(resumed.turns).toEqual(full.turns);
      expect(resumed.turns[0]?.prompt.startsWith("STEP 0 ")).toBe(true);
      expect(resumed.session).toEqual(full.session);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("issue 9: an edit in the last partial hash block, just before the old end, is seen too", () => {
    const { dir, file, state } = bigSession();
    try {
      const first = claudeCodeParser.parse(unitOfFile(file));
      const size = readFileSync(file).length;
      expect(size % hashBlockBytes).toBeGreaterThan(60_000);
      editInPlace(file, "step 299 ", "STEP 299 ", size - 60_000);
      appendClaudeTurns(file, state, [{ prompt: "one more", response: "done" }]);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(resumed.fromTurn).toBe(1);
      expect(resumed.turns).toEqual(claudeCodeParser.parse(unitOfFile(file)).turns);
      expect(resumed.turns[299]?.prompt.startsWith("STEP 299 ")).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("appends that cross hash-block boundaries resume again and again, decoding only new bytes", () => {
    const { dir, file, state } = bigSession();
    try {
      let previous = claudeCodeParser.parse(unitOfFile(file));
      let turns = previous.turns;
      for (let round = 0; round < 4; round++) {
        const before = readFileSync(file).length;
        // ~300 KB per round: rounds cross the 3 MiB boundary.
        appendClaudeTurns(
          file,
          state,
          Array.from({ length: 40 }, (_, i) => ({
            prompt: `round ${round} question ${i}`,
            response: fillerText(round * 100 + i, 1200),
          })),
        );
        const appended = readFileSync(file).length - before;
        const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: previous.resume });
        expect(resumed.bytesRead).toBe(appended);
        expect(resumed.bytesVerified).toBe(before);
        turns = [...turns.filter((turn) => turn.number < resumed.fromTurn), ...resumed.turns];
        previous = resumed;
      }
      expect(turns).toEqual(claudeCodeParser.parse(unitOfFile(file)).turns);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a resume state from an older recall (claude-code/v1, 4 KiB window only) is not trusted: full parse", () => {
    const { dir, file, rest } = startCopy("tool-results.jsonl", 4);
    try {
      const first = claudeCodeParser.parse(unitOfFile(file));
      const v1 = { ...first.resume!, kind: "claude-code/v1", windowHash: "0" };
      appendFileSync(file, rest);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: v1 });
      expect(resumed.fromTurn).toBe(1);
      expect(resumed.bytesVerified).toBe(0);
      expect(resumed.turns).toEqual(claudeCodeParser.parse(unitOfFile(file)).turns);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
