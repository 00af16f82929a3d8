/**
 * When `recall mcp` starts its watcher (issue 42, service/deferred-watcher.ts): after its first tool call is answered,
 * so the watcher's folder scan no longer holds that answer back; and after two seconds when no call comes, so a
 * server no agent has asked yet still keeps the index fresh. A turn appended before the server starts is what the
 * watcher's first cycle indexes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { appendClaudeTurns, writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { indexHoldsWord, waitFor } from "../index/watch/helpers.ts";
import { call, connectStdio, fromSource, isolatedEnv, textOf, type Connection } from "./helpers.ts";

let server: Connection | undefined;
// Defined before tempDirs' own afterEach, so it runs first (bun:test runs them in order): a server still running
// after its folders were removed wrote them again, and they were left in the temporary folder.
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const tempDir = tempDirs("recall-mcp-watcher-");

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

describe("recall mcp starts its watcher after the first answer (issue 42)", () => {
  test("no call: the watcher starts anyway and indexes the appended turn", async () => {
    const { env, flags, recallHome } = historyWithAppendedTurn("zeppelinword");
    server = await connectStdio([...fromSource, "mcp", ...flags], env);
    await waitFor(() => indexHoldsWord(recallHome, "zeppelinword"), 20_000);
  });

  test("nothing is indexed before a call; the first answer comes from the index as it was, then the watcher runs", async () => {
    const { env, flags, recallHome } = historyWithAppendedTurn("quasarword");
    server = await connectStdio([...fromSource, "mcp", ...flags], env);
    // Long enough for a first cycle started with the server to have indexed it, short of the two seconds.
    await Bun.sleep(1500);
    expect(indexHoldsWord(recallHome, "quasarword")).toBe(false);
    const first = textOf(await call(server.client, "search", { query: "quasarword" }));
    expect(first).not.toContain("5b1c0de0");
    await waitFor(() => indexHoldsWord(recallHome, "quasarword"), 20_000);
  });
});
