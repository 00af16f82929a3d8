/**
 * `recall mcp --print-config claude|opencode|json`: the exact registration of this recall as an MCP server —
 * the `claude mcp add` command, an opencode.json block, or the `mcpServers` JSON most clients read (Claude
 * Desktop, .mcp.json, Cursor). The command is this recall's absolute path (the compiled binary's own path, or
 * `<bun> <repo>/src/cli.ts` from a checkout), with the source flags it was given and the RECALL_* variables
 * set now, so the registered server reads the same history into the same index.
 */
import { join } from "node:path";
import { isCompiledBinary } from "../binary/embedded-files.ts";
import { UsageError } from "../errors.ts";
import { shellQuote } from "../search/index.ts";

/** Clients `--print-config` knows. */
export const configTargets = ["claude", "opencode", "json"] as const;

/** One of {@link configTargets}. */
export type ConfigTarget = (typeof configTargets)[number];

/** Parse a `--print-config` value. @throws UsageError for anything else */
export function parseConfigTarget(value: string): ConfigTarget {
  if ((configTargets as readonly string[]).includes(value)) return value as ConfigTarget;
  throw new UsageError(`unknown --print-config target "${value}"`, `use one of: ${configTargets.join(", ")}`);
}

/** Variables passed on to the registered server when set (where the index and history are, which model). */
export const forwardedVariables = [
  "RECALL_HOME",
  "RECALL_CLAUDE_DIRS",
  "RECALL_OPENCODE_DIRS",
  "RECALL_CODEX_DIRS",
  "RECALL_GEMINI_DIRS",
  "RECALL_CURSOR_DIRS",
  "RECALL_AIDER_DIRS",
  "RECALL_MODEL",
] as const;

/** How a client starts the stdio server, or reaches the HTTP one. */
export type Registration =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { kind: "http"; url: string; token: string };

/**
 * The stdio registration of this recall: `[<binary>, "mcp", ...serverArgs]`, or `[<bun>, <repo>/src/cli.ts,
 * "mcp", ...serverArgs]` from source; `env` holds the forwarded variables that are set.
 */
export function stdioRegistration(
  serverArgs: string[],
  env: Record<string, string | undefined> = process.env,
): Registration {
  const prefix = isCompiledBinary() ? [] : [join(import.meta.dir, "..", "cli.ts")];
  const vars = Object.fromEntries(forwardedVariables.flatMap((name) => (env[name] ? [[name, env[name]!]] : [])));
  return { kind: "stdio", command: process.execPath, args: [...prefix, "mcp", ...serverArgs], env: vars };
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function claudeCommand(registration: Registration): string {
  if (registration.kind === "http") {
    return `claude mcp add recall --scope user --transport http ${registration.url} --header ${shellQuote(`Authorization: Bearer ${registration.token}`)}\n`;
  }
  const env = Object.entries(registration.env)
    .map(([name, value]) => `--env ${shellQuote(`${name}=${value}`)} `)
    .join("");
  // The name goes before --env: `-e/--env` is variadic and would take the name as one more variable
  // (anthropics/claude-code#62332, still open in 2.1.150).
  return `claude mcp add recall --scope user --transport stdio ${env}-- ${[registration.command, ...registration.args].map(shellQuote).join(" ")}\n`;
}

function opencodeConfig(registration: Registration): string {
  const server =
    registration.kind === "http"
      ? {
          type: "remote",
          url: registration.url,
          enabled: true,
          headers: { Authorization: `Bearer ${registration.token}` },
        }
      : {
          type: "local",
          command: [registration.command, ...registration.args],
          enabled: true,
          ...(Object.keys(registration.env).length > 0 ? { environment: registration.env } : {}),
        };
  return json({ $schema: "https://opencode.ai/config.json", mcp: { recall: server } });
}

function mcpServersConfig(registration: Registration): string {
  const server =
    registration.kind === "http"
      ? { type: "http", url: registration.url, headers: { Authorization: `Bearer ${registration.token}` } }
      : {
          command: registration.command,
          args: registration.args,
          ...(Object.keys(registration.env).length > 0 ? { env: registration.env } : {}),
        };
  return json({ mcpServers: { recall: server } });
}

/**
 * The registration text for a client.
 * Examples: claude → `claude mcp add recall --scope user --transport stdio -- /usr/local/bin/recall mcp`;
 *   opencode → `{"$schema": …, "mcp": {"recall": {"type": "local", "command": ["/usr/local/bin/recall", "mcp"], …}}}`;
 *   json → `{"mcpServers": {"recall": {"command": "/usr/local/bin/recall", "args": ["mcp"]}}}`.
 */
export function renderRegistration(target: ConfigTarget, registration: Registration): string {
  switch (target) {
    case "claude":
      return claudeCommand(registration);
    case "opencode":
      return opencodeConfig(registration);
    case "json":
      return mcpServersConfig(registration);
    default:
      return target satisfies never;
  }
}
