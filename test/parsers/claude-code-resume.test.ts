import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeParser } from "../../src/parsers/claude-code.ts";
import { lineBoundaries, replayAt, unitOfFile } from "./claude-code-replay.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/claude-code");
const growable = [
  "split-assistant.jsonl", "tool-results.jsonl", "meta-and-commands.jsonl", "rewind-branch.jsonl", "compaction.jsonl",
  "inline-sidechain.jsonl", "malformed-lines.jsonl", "persisted-output.jsonl",
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
  line({ type: "user", uuid, parentUuid, sessionId: "S", cwd: "/home/dev/proj", timestamp: "2026-03-01T11:00:00.000Z", message: { role: "user", content } });
const assistant = (uuid: string, parentUuid: string, id: string, text: string) =>
  line({ type: "assistant", uuid, parentUuid, sessionId: "S", timestamp: "2026-03-01T11:00:01.000Z", message: { id, role: "assistant", content: [{ type: "text", text }] } });

describe("claude code incremental resume", () => {
  for (const name of growable) {
    test(`resuming ${name} at every line boundary and mid-line gives the full parse`, () => {
      const source = join(fixtures, name);
      const bytes = readFileSync(source);
      const cuts = [...lineBoundaries(bytes), Math.floor(bytes.length / 2)];
      for (const cut of cuts) {
        for (const withOutputs of [false, true]) {
          const replay = replayAt(source, cut, { withOutputs });
          expect(replay.resumed.session).toEqual(replay.full.session);
          expect(replay.merged).toEqual(replay.full.turns);
          expect(replay.resumed.resume).toBeDefined();
        }
      }
    });
  }

  test("an appended turn re-reads only the new bytes plus the 4 KiB window", () => {
    const { dir, file } = startCopy("split-assistant.jsonl", 11);
    try {
      appendFileSync(file, `${"{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"content\":\"x\"}\n".repeat(200)}`);
      const first = claudeCodeParser.parse(unitOfFile(file));
      expect(first.bytesRead).toBeGreaterThan(10_000);
      const added = user("p9", "a5", "A new question") + assistant("a9", "p9", "msg_9", "A new answer");
      appendFileSync(file, added);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(resumed.bytesRead).toBe(Buffer.byteLength(added) + 4096);
      expect(resumed.fromTurn).toBe(2);
      expect(resumed.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([[2, "A new question", "A new answer"]]);
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
      expect(resumed.turns[0]?.response).toBe("Let me look at the config.\n\nThe build fails because a module is missing.");
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

  test("a rewind onto an earlier turn falls back to a full parse", () => {
    const { dir, file } = startCopy("rewind-branch.jsonl", 2);
    try {
      appendFileSync(file, user("p2", "a1", "Second") + assistant("a2", "p2", "msg_2", "Two"));
      const first = claudeCodeParser.parse(unitOfFile(file));
      expect(first.turns).toHaveLength(2);
      const rewind = user("p1b", null, "First question, edited") + assistant("a1b", "p1b", "msg_1b", "Other answer");
      appendFileSync(file, rewind);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: first.resume });
      expect(resumed.fromTurn).toBe(1);
      expect(resumed.turns.map((turn) => turn.prompt)).toEqual(["First question, edited"]);
      expect(resumed.session.turnCount).toBe(1);
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
      writeFileSync(file, text.split("\n").slice(0, 3).join("\n") + "\n");
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
      expect(state.kind).toBe("claude-code/v1");
      appendFileSync(file, rest);
      const resumed = claudeCodeParser.parse(unitOfFile(file), { resume: state });
      const full = claudeCodeParser.parse(unitOfFile(file));
      expect(resumed.turns).toEqual(full.turns);
      expect(resumed.bytesRead).toBeLessThan(full.bytesRead + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
