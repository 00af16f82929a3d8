/**
 * Issue 10: `recall mcp` from the compiled binary (copied alone into an empty folder, no Bun on PATH), driven by
 * the SDK's client over stdio: every tool answers, a bad argument is a tool error, `--print-config` registers
 * the binary itself, and closing stdin ends the process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildBinaryOnce, canBuildBinary } from "../build/build-once.ts";
import { call, childPids, connectStdio, exampleFlags, textOf, type Connection } from "./helpers.ts";

const work = mkdtempSync(join(tmpdir(), "recall-mcp-binary-"));
const binary = join(work, "bin", "recall");
const home = join(work, "home");
/** No node_modules, no Bun on PATH, an empty HOME, offline. */
const env = {
  PATH: "/usr/bin:/bin",
  HOME: home,
  RECALL_HOME: join(work, "recall-home"),
  RECALL_OFFLINE: "1",
  NO_COLOR: "1",
};
let server: Connection | undefined;

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!canBuildBinary)(
  "issue 10: recall mcp from the compiled binary (builds it; ~15 s the first time)",
  () => {
    beforeAll(async () => {
      const built = await buildBinaryOnce();
      mkdirSync(dirname(binary), { recursive: true });
      mkdirSync(home, { recursive: true });
      copyFileSync(built.binary, binary);
      Bun.spawnSync(["chmod", "755", binary]);
      server = await connectStdio([binary, "mcp", ...exampleFlags], env, work);
    }, 240_000);

    test("every tool answers through the SDK client, in both formats", async () => {
      const client = server!.client;
      expect((await client.listTools()).tools.length).toBe(6);
      const search = await call(client, "search", { query: "containers cannot reach postgres on the host", limit: 2 });
      expect(textOf(search)).toContain("23d3db6a-c189-41e8-b15e-e3dfa565d49f");
      const full = await call(client, "search", { query: "borrow error", depth: 2, format: "full", limit: 1 });
      expect(
        (full.structuredContent as { results: Array<{ project: string; tools: string[] }> }).results[0],
      ).toMatchObject({ project: "tidy-rs" });
      expect(textOf(await call(client, "read_turns", { session: "23d3db6a", from: 4 }))).toContain(
        "[Edit] /home/dev/infra/platform-deploy/deploy/README.md (+9 −2)",
      );
      expect(textOf(await call(client, "list_sessions", { limit: 3 }))).toContain("more: offset=3");
      expect(textOf(await call(client, "timeline", { anchor: "23d3db6a:2", before: 1, after: 1 }))).toMatch(/^▶ /m);
      expect(textOf(await call(client, "recent", { project: "shop-api" }))).toContain("first: ");
      // no summary model in this environment: the answer says how to set one (issue 41)
      const summary = await call(client, "summarize_session", { session: "23d3db6a" });
      expect(summary.structuredContent).toMatchObject({ summary: null, made: false });
      expect(textOf(summary)).toContain("no summary model is set");
    });

    test("a bad argument or an unknown session is a tool error and the binary keeps serving", async () => {
      const client = server!.client;
      const bad = await call(client, "read_turns", { session: "zzzzzzzz-missing" });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toContain("no session matches zzzzzzzz-missing");
      expect((await call(client, "search", { query: "x", depth: 7 })).isError).toBe(true);
      expect((await call(client, "recent", { limit: 1 })).isError).toBeFalsy();
    });

    test("--print-config names the binary itself", () => {
      const result = Bun.spawnSync([binary, "mcp", "--print-config", "json"], { env, cwd: work });
      expect(JSON.parse(result.stdout.toString()).mcpServers.recall).toMatchObject({ command: binary, args: ["mcp"] });
    });

    test("closing stdin ends the binary, which started no child process", async () => {
      const pid = server!.transport.pid!;
      expect(childPids(pid)).toEqual([]);
      const started = performance.now();
      await server!.close(); // ends stdin; the SDK would SIGTERM after 2 s
      server = undefined;
      expect(performance.now() - started).toBeLessThan(2000);
      expect(() => process.kill(pid, 0)).toThrow();
    });
  },
);
