/**
 * Issue 10: the stdio server's life and its registration. stdout carries protocol messages only; closing the
 * client's stdin (or SIGTERM) makes the server exit at once, leaving no child process; `--print-config` prints
 * the exact registration of this recall for Claude Code, OpenCode and mcpServers JSON.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, spawnCli } from "../helpers/cli.ts";
import { childPids, exampleFlags, isolatedEnv, repo } from "./helpers.ts";

const work = mkdtempSync(join(tmpdir(), "recall-mcp-life-"));
const home = join(work, "home");
mkdirSync(home);
const env = isolatedEnv(home, join(work, "recall-home"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const request = (id: number, method: string, params: object) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
const initialize = request(1, "initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "raw-test", version: "1" },
});
const initialized = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`;

/** Start the server from source with raw pipes (no SDK client in between). */
function spawnServer(extra: string[] = []) {
  return spawnCli(["mcp", ...exampleFlags, ...extra], env, { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
}

/** Read stdout until `count` lines arrived (or it closes). */
async function readLines(stream: ReadableStream<Uint8Array>, count: number): Promise<string[]> {
  const reader = stream.getReader();
  let text = "";
  while (text.split("\n").length <= count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n").filter(Boolean);
}

describe("issue 10: the stdio server's life", () => {
  test("stdout carries only JSON-RPC messages, even while the first index is built", async () => {
    const child = spawnServer();
    child.stdin.write(
      initialize +
        initialized +
        request(2, "tools/list", {}) +
        request(3, "tools/call", { name: "search", arguments: { query: "docker network" } }),
    );
    child.stdin.flush();
    const lines = await readLines(child.stdout, 3);
    expect(lines.length).toBe(3);
    const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: unknown });
    expect(messages.map((message) => [message.jsonrpc, message.id])).toEqual([
      ["2.0", 1],
      ["2.0", 2],
      ["2.0", 3],
    ]);
    child.stdin.end();
    expect(await child.exited).toBe(0);
  }, 30_000);

  test("closing stdin makes the server exit at once with status 0, and it started no child process", async () => {
    const child = spawnServer();
    child.stdin.write(initialize + initialized + request(2, "tools/call", { name: "recent", arguments: {} }));
    child.stdin.flush();
    await readLines(child.stdout, 2);
    await Bun.sleep(500); // the watcher is up and its first cycle done
    expect(childPids(child.pid)).toEqual([]);
    const started = performance.now();
    child.stdin.end();
    expect(await child.exited).toBe(0);
    expect(child.signalCode).toBeNull();
    expect(performance.now() - started).toBeLessThan(2000); // the SDK client would send SIGTERM after 2 s
  }, 30_000);

  test("SIGTERM stops the server cleanly", async () => {
    const child = spawnServer();
    child.stdin.write(initialize);
    child.stdin.flush();
    await readLines(child.stdout, 1);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stderr).text()).not.toMatch(/\n\s+at .*:\d+/);
  }, 30_000);
});

function recall(args: string[], extraEnv: Record<string, string> = {}) {
  const result = runCli(args, { ...env, ...extraEnv });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

describe("issue 10: recall mcp --print-config", () => {
  const cli = join(repo, "src", "cli.ts");

  test("claude prints the `claude mcp add` command running this recall by absolute path, with its flags and RECALL_HOME", () => {
    const result = recall(["mcp", "--print-config", "claude", "--claude-dir", "examples/claude-code", "--no-watch"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `claude mcp add recall --scope user --transport stdio --env RECALL_HOME=${env.RECALL_HOME} -- ${process.execPath} ${cli} mcp --claude-dir ${join(repo, "examples/claude-code")} --no-watch\n`,
    );
  });

  test("opencode and json print configuration blocks with the same command", () => {
    const opencode = JSON.parse(recall(["mcp", "--print-config", "opencode"]).stdout);
    expect(opencode).toEqual({
      $schema: "https://opencode.ai/config.json",
      mcp: {
        recall: {
          type: "local",
          command: [process.execPath, cli, "mcp"],
          enabled: true,
          environment: { RECALL_HOME: env.RECALL_HOME },
        },
      },
    });
    const json = JSON.parse(recall(["mcp", "--print-config", "json"]).stdout);
    expect(json).toEqual({
      mcpServers: { recall: { command: process.execPath, args: [cli, "mcp"], env: { RECALL_HOME: env.RECALL_HOME } } },
    });
  });

  test("with --http it prints the loopback URL and where the token is, never the token (issue 26)", () => {
    const result = recall(["mcp", "--print-config", "json", "--http", "--port", "7811"]);
    expect(result.code).toBe(0);
    const server = JSON.parse(result.stdout).mcpServers.recall;
    const tokenFile = join(env.RECALL_HOME!, "mcp-token");
    expect(server).toEqual({
      type: "http",
      url: "http://127.0.0.1:7811/mcp",
      headersHelper: `printf '{"Authorization":"Bearer %s"}' "$(cat ${tokenFile})"`,
    });
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(result.stdout).not.toContain(readFileSync(tokenFile, "utf8").trim());
    expect(result.stderr).toBe(
      `recall: the bearer token stays in ${tokenFile} (0600); Claude Code (.mcp.json) runs the headersHelper to read it at each connection; for a client without headersHelper, register the stdio server instead (\`recall mcp --print-config json\`)\n`,
    );
  });

  test("bad values are usage errors (exit 2) with one line and a hint", () => {
    for (const [args, message] of [
      [["mcp", "--print-config", "vim"], 'unknown --print-config target "vim"'],
      [["mcp", "--port", "9000"], "--port needs --http"],
      [["mcp", "--http", "--port", "70000"], "--port must be a whole number from 0 to 65535, got 70000"],
      [["mcp", "--http", "--port", "0", "--print-config", "json"], "--print-config with --http needs a fixed --port"],
    ] as const) {
      const result = recall([...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`recall: ${message}`);
      expect(result.stdout).toBe("");
    }
  });

  test("recall --help lists mcp", () => {
    expect(recall(["--help"]).stdout).toMatch(/\bmcp\b/);
  });

  test("only src/mcp loads the MCP SDK, and the rest reaches src/mcp lazily, so --help and searches never load it", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
      );
    // app.ts wires `mcp` by its flags (src/mcp/command.ts; every command's for --help), which loads the server when it runs.
    const command = join(repo, "src", "mcp", "command.ts");
    const eager =
      /^import\s+(?!type\b)[^;]*from\s+"(@modelcontextprotocol\/sdk[^"]*|\.\.?\/mcp\/(?!command\.ts")[^"]*)"/m;
    const offenders = files(join(repo, "src"))
      .filter((file) => !file.startsWith(join(repo, "src", "mcp")))
      .filter((file) => eager.test(readFileSync(file, "utf8")));
    expect(readFileSync(command, "utf8")).not.toMatch(/^import\s+(?!type\b)[^;]*from\s+"(@modelcontextprotocol|\.\/)/m);
    expect(offenders).toEqual([]);
  });
});
