/**
 * Qwen Code abstract (issue 41): a `system` `chat_compression` record (QwenLM/qwen-code chatRecordingService.ts
 * `recordChatCompression`: `systemPayload {info, compressedHistory}`) gives its summary, the first `user` entry of the
 * compressed history, to the session's abstract; no turn holds it.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { qwenCodeParser } from "../../src/parsers/qwen-code.ts";

const work = mkdtempSync(join(tmpdir(), "recall-qwen-abstract-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const base = { sessionId: "s-q", cwd: "/w/app", version: "0.9.0" };
const line = (uuid: string, parentUuid: string | null, timestamp: string, extra: Record<string, unknown>) =>
  JSON.stringify({ uuid, parentUuid, ...base, timestamp, ...extra });
const snapshot = "<state_snapshot>\n<overall_goal>Paginate GET /orders.</overall_goal>\n</state_snapshot>";

test("a chat_compression record's summary is the abstract, newest first, and in no turn", () => {
  const chats = join(work, "projects/-w-app/chats");
  mkdirSync(chats, { recursive: true });
  const compression = (uuid: string, parent: string, timestamp: string, summary: string) =>
    line(uuid, parent, timestamp, {
      type: "system",
      subtype: "chat_compression",
      systemPayload: {
        info: { originalTokenCount: 90000, newTokenCount: 3000, compressionStatus: 1 },
        compressedHistory: [
          { role: "user", parts: [{ text: summary }] },
          { role: "model", parts: [{ text: "Got it. Thanks for the additional context!" }] },
        ],
      },
    });
  const lines = [
    line("u1", null, "2026-05-01T10:00:00.000Z", {
      type: "user",
      message: { role: "user", parts: [{ text: "Add pagination" }] },
    }),
    line("a1", "u1", "2026-05-01T10:00:05.000Z", {
      type: "assistant",
      message: { role: "model", parts: [{ text: "Added it." }] },
    }),
    compression("c1", "a1", "2026-05-01T10:05:00.000Z", snapshot),
    line("u2", "c1", "2026-05-01T10:06:00.000Z", {
      type: "user",
      message: { role: "user", parts: [{ text: "Now the tests" }] },
    }),
    compression("c2", "u2", "2026-05-01T10:09:00.000Z", "Tests for pagination pass."),
  ];
  writeFileSync(join(chats, "s-q.jsonl"), `${lines.join("\n")}\n`);
  const unit = qwenCodeParser.listUnits(qwenCodeParser.scan([work]).containers)[0];
  if (!unit) throw new Error("no unit");
  const { session, turns, skipped } = qwenCodeParser.parse(unit);
  expect(session.abstract).toEqual([
    { source: "compaction", text: "Tests for pagination pass.", at: Date.parse("2026-05-01T10:09:00.000Z") },
    {
      source: "compaction",
      text: "<overall_goal>Paginate GET /orders.</overall_goal>",
      at: Date.parse("2026-05-01T10:05:00.000Z"),
    },
  ]);
  expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([
    ["Add pagination", "Added it."],
    ["Now the tests", ""],
  ]);
  expect(JSON.stringify(turns)).not.toContain("overall_goal");
  expect(skipped.count).toBe(0);
});
