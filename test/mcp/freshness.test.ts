/**
 * Issue 10, "fresh while sessions are written": with `recall mcp` running (its watcher on, the default), a turn
 * appended to a Claude Code session file and a turn inserted into an OpenCode database (WAL mode, as OpenCode
 * keeps it) are found by the `search` tool within 5 s, without a restart; two servers on one index both
 * keep answering while one of them writes; a session whose file is deleted is still read, from the archive.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSchema, insertExchange, insertSession } from "../fixtures/opencode/make-db.ts";
import { appendClaudeTurns, writeClaudeSession, type WriterState } from "../helpers/claude-writer.ts";
import { call, connectStdio, fromSource, isolatedEnv, textOf, type Connection } from "./helpers.ts";

const work = mkdtempSync(join(tmpdir(), "recall-mcp-fresh-"));
const home = join(work, "home");
const claudeRoot = join(work, "claude", "projects");
const opencodeRoot = join(work, "opencode");
const claudeFile = join(claudeRoot, "-work-shop", "5b1c0de0-0000-4000-8000-000000000001.jsonl");
const opencodeDb = join(opencodeRoot, "opencode.db");
const flags = ["--claude-dir", claudeRoot, "--opencode-dir", opencodeRoot];
const env = isolatedEnv(home, join(work, "recall-home"));
let writer: WriterState;
let servers: Connection[] = [];

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  mkdirSync(opencodeRoot, { recursive: true });
  writer = writeClaudeSession(claudeFile, {
    sessionId: "5b1c0de0-0000-4000-8000-000000000001",
    cwd: "/work/shop",
    turns: [{ prompt: "set up the checkout page", response: "Created the checkout page with a summary table." }],
  });
  const db = new Database(opencodeDb);
  db.exec("PRAGMA journal_mode = WAL");
  createSchema(db);
  insertSession(db, {
    id: "ses_fresh",
    timeCreated: Date.now() - 60_000,
    timeUpdated: Date.now() - 60_000,
    directory: "/work/api",
    title: "API work",
  });
  insertExchange(db, "ses_fresh", "1", Date.now() - 60_000, "add a health endpoint", "Added GET /health.");
  db.close();
  servers = await Promise.all([
    connectStdio([...fromSource, "mcp", ...flags], env),
    connectStdio([...fromSource, "mcp", ...flags], env),
  ]);
  // Both answer once the first index is committed (whichever server built it).
  for (const server of servers)
    expect(textOf(await call(server.client, "search", { query: "checkout page" }))).toContain("5b1c0de0-0000");
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(work, { recursive: true, force: true });
});

/** Search with `server` every 200 ms until `word` is found at depth 2; resolves to the elapsed ms, or -1 after `limitMs`. */
async function waitUntilFound(server: Connection, word: string, limitMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    const result = await call(server.client, "search", { query: word, depth: 2 });
    const found = (result.structuredContent as { results?: Array<{ prompt: string }> } | undefined)?.results ?? [];
    if (found.some((turn) => turn.prompt.includes(word))) return performance.now() - started;
    await Bun.sleep(200);
  }
  return -1;
}

describe("issue 10: the MCP server stays fresh while sessions are written", () => {
  test("a turn appended to a Claude Code session file is found within 5 s, by both servers", async () => {
    appendClaudeTurns(claudeFile, writer, [
      {
        prompt: "the zanzibarquux coupon code is rejected at checkout",
        response: "The coupon validator lower-cases the code; fixed.",
      },
    ]);
    const elapsed = await waitUntilFound(servers[0]!, "zanzibarquux", 5000);
    expect(elapsed).toBeGreaterThanOrEqual(0);
    expect(await waitUntilFound(servers[1]!, "zanzibarquux", 1000)).toBeGreaterThanOrEqual(0);
  }, 15_000);

  test("a turn inserted into an OpenCode database is found within 5 s", async () => {
    const db = new Database(opencodeDb);
    insertExchange(
      db,
      "ses_fresh",
      "2",
      Date.now(),
      "the quokkarate limiter drops health checks",
      "Health checks now bypass the limiter.",
    );
    db.close();
    const elapsed = await waitUntilFound(servers[1]!, "quokkarate", 5000);
    expect(elapsed).toBeGreaterThanOrEqual(0);
  }, 15_000);

  test("a deleted session file stays searchable and read_turns falls back to recall's archive (issue 9)", async () => {
    rmSync(claudeFile);
    const started = performance.now();
    let read = await call(servers[0]!.client, "read_turns", { session: "5b1c0de0" });
    // At once the reader falls back to the archive ("source unreadable"); within 5 s the watcher marks it deleted.
    while (!textOf(read).includes("(source deleted") && performance.now() - started < 5000) {
      await Bun.sleep(200);
      read = await call(servers[0]!.client, "read_turns", { session: "5b1c0de0" });
    }
    expect((read.structuredContent as { from_archive: boolean }).from_archive).toBe(true);
    expect(textOf(read)).toContain("shown from recall's archive (source deleted");
    expect(textOf(read)).toContain("> the zanzibarquux coupon code is rejected at checkout");
    expect(await waitUntilFound(servers[1]!, "zanzibarquux", 1000)).toBeGreaterThanOrEqual(0);
  }, 15_000);

  test("the servers only ever wrote status lines on stderr, never a stack trace", () => {
    for (const server of servers) expect(server.stderr()).not.toMatch(/\n\s+at .*:\d+/);
  });
});
