/**
 * When `recall mcp` starts its watcher (issue 42, service/deferred-watcher.ts): after its first tool call is answered,
 * so the watcher's folder scan no longer holds that answer back; and after two seconds when no call comes, so a
 * server no agent has asked yet still keeps the index fresh. A turn appended before the server starts is what the
 * watcher's first cycle indexes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { databasePath } from "../../src/index/index.ts";
import { appendClaudeTurns, writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { call, connectStdio, fromSource, isolatedEnv, textOf, type Connection } from "./helpers.ts";

const tempDir = tempDirs("recall-mcp-watcher-");
let server: Connection | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An indexed history of one Claude Code session, then a turn with `word` appended to it (not indexed yet). */
function historyWithAppendedTurn(word: string) {
  const work = tempDir();
  const home = join(work, "home");
  mkdirSync(home);
  const claudeRoot = join(work, "claude", "projects");
  const file = join(claudeRoot, "-work-shop", "5b1c0de0-0000-4000-8000-000000000002.jsonl");
  const writer = writeClaudeSession(file, {
    sessionId: "5b1c0de0-0000-4000-8000-000000000002",
    cwd: "/work/shop",
    turns: [{ prompt: "set up the checkout page", response: "Created it." }],
  });
  const recallHome = join(work, "recall-home");
  const env = isolatedEnv(home, recallHome);
  mkdirSync(join(work, "opencode"));
  const flags = ["--claude-dir", claudeRoot, "--opencode-dir", join(work, "opencode")];
  expect(runCli(["index", "--keyword-only", ...flags], env).exitCode).toBe(0);
  appendClaudeTurns(file, writer, [{ prompt: `what about the ${word} cache`, response: "It is warm now." }]);
  return { env, flags, recallHome };
}

/** True when the index holds a document with `word`. */
function indexed(recallHome: string, word: string): boolean {
  const db = new Database(databasePath(recallHome), { readonly: true });
  try {
    return db.query("SELECT 1 FROM documents_fts WHERE documents_fts MATCH ?").get(word) !== null;
  } finally {
    db.close();
  }
}

/** Polls `found` every 100 ms for up to 20 s (a read that meets the writer's lock counts as not yet); whether it became true. */
async function eventually(found: () => boolean): Promise<boolean> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await Bun.sleep(100)) {
    try {
      if (found()) return true;
    } catch {
      // SQLITE_BUSY while the watcher commits: try again
    }
  }
  return false;
}

describe("recall mcp starts its watcher after the first answer (issue 42)", () => {
  test("no call: the watcher starts anyway and indexes the appended turn", async () => {
    const { env, flags, recallHome } = historyWithAppendedTurn("zeppelinword");
    server = await connectStdio([...fromSource, "mcp", ...flags], env);
    expect(await eventually(() => indexed(recallHome, "zeppelinword"))).toBe(true);
  });

  test("nothing is indexed before a call; the first answer comes from the index as it was, then the watcher runs", async () => {
    const { env, flags, recallHome } = historyWithAppendedTurn("quasarword");
    server = await connectStdio([...fromSource, "mcp", ...flags], env);
    // Long enough for a first cycle started with the server to have indexed it, short of the two seconds.
    await Bun.sleep(1500);
    expect(indexed(recallHome, "quasarword")).toBe(false);
    const first = textOf(await call(server.client, "search", { query: "quasarword" }));
    expect(first).not.toContain("5b1c0de0");
    expect(await eventually(() => indexed(recallHome, "quasarword"))).toBe(true);
  });
});
