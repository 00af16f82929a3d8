/**
 * Issue 10: `recall watch` from the compiled binary (copied alone into an empty folder, no Bun on PATH): chokidar
 * is bundled and loads lazily, an appended turn is indexed within 5 s, and SIGINT ends the process with 0.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { appendClaudeTurns, writeClaudeSession } from "../helpers/claude-writer.ts";
import { buildBinaryOnce, canBuildBinary } from "../build/build-once.ts";
import { makeWorkspace, sourceFlags, waitFor } from "../index/watch/helpers.ts";

const workspace = makeWorkspace();
const binary = join(workspace.dir, "bin", "recall");
/** No node_modules, no Bun on PATH, an empty HOME, offline. */
const env = {
  PATH: "/usr/bin:/bin",
  HOME: join(workspace.dir, "home"),
  RECALL_HOME: workspace.recallHome,
  RECALL_OFFLINE: "1",
  NO_COLOR: "1",
};
afterAll(() => workspace.cleanup());

/** Prompts of the turns the binary's `search --depth 2 --no-reindex --json` finds. */
function search(query: string): string[] {
  const result = Bun.spawnSync(
    [binary, "search", query, "--depth", "2", "--no-reindex", "--keyword-only", "--json", ...sourceFlags(workspace)],
    { env, cwd: workspace.dir },
  );
  if (result.exitCode !== 0) return [];
  return (JSON.parse(result.stdout.toString()) as { results: Array<{ prompt: string }> }).results.map(
    (turn) => turn.prompt,
  );
}

describe.skipIf(!canBuildBinary)(
  "issue 10: recall watch from the compiled binary (builds it; ~15 s the first time)",
  () => {
    beforeAll(async () => {
      const built = await buildBinaryOnce();
      mkdirSync(join(workspace.dir, "bin"), { recursive: true });
      copyFileSync(built.binary, binary);
      Bun.spawnSync(["chmod", "755", binary]);
    }, 240_000);

    test("an appended Claude turn is searchable within 5 s, and SIGINT exits 0", async () => {
      const sessionId = "b1a41000-0000-4000-8000-000000000001";
      const file = join(workspace.claude, "-home-dev-binary", `${sessionId}.jsonl`);
      const state = writeClaudeSession(file, {
        sessionId,
        cwd: "/home/dev/binary",
        turns: [{ prompt: "first", response: "ok" }],
      });
      const child = Bun.spawn([binary, "watch", "--debounce", "300", "--keyword-only", ...sourceFlags(workspace)], {
        env,
        cwd: workspace.dir,
        stdout: "pipe",
        stderr: "pipe",
      });
      let stderr = "";
      void (async () => {
        for await (const chunk of child.stderr as ReadableStream<Uint8Array>) stderr += new TextDecoder().decode(chunk);
      })();
      try {
        await waitFor(() => stderr.includes("indexed:"), 15_000, 50);
        appendClaudeTurns(file, state, [{ prompt: "compile the gazelle shaders", response: "ok" }]);
        const elapsedMs = await waitFor(
          () => search("gazelle shaders").some((prompt) => prompt.includes("gazelle shaders")),
          8000,
          150,
        );
        expect(elapsedMs).toBeLessThan(5000);
        child.kill("SIGINT");
        expect(await child.exited).toBe(0);
        expect(stderr).not.toMatch(/warning|error/);
      } finally {
        child.kill("SIGKILL");
      }
    }, 30_000);
  },
);
