/**
 * Issue 37 (hole 9) through the MCP server: a session whose first prompt is ~3 MB. A level-2 search in the full format
 * prints the prompt cut as the CLI's JSON cuts it (2,000 characters, the marker counting the whole prompt and naming
 * the read_turns call that reads it), not whole; read_turns, level 3, says how many characters of the turn search does
 * not read, and pages through the whole text.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { searchableChars } from "../../src/index/write/documents.ts";
import { hugePrompt, hugePromptSession } from "../fixtures/huge-prompt.ts";
import { type Connection, call, serveOneSession, textOf } from "./helpers.ts";

const sessionId = "4a4a4a4a-3737-4000-8000-000000000037";
let server: Connection;

beforeAll(async () => {
  server = await serveOneSession("recall-mcp-huge-", hugePromptSession(sessionId));
}, 120_000);
afterAll(() => server?.close());

describe("issue 37: a huge prompt in MCP answers", () => {
  test("search depth 2 in the full format cuts the prompt as the CLI's JSON does, counting the whole prompt", async () => {
    const result = await call(server.client, "search", { query: "zanzibarquux", depth: 2, format: "full" });
    expect(result.isError).toBeFalsy();
    const marker = `…[cut ${hugePrompt.length - 2000} characters; full text: read_turns session=${sessionId} from=1]`;
    const text = textOf(result);
    expect(text).toContain(marker);
    expect(text.length).toBeLessThan(10_000);
    const [first] = (result.structuredContent as { results: Array<{ prompt: string }> }).results;
    expect(first?.prompt).toBe(`${hugePrompt.slice(0, 2000)}${marker}`);
  }, 60_000);

  test("read_turns says how much of the turn search does not read, and shows its end", async () => {
    const notSearched = (hugePrompt.length - searchableChars).toLocaleString("en-US");
    const first = textOf(await call(server.client, "read_turns", { session: sessionId, from: 1, to: 1 }));
    expect(first.split("\n")[3]).toBe(
      `turn 1: ${notSearched} characters past the first 200,000 of its prompt or reply are shown here but not searchable`,
    );
    const last = textOf(
      await call(server.client, "read_turns", {
        session: sessionId,
        from: 1,
        to: 1,
        from_char: hugePrompt.length - 100,
        budget: 2000,
      }),
    );
    expect(last).toContain("quuxendword closes it");
    const second = textOf(await call(server.client, "read_turns", { session: sessionId, from: 2, to: 2 }));
    expect(second).not.toContain("not searchable");
  }, 60_000);
});
