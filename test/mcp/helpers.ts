/**
 * Driving the real `recall mcp` server through the SDK's own client (issue 10): spawn it over stdio from source
 * (the harness's `bun src/cli.ts`, test/helpers/cli.ts) or from the compiled binary, with RECALL_HOME and HOME in temp folders and only the
 * given history, and read tool results as text and structured content.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestSession, writeClaudeSession } from "../helpers/claude-writer.ts";
import { cliCommand, repo } from "../helpers/cli.ts";

export { repo };

/** The shipped example history as source flags. */
export const exampleFlags = [
  "--claude-dir",
  join(repo, "examples/claude-code"),
  "--opencode-dir",
  join(repo, "examples/opencode"),
];

/**
 * `bun src/cli.ts` by absolute paths (works from any working folder): the harness's command words, for the SDK's
 * stdio client, which starts the server itself.
 */
export const fromSource = [...cliCommand];

/**
 * An environment with nothing that points at real history or another index: HOME and RECALL_HOME as given,
 * offline, no colors (unset XDG/CLAUDE variables rather than empty: Bun reads an empty XDG_CACHE_HOME as the cwd).
 */
export function isolatedEnv(
  home: string,
  recallHome: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  for (const key of [
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_PROJECT_DIR",
    "RECALL_CLAUDE_DIRS",
    "RECALL_OPENCODE_DIRS",
    "RECALL_MODEL",
  ])
    delete env[key];
  return { ...env, HOME: home, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1", ...extra };
}

/** A connected client and what its server wrote on stderr so far. */
export interface Connection {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
  close(): Promise<void>;
}

/** Start `command` (e.g. `[...fromSource, "mcp", ...exampleFlags]`) and connect the SDK client to it. */
export async function connectStdio(command: string[], env: Record<string, string>, cwd?: string): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: command[0]!,
    args: command.slice(1),
    env,
    cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "recall-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, close: () => client.close() };
}

/**
 * Start `recall mcp --no-watch` over a history of one Claude Code session (written under a new temp folder named
 * `prefix…`, in the project folder Claude Code would name after `session.cwd`), with an isolated HOME and RECALL_HOME.
 * Closing the connection also removes the temp folder.
 */
export async function serveOneSession(prefix: string, session: TestSession): Promise<Connection> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const home = join(work, "home");
  const claudeDir = join(work, "claude");
  mkdirSync(home);
  writeClaudeSession(
    join(claudeDir, "projects", session.cwd.replaceAll("/", "-"), `${session.sessionId}.jsonl`),
    session,
  );
  const connection = await connectStdio(
    [...fromSource, "mcp", "--no-watch", "--claude-dir", claudeDir],
    isolatedEnv(home, join(work, "recall-home")),
    home,
  );
  return {
    ...connection,
    close: async () => {
      await connection.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** Call a tool; the SDK client checks `structuredContent` against the tool's output schema on the way. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a tool result. */
export function textOf(result: CallToolResult): string {
  return result.content.map((item) => (item.type === "text" ? item.text : "")).join("\n");
}

/** Pids of the direct children of `pid` (Linux /proc), e.g. to prove a server leaves no process behind. */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === pid) children.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

/** Threads of `pid` (Linux /proc/<pid>/task), to see a worker thread come and go. */
export function threadCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
}
