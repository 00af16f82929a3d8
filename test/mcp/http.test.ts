/**
 * Issue 10: `recall mcp --http` with real HTTP requests. It listens on 127.0.0.1 only (not on the machine's other
 * addresses), refuses a foreign Host (DNS rebinding) or Origin with 403, a missing or wrong bearer token with
 * 401, and with the right token serves the SDK's streamable HTTP client. The token lives in a 0600 file; a
 * token file other users can read is refused.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, spawnCli } from "../helpers/cli.ts";
import { call, exampleFlags, isolatedEnv, textOf } from "./helpers.ts";

const work = mkdtempSync(join(tmpdir(), "recall-mcp-http-"));
const home = join(work, "home");
const recallHome = join(work, "recall-home");
mkdirSync(home);
const env = isolatedEnv(home, recallHome);
const tokenFile = join(recallHome, "mcp-token");
let server: ReturnType<typeof Bun.spawn>;
let port = 0;
let token = "";
let stderrText = "";

/** Read the server's stderr until the line announcing the endpoint; returns the port. */
async function announcedPort(stderr: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stderr.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the server exited: ${stderrText}`);
    stderrText += new TextDecoder().decode(value);
    const match = /MCP over HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderrText);
    if (match) {
      reader.releaseLock();
      return Number(match[1]);
    }
  }
}

beforeAll(async () => {
  server = spawnCli(["mcp", "--http", "--port", "0", "--no-watch", ...exampleFlags], env, {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  port = await announcedPort(server.stderr as ReadableStream<Uint8Array>);
  token = readFileSync(tokenFile, "utf8").trim();
}, 30_000);

afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  rmSync(work, { recursive: true, force: true });
});

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** One raw HTTP/1.1 request over TCP, so the Host header is exactly what we write; resolves to the status code. */
function rawStatus(host: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      const lines = [
        `POST /mcp HTTP/1.1`,
        `Host: ${host}`,
        ...Object.entries({
          ...mcpHeaders,
          ...headers,
          "content-length": String(Buffer.byteLength(initialize)),
          connection: "close",
        }).map(([key, value]) => `${key}: ${value}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n${initialize}`);
    });
    let response = "";
    socket.on("data", (chunk) => (response += chunk.toString()));
    socket.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(response)?.[1] ?? 0)));
    socket.on("error", reject);
  });
}

describe("issue 10: recall mcp --http", () => {
  test("announces the loopback endpoint and keeps the token in a 0600 file in a private folder", () => {
    expect(stderrText).toContain(`bearer token in ${tokenFile}`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test("a request without the token, or with a wrong one, is refused with 401", async () => {
    const url = `http://127.0.0.1:${port}/mcp`;
    const none = await fetch(url, { method: "POST", headers: mcpHeaders, body: initialize });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    const wrong = await fetch(url, {
      method: "POST",
      headers: { ...mcpHeaders, authorization: `Bearer ${"x".repeat(43)}` },
      body: initialize,
    });
    expect(wrong.status).toBe(401);
  });

  test("a foreign Host or Origin is refused with 403 even with the right token (DNS rebinding, web pages)", async () => {
    const authorization = `Bearer ${token}`;
    expect(await rawStatus(`evil.example:${port}`, { authorization })).toBe(403);
    expect(await rawStatus(`127.0.0.1:${port + 1}`, { authorization })).toBe(403);
    expect(await rawStatus(`127.0.0.1:${port}`, { authorization, origin: "https://evil.example" })).toBe(403);
    expect(await rawStatus(`localhost:${port}`, { authorization, origin: `http://localhost:${port}` })).toBe(200);
  });

  test("with the right token the SDK's HTTP client lists the tools and searches", async () => {
    const client = new Client({ name: "http-test", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("read_turns");
      expect(client.getInstructions()).toContain("3. read_turns session=ID from=N to=M"); // issue 26: HTTP too
      const result = await call(client, "search", { query: "containers cannot reach postgres on the host", limit: 1 });
      expect(textOf(result)).toContain("23d3db6a-c189-41e8-b15e-e3dfa565d49f");
    } finally {
      await client.close();
    }
  });

  /** `recall mcp --print-config <target> --http` for the running server. */
  const printConfig = (target: string) => {
    const result = runCli(["mcp", "--print-config", target, "--http", "--port", String(port)], env);
    return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  };

  /** Connect the SDK's HTTP client with `headers`, list the tools, and close. */
  async function toolNamesWith(headers: Record<string, string>): Promise<string[]> {
    const client = new Client({ name: "config-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers } }),
    );
    try {
      return (await client.listTools()).tools.map((tool) => tool.name);
    } finally {
      await client.close();
    }
  }

  test("issue 26: --print-config claude --http keeps the token out of the command, and its headersHelper authenticates", async () => {
    const printed = printConfig("claude");
    expect(printed.code).toBe(0);
    expect(printed.stdout).not.toContain(token);
    expect(printed.stdout).toStartWith("claude mcp add-json --scope user recall '");
    expect(printed.stderr).toContain(
      `the bearer token stays in ${tokenFile} (0600); Claude Code runs the headersHelper`,
    );
    // Run the printed command as a shell would, with a stand-in `claude` that records its arguments.
    const bin = join(work, "bin");
    const argsFile = join(work, "claude-args");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "claude"), `#!/bin/sh\nprintf '%s\\0' "$@" > ${argsFile}\n`, { mode: 0o755 });
    const shell = Bun.spawnSync(["sh", "-c", printed.stdout], { env: { ...env, PATH: `${bin}:${env.PATH}` } });
    expect(shell.exitCode).toBe(0);
    const args = readFileSync(argsFile, "utf8").split("\0").slice(0, -1);
    expect(args.slice(0, 5)).toEqual(["mcp", "add-json", "--scope", "user", "recall"]);
    const entry = JSON.parse(args[5]!) as { type: string; url: string; headersHelper: string };
    expect(entry).toMatchObject({ type: "http", url: `http://127.0.0.1:${port}/mcp` });
    // Claude Code runs the helper in a shell at each connection and sends the JSON object it prints as headers.
    const helper = Bun.spawnSync(["sh", "-c", entry.headersHelper], { cwd: tmpdir() });
    const headers = JSON.parse(helper.stdout.toString()) as Record<string, string>;
    expect(headers).toEqual({ Authorization: `Bearer ${token}` });
    expect(await toolNamesWith(headers)).toContain("read_turns");
    expect(JSON.parse(printConfig("json").stdout).mcpServers.recall).toEqual(entry); // .mcp.json: the same entry
  });

  test("issue 26: --print-config opencode --http names the token file with {file:…}, which authenticates as OpenCode reads it", async () => {
    const printed = printConfig("opencode");
    expect(printed.stdout).not.toContain(token);
    expect(printed.stderr).toContain(
      `the bearer token stays in ${tokenFile} (0600); OpenCode reads it through {file:…}`,
    );
    const server = JSON.parse(printed.stdout).mcp.recall as {
      type: string;
      url: string;
      headers: Record<string, string>;
    };
    expect(server).toMatchObject({ type: "remote", url: `http://127.0.0.1:${port}/mcp` });
    expect(server.headers).toEqual({ Authorization: `Bearer {file:${tokenFile}}` });
    // OpenCode's config loader puts the file's trimmed text in place of {file:path}.
    const authorization = server.headers.Authorization!.replace(/\{file:([^}]+)\}/, (_, path: string) =>
      readFileSync(path, "utf8").trim(),
    );
    expect(await toolNamesWith({ Authorization: authorization })).toContain("search");
  });

  test("other methods and paths are refused once authorized", async () => {
    const authorization = `Bearer ${token}`;
    expect((await fetch(`http://127.0.0.1:${port}/mcp`, { headers: { authorization } })).status).toBe(405);
    expect(
      (
        await fetch(`http://127.0.0.1:${port}/other`, {
          method: "POST",
          headers: { ...mcpHeaders, authorization },
          body: initialize,
        })
      ).status,
    ).toBe(404);
  });

  test("nothing listens on the machine's other addresses", async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((info) => info && !info.internal && info.family === "IPv4")
      .map((info) => info!.address);
    for (const address of others) {
      const reached = await new Promise<boolean>((resolve) => {
        const socket = connect(port, address, () => {
          socket.destroy();
          resolve(true);
        });
        socket.on("error", () => resolve(false));
      });
      expect(`${address}:${reached}`).toBe(`${address}:false`);
    }
  });

  test("a token file other users can read is refused: the server does not start (exit 1)", () => {
    const otherHome = join(work, "open-token");
    mkdirSync(otherHome);
    writeFileSync(join(otherHome, "mcp-token"), `${"a".repeat(43)}\n`);
    chmodSync(join(otherHome, "mcp-token"), 0o644);
    const result = runCli(["mcp", "--http", "--port", "0", "--no-watch", ...exampleFlags], {
      ...env,
      RECALL_HOME: otherHome,
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      `cannot use the MCP token file ${join(otherHome, "mcp-token")}: other users can read it (mode 0644)`,
    );
  });
});
