import { describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import type { ParseResult } from "../../src/parsers/types.ts";
import { makeGeminiHome, unitBelow } from "../fixtures/gemini-cli/helpers.ts";

const shopChats = resolve(import.meta.dir, "../fixtures/gemini-cli/dot-gemini/tmp/shop-app/chats");
const streaming = join(shopChats, "session-2026-04-10T08-00-dddd4444.jsonl");

const line = (value: object) => `${JSON.stringify(value)}\n`;
const header = (sessionId: string) =>
  line({ sessionId, projectHash: "h", startTime: "2026-05-04T10:00:00.000Z", lastUpdated: "2026-05-04T10:00:00.000Z" });
const user = (id: string, time: string, content: string) => line({ id, timestamp: time, type: "user", content });
const gemini = (id: string, time: string, content: string, toolCalls: object[] = []) =>
  line({ id, timestamp: time, type: "gemini", content, model: "gemini-2.5-pro", toolCalls });

/** Parse the chat `text` written as `name` into a fresh `.gemini` home (and any `extra` files beside it). */
function parseChat(name: string, text: string, extra: Record<string, string> = {}): ParseResult {
  const { home, chats } = makeGeminiHome();
  try {
    writeFileSync(join(chats, name), text);
    for (const [file, content] of Object.entries(extra)) writeFileSync(join(chats, file), content);
    return geminiCliParser.parse(unitBelow(home));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const reasons = (result: ParseResult) =>
  Object.fromEntries(Object.entries(result.skipped.reasons ?? {}).map(([reason, entry]) => [reason, entry.count]));

describe("issue 26: what the Gemini parser cannot place is counted", () => {
  test("a reply before the first prompt, a tool call without a name and the text of an unknown type are counted", () => {
    const result = parseChat(
      "s.jsonl",
      header("s1") +
        gemini("g0", "2026-05-04T10:00:01.000Z", "Welcome back; the last build failed.") +
        user("u1", "2026-05-04T10:00:02.000Z", "Fix the build") +
        gemini("g1", "2026-05-04T10:00:05.000Z", "Fixed.", [{ id: "c1", args: { command: "make" } }]) +
        line({
          id: "x1",
          timestamp: "2026-05-04T10:00:06.000Z",
          type: "summary",
          content: "Build fixed by pinning gcc",
        }) +
        line({ id: "i1", timestamp: "2026-05-04T10:00:07.000Z", type: "info", content: "Update available" }),
    );
    expect(result.turns.map((turn) => [turn.prompt, turn.response])).toEqual([["Fix the build", "Fixed."]]);
    expect(reasons(result)).toEqual({
      "reply before the first prompt": 1,
      "tool call without name": 1,
      "message of unknown type": 1,
    });
    expect(result.skipped.reasons?.["reply before the first prompt"]?.first).toEndWith("s.jsonl: message g0");
  });

  test("checkpoint entries that are not messages are counted; a record without a type is counted", () => {
    const result = parseChat(
      "s.jsonl",
      header("s2") +
        line({
          $set: {
            messages: [
              { id: "u1", timestamp: "2026-05-04T10:00:01.000Z", type: "user", content: "Check the logs" },
              "not a message",
              { id: "g1", timestamp: "2026-05-04T10:00:02.000Z", content: "a record with no type" },
            ],
          },
        }) +
        line({ id: "g2", timestamp: "2026-05-04T10:00:03.000Z", content: "no type either" }),
    );
    expect(result.turns.map((turn) => turn.prompt)).toEqual(["Check the logs"]);
    expect(reasons(result)).toEqual({ "message not an object": 1, "message without type": 2 });
    expect(result.skipped.reasons?.["message not an object"]?.first).toEndWith("s.jsonl:2");
  });

  test("a whole chat record on one JSONL line keeps its messages (the CLI's loader reads them)", () => {
    const record = {
      sessionId: "s3",
      projectHash: "h",
      startTime: "2026-05-04T10:00:00.000Z",
      messages: [
        { id: "u1", timestamp: "2026-05-04T10:00:01.000Z", type: "user", content: "Explain the retry loop" },
        { id: "g1", timestamp: "2026-05-04T10:00:02.000Z", type: "gemini", content: "It backs off exponentially." },
      ],
    };
    const result = parseChat(
      "s.jsonl",
      line(record) +
        user("u2", "2026-05-04T10:01:00.000Z", "And the cap?") +
        gemini("g2", "2026-05-04T10:01:02.000Z", "30 s."),
    );
    expect(result.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["Explain the retry loop", "It backs off exponentially."],
      ["And the cap?", "30 s."],
    ]);
  });

  test("the unterminated last line of an older file of the session is kept, not only the newest file's", () => {
    const { home, chats } = makeGeminiHome();
    try {
      writeFileSync(
        join(chats, "session-2026-05-04T10-00-s4s4s4s4.jsonl"),
        header("s4") +
          user("u1", "2026-05-04T10:00:01.000Z", "Bump the version") +
          JSON.stringify({
            id: "g1",
            timestamp: "2026-05-04T10:00:02.000Z",
            type: "gemini",
            content: "Bumped to 2.1.",
          }),
      );
      writeFileSync(
        join(chats, "session-2026-05-05T10-00-s4s4s4s4.jsonl"),
        line({ sessionId: "s4", projectHash: "h", startTime: "2026-05-05T10:00:00.000Z" }) +
          user("u2", "2026-05-05T10:00:01.000Z", "Tag it"),
      );
      const result = geminiCliParser.parse(unitBelow(home));
      expect(result.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
        ["Bump the version", "Bumped to 2.1."],
        ["Tag it", ""],
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a .json's message its .jsonl twin never held is kept; what the twin rewound stays out of the main turns", () => {
    const name = "session-2026-03-03T08-00-cccc3333";
    const document = JSON.parse(readFileSync(join(shopChats, `${name}.json`), "utf8"));
    document.messages.push(
      {
        id: "c-u9",
        timestamp: "2026-03-05T10:00:00.000Z",
        type: "user",
        content: "Written by an older CLI after the copy",
      },
      { id: "c-g9", timestamp: "2026-03-05T10:00:03.000Z", type: "gemini", content: "Only in the .json." },
    );
    const result = parseChat(`${name}.json`, JSON.stringify(document), {
      [`${name}.jsonl`]: readFileSync(join(shopChats, `${name}.jsonl`), "utf8"),
    });
    expect(result.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [1, "Rename the cart module", "Renamed to basket."],
      [2, "Now update the imports", "Imports updated."],
      [3, "Written by an older CLI after the copy", "Only in the .json."],
      [-1, "REWOUND prompt that the user took back", "REWOUND answer"], // a rewound turn, as the twin left it
    ]);
    expect(result.session.location.endsWith(`${name}.jsonl`)).toBe(true);
  });
});

describe("issue 26: a resumed Gemini parse reports the whole session's skips", () => {
  test("a broken line before the append is still counted after the resumed parse", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const file = join(chats, "s.jsonl");
      copyFileSync(streaming, file);
      const first = geminiCliParser.parse(unitBelow(home));
      expect(first.skipped.count).toBe(2); // line 7 is not JSON; line 14 is a record of an unknown kind
      appendFileSync(
        file,
        user("n-u1", "2026-04-10T09:00:00.000Z", "Add a /refund route") +
          "{not json either\n" +
          gemini("n-g1", "2026-04-10T09:00:04.000Z", "Added /refund."),
      );
      const resumed = geminiCliParser.parse(unitBelow(home), { resume: first.resume });
      expect(resumed.bytesVerified).toBe(readFileSync(streaming).length);
      expect(resumed.fromTurn).toBe(4);
      expect(resumed.skipped.count).toBe(3);
      const full = geminiCliParser.parse(unitBelow(home));
      expect(resumed.skipped).toEqual(full.skipped);
      expect(resumed.skipped.first).toEndWith("s.jsonl:7: not JSON");
      const again = geminiCliParser.parse(unitBelow(home), { resume: resumed.resume });
      expect(again.skipped).toEqual(full.skipped);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("what messages before the last prompt could not place stays counted when the session resumes", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const file = join(chats, "s.jsonl");
      writeFileSync(
        file,
        header("s6") +
          gemini("g0", "2026-05-04T10:00:01.000Z", "A reply before any prompt") +
          user("u1", "2026-05-04T10:00:02.000Z", "First") +
          gemini("g1", "2026-05-04T10:00:03.000Z", "One", [{ args: {} }]) +
          user("u2", "2026-05-04T10:00:04.000Z", "Second"),
      );
      const first = geminiCliParser.parse(unitBelow(home));
      expect(first.skipped.count).toBe(2);
      appendFileSync(
        file,
        gemini("g2", "2026-05-04T10:00:05.000Z", "Two", [{ args: {} }]) +
          user("u3", "2026-05-04T10:00:06.000Z", "Third"),
      );
      const resumed = geminiCliParser.parse(unitBelow(home), { resume: first.resume });
      expect(resumed.bytesVerified).toBeGreaterThan(0);
      const full = geminiCliParser.parse(unitBelow(home));
      expect(resumed.skipped).toEqual(full.skipped);
      expect(resumed.skipped.count).toBe(3);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
