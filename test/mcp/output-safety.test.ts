/**
 * Issue 26 (check asked for with the MCP trip-ups): every MCP tool's answer goes through the same redaction
 * (src/redact) and control-character neutralizing (render/escapes.ts) as the CLI's output. A Claude Code session
 * carries the planted secrets of issue 9 in prompts, replies, tool inputs and tool outputs, and terminal escapes
 * (OSC, CSI, C1 CSI, BEL) in its title, prompts, replies and tool calls; the real stdio server is asked for it
 * through every tool in both formats, and neither the text nor any string of the structured content holds a
 * secret or a raw control character.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TestTurn } from "../helpers/claude-writer.ts";
import { findLeaks, plantedSecrets } from "../helpers/secrets.ts";
import { type Connection, call, serveOneSession, textOf } from "./helpers.ts";

const sessionId = "5afe5afe-2626-4bbb-8ccc-000000000001";
const escapes = "\u001b]0;pwned\u0007 \u001b[2J \u009b31m";
let server: Connection;

const turns: TestTurn[] = plantedSecrets.map((planted, i) => {
  const where = i % 4;
  return {
    prompt: `deploy step ${i} ${escapes}: ${where === 0 ? planted.carrier : "check the credentials"}`,
    response: `Checked the deploy credentials ${escapes}${where === 1 ? `\n${planted.carrier}` : ""}`,
    tools: [
      {
        name: "Bash",
        input: { command: where === 2 ? planted.carrier : `cat deploy/.env.step${i} # ${escapes}` },
        output: where === 3 ? `${planted.carrier}\n` : `ok ${escapes}\n`,
      },
    ],
  };
});

beforeAll(async () => {
  server = await serveOneSession("recall-mcp-safety-", {
    sessionId,
    cwd: "/home/dev/ops",
    title: `rotate the deploy credentials ${escapes}`,
    turns,
  });
}, 60_000);
afterAll(() => server?.close());

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
const rawControl = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

/** Every string inside `value`. */
const stringsOf = (value: unknown): string[] =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(stringsOf)
      : value !== null && typeof value === "object"
        ? Object.values(value).flatMap(stringsOf)
        : [];

function expectSafe(result: CallToolResult): void {
  const strings = [textOf(result), ...stringsOf(result.structuredContent ?? {})];
  expect(findLeaks(strings.join("\n"))).toEqual([]);
  expect(strings.filter((text) => rawControl.test(text)).map((text) => text.slice(0, 60))).toEqual([]);
}

describe("issue 26: MCP answers are redacted and neutralized like the CLI's", () => {
  const calls: Array<[string, Record<string, unknown>]> = [
    ["search", { query: "deploy credentials", format: "index" }],
    ["search", { query: "deploy credentials", format: "full" }],
    ["search", { query: "deploy credentials", depth: 2, limit: 50, format: "index" }],
    ["search", { query: "deploy credentials", depth: 2, limit: 50, format: "full" }],
    ["search", { query: "pwned", depth: 2, session: sessionId, format: "full" }],
    ["read_turns", { session: sessionId, budget: 200_000 }],
    ["read_turns", { session: sessionId, budget: 700 }],
    ["list_sessions", { format: "index" }],
    ["list_sessions", { format: "full" }],
    ["timeline", { anchor: `${sessionId.slice(0, 8)}:20`, before: 20, after: 20, format: "index" }],
    ["timeline", { anchor: `${sessionId.slice(0, 8)}:20`, before: 20, after: 20, format: "full" }],
    ["recent", { project: "ops", format: "index" }],
    ["recent", { project: "ops", format: "full" }],
  ];
  for (const [tool, args] of calls) {
    test(`${tool} ${JSON.stringify(args)} holds no planted secret and no raw control character`, async () => {
      const result = await call(server.client, tool, args);
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain(sessionId); // the session is in the answer, so the check is not vacuous
      expectSafe(result);
    });
  }

  test("read_turns shows the markers and escapes where the secrets and control characters were", async () => {
    const text = textOf(await call(server.client, "read_turns", { session: sessionId, budget: 200_000 }));
    expect(text).toContain("[REDACTED:");
    expect(text).toContain("\\x1b]0;pwned\\x07");
    expect(text).toContain("\\x9b31m");
  });

  test("an error naming an argument with control characters is neutralized too", async () => {
    const result = await call(server.client, "read_turns", { session: "\u001b[2Jgone" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("\\x1b[2Jgone");
    expectSafe(result);
  });
});
