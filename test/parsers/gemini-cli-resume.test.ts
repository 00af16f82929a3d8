import { describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import type { GeminiResumeState } from "../../src/parsers/gemini-cli.ts";
import type { Turn } from "../../src/parsers/types.ts";
import { makeGeminiHome, replayAt, unitBelow } from "../fixtures/gemini-cli/helpers.ts";
import { expectResumeMatchesFullParse, lineBoundaries } from "./replay.ts";

const shopChats = resolve(import.meta.dir, "../fixtures/gemini-cli/dot-gemini/tmp/shop-app/chats");

/** Turns as the index holds them after a parse and a resumed one: main turns, then rewound (a resume leaves those). */
const asIndexed = (turns: Turn[]): Turn[] => [
  ...turns.filter((turn) => turn.number > 0),
  ...turns.filter((turn) => turn.number < 0),
];
const streaming = join(shopChats, "session-2026-04-10T08-00-dddd4444.jsonl");
const subagent = join(shopChats, "dddd4444-0000-4000-8000-000000000004/k3x9pq.jsonl");
const twin = join(shopChats, "session-2026-03-03T08-00-cccc3333.jsonl");

const line = (value: object) => `${JSON.stringify(value)}\n`;
const user = (id: string, time: string, content: string) => line({ id, timestamp: time, type: "user", content });
const gemini = (id: string, time: string, content: string, toolCalls: object[] = []) =>
  line({
    id,
    timestamp: time,
    type: "gemini",
    content,
    model: "gemini-2.5-pro",
    thoughts: [],
    tokens: null,
    toolCalls,
  });

describe("gemini cli resume (JSONL, append-only)", () => {
  for (const source of [streaming, subagent, twin]) {
    test(`resuming ${source.split("/").at(-1)} at every line boundary and mid-line gives the full parse`, () => {
      expectResumeMatchesFullParse(replayAt, source);
    });
    test(`issue 26: resuming ${source.split("/").at(-1)} at every line boundary and mid-line reports the full parse's skips`, () => {
      const bytes = readFileSync(source);
      for (const cut of [...lineBoundaries(bytes), Math.floor(bytes.length / 2)]) {
        const replay = replayAt(source, cut);
        expect(replay.resumed.skipped).toEqual(replay.full.skipped);
      }
    });
  }

  test("an appended turn decodes only the new bytes and keeps the numbering of a full parse", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const file = join(chats, "session-2026-04-10T08-00-dddd4444.jsonl");
      copyFileSync(streaming, file);
      const first = geminiCliParser.parse(unitBelow(home));
      expect(first.bytesRead).toBe(readFileSync(streaming).length);
      expect((first.resume as GeminiResumeState).mode).toBe("append");
      const added =
        user("n-u1", "2026-04-10T09:00:00.000Z", "Add a /refund route") +
        gemini("n-g1", "2026-04-10T09:00:04.000Z", "Added /refund.", [
          {
            id: "e-1",
            name: "replace",
            args: { file_path: "/p/api.ts", old_string: "a", new_string: "a\nb" },
            status: "success",
            timestamp: "2026-04-10T09:00:03.000Z",
          },
        ]);
      appendFileSync(file, added);
      const resumed = geminiCliParser.parse(unitBelow(home), { resume: first.resume });
      expect(resumed.bytesRead).toBe(Buffer.byteLength(added));
      expect(resumed.bytesVerified).toBe(readFileSync(streaming).length);
      expect(resumed.fromTurn).toBe(4);
      expect(resumed.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
        [4, "Add a /refund route", "Added /refund."],
      ]);
      expect(resumed.turns[0]?.toolCalls.map((call) => call.name)).toEqual(["Edit"]);
      expect(resumed.session.turnCount).toBe(4);
      const full = geminiCliParser.parse(unitBelow(home));
      expect(resumed.session).toEqual(full.session);
      expect(asIndexed([...first.turns, ...resumed.turns])).toEqual(full.turns);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a re-appended last message updates the open last turn only", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const file = join(chats, "s.jsonl");
      copyFileSync(streaming, file);
      const first = geminiCliParser.parse(unitBelow(home));
      appendFileSync(file, gemini("d-g5", "2026-04-10T08:03:04.000Z", "Lint is clean. Two warnings fixed."));
      const resumed = geminiCliParser.parse(unitBelow(home), { resume: first.resume });
      expect(resumed.fromTurn).toBe(3);
      expect(resumed.turns.map((turn) => [turn.number, turn.response])).toEqual([
        [3, "Lint is clean. Two warnings fixed."],
      ]);
      expect(resumed.bytesVerified).toBeGreaterThan(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a rewind into an earlier turn falls back to a full parse with renumbered turns; what it cut is rewound", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const file = join(chats, "s.jsonl");
      copyFileSync(streaming, file);
      const first = geminiCliParser.parse(unitBelow(home));
      appendFileSync(
        file,
        line({ $rewindTo: "d-u3" }) + user("r-u1", "2026-04-10T10:00:00.000Z", "Start over on the docs"),
      );
      const resumed = geminiCliParser.parse(unitBelow(home), { resume: first.resume });
      expect(resumed.fromTurn).toBe(1);
      expect(resumed.turns.map((turn) => [turn.number, turn.prompt])).toEqual([
        [1, "List the API routes"],
        [2, "Start over on the docs"],
        [-1, "Delete the /ship route"], // the fixture's own rewind
        [-2, "Document the /ship route instead"],
        [-3, "Thanks, run the linter"],
      ]);
      expect(resumed.session.turnCount).toBe(2);
      expect(resumed.bytesRead).toBe(readFileSync(file).length);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("an edit inside the already-parsed prefix is seen and parsed fully", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const file = join(chats, "s.jsonl");
      copyFileSync(streaming, file);
      const first = geminiCliParser.parse(unitBelow(home));
      const text = readFileSync(file, "utf8").replace("List the API routes", "List the API ROUTES");
      writeFileSync(file, text + user("x-u1", "2026-04-10T11:00:00.000Z", "One more"));
      const resumed = geminiCliParser.parse(unitBelow(home), { resume: first.resume });
      expect(resumed.fromTurn).toBe(1);
      expect(resumed.turns[0]?.prompt).toBe("List the API ROUTES");
      expect(resumed.turns.map((turn) => turn.number)).toEqual([1, 2, 3, 4, -1]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("gemini cli resume (JSON, rewritten whole, and merged sessions)", () => {
  test("a rewritten JSON file is re-parsed whole but only changed and new turns come back, numbered as before", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const file = join(chats, "session-2026-03-01T10-00-aaaa1111.json");
      copyFileSync(join(shopChats, "session-2026-03-01T10-00-aaaa1111.json"), file);
      const first = geminiCliParser.parse(unitBelow(home));
      expect((first.resume as GeminiResumeState).mode).toBe("whole");
      const document = JSON.parse(readFileSync(file, "utf8"));
      document.messages.push(
        { id: "w-u1", timestamp: "2026-03-01T11:00:00.000Z", type: "user", content: "And the tax?" },
        {
          id: "w-g1",
          timestamp: "2026-03-01T11:00:03.000Z",
          type: "gemini",
          content: "Tax is applied after discounts.",
        },
      );
      writeFileSync(file, JSON.stringify(document, null, 2));
      const resumed = geminiCliParser.parse(unitBelow(home), { resume: first.resume });
      expect(resumed.fromTurn).toBe(4);
      expect(resumed.turns.map((turn) => [turn.number, turn.prompt])).toEqual([[4, "And the tax?"]]);
      expect(resumed.session.turnCount).toBe(4);
      const full = geminiCliParser.parse(unitBelow(home));
      expect(asIndexed([...first.turns, ...resumed.turns])).toEqual(full.turns);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a JSONL continuation of a merged session resumes from its offset; a change to the older file parses fully", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const older = join(chats, "session-2026-03-01T12-00-bbbb2222.json");
      copyFileSync(join(shopChats, "session-2026-03-01T12-00-bbbb2222.json"), older);
      const newer = join(chats, "session-2026-03-05T09-00-bbbb2222.jsonl");
      writeFileSync(
        newer,
        line({
          sessionId: "bbbb2222-0000-4000-8000-000000000002",
          projectHash: "h",
          startTime: "2026-03-05T09:00:00.000Z",
          lastUpdated: "2026-03-05T09:00:00.000Z",
          kind: "main",
        }) + user("m-u1", "2026-03-05T09:00:01.000Z", "Export to XLSX too"),
      );
      const first = geminiCliParser.parse(unitBelow(home));
      expect(first.turns.map((turn) => turn.prompt)).toEqual(["Add a CSV export", "Export to XLSX too"]);
      const added = gemini("m-g1", "2026-03-05T09:00:09.000Z", "XLSX export added.");
      appendFileSync(newer, added);
      const resumed = geminiCliParser.parse(unitBelow(home), { resume: first.resume });
      expect(resumed.bytesRead).toBe(Buffer.byteLength(added));
      expect(resumed.turns.map((turn) => [turn.number, turn.response])).toEqual([[2, "XLSX export added."]]);
      appendFileSync(older, "\n");
      const afterOlderChange = geminiCliParser.parse(unitBelow(home), { resume: resumed.resume });
      expect(afterOlderChange.fromTurn).toBe(1);
      expect(afterOlderChange.turns.length).toBe(2);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a state written with other options, or by another parser, is ignored", () => {
    const { home, chats } = makeGeminiHome();
    try {
      copyFileSync(streaming, join(chats, "s.jsonl"));
      const plain = geminiCliParser.parse(unitBelow(home));
      const withOutputs = geminiCliParser.parse(unitBelow(home), { withOutputs: true, resume: plain.resume });
      expect(withOutputs.fromTurn).toBe(1);
      expect(withOutputs.turns[0]?.toolCalls[0]?.output).toBe("src/api.ts:3");
      const foreign = geminiCliParser.parse(unitBelow(home), { resume: { kind: "claude-code/v2" } });
      expect(foreign.fromTurn).toBe(1);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
