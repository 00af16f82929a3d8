/**
 * `recall mcp --print-config claude|opencode|json`: the exact registration of this recall as an MCP server —
 * the `claude mcp add` command, an opencode.json block, or the `mcpServers` JSON most clients read (Claude
 * Desktop, .mcp.json, Cursor). The command is this recall's absolute path (the compiled binary's own path, or
 * `<bun> <repo>/src/cli.ts` from a checkout), with the source flags it was given and the RECALL_* variables
 * set now, so the registered server reads the same history into the same index.
 * With `--http` no registration holds the bearer token itself (issue 26: it was in a shell command, so in the
 * shell's history, and in the client's config): the client reads it from the 0600 token file when it connects.
 */
import { join } from "node:path";
import { isCompiledBinary } from "../binary/embedded-files.ts";
import { UsageError } from "../errors.ts";
import type { RecallPaths } from "../index/index.ts";
import { sources } from "../parsers/sources.ts";
import { shellQuote } from "../search/index.ts";
import { ensureToken } from "./token.ts";

/** Clients `--print-config` knows. */
export const configTargets = ["claude", "opencode", "json"] as const;

/** One of {@link configTargets}. */
export type ConfigTarget = (typeof configTargets)[number];

/** Parse a `--print-config` value. @throws UsageError for anything else */
export function parseConfigTarget(value: string): ConfigTarget {
  if ((configTargets as readonly string[]).includes(value)) return value as ConfigTarget;
  throw new UsageError(`unknown --print-config target "${value}"`, `use one of: ${configTargets.join(", ")}`);
}

/**
 * Variables passed on to the registered server when set (where the index and history are, which model): every
 * source's `RECALL_<AGENT>_DIRS` (parsers/sources.ts), so an agent added to the registry is forwarded too.
 */
export const forwardedVariables: readonly string[] = [
  "RECALL_HOME",
  ...sources.map((source) => source.variable),
  "RECALL_MODEL",
];

/** How a client starts the stdio server, or reaches the HTTP one (the bearer token is in the file `tokenPath`). */
export type Registration =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { kind: "http"; url: string; tokenPath: string };

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

/**
 * The registration of `recall mcp --http` on 127.0.0.1:`port`. The token file is made now when missing (token.ts),
 * so the client finds it on its first connection.
 * @throws IndexError HOME_UNUSABLE when the token file cannot be made or is unsafe (token.ts)
 */
export function httpRegistration(port: number, paths: RecallPaths): Registration {
  // Not http.ts's constants: importing http.ts loads the MCP SDK, which printing a registration does without.
  return { kind: "http", url: `http://127.0.0.1:${port}/mcp`, tokenPath: ensureToken(paths).path };
}

/**
 * Claude Code's `headersHelper` for the token in `tokenPath`: a command its shell runs at each connection, whose
 * stdout is a JSON object of headers (Claude Code MCP docs, "Use dynamic headers for custom authentication").
 * Example: `/home/u/.config/recall/mcp-token` →
 *   `printf '{"Authorization":"Bearer %s"}' "$(cat /home/u/.config/recall/mcp-token)"`.
 */
export function headersHelperOf(tokenPath: string): string {
  return `printf '{"Authorization":"Bearer %s"}' "$(cat ${shellQuote(tokenPath)})"`;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The server entry of Claude Code's config (.mcp.json, ~/.claude.json) for the HTTP server. */
const claudeHttpServer = (registration: { url: string; tokenPath: string }) => ({
  type: "http",
  url: registration.url,
  headersHelper: headersHelperOf(registration.tokenPath),
});

function claudeCommand(registration: Registration): string {
  if (registration.kind === "http") {
    // `claude mcp add --header` would put the token on the command line; add-json takes headersHelper instead.
    return `claude mcp add-json --scope user recall ${shellQuote(JSON.stringify(claudeHttpServer(registration)))}\n`;
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
          // OpenCode puts the trimmed file in place of {file:…} when it loads its config (its config docs, "Variables").
          headers: { Authorization: `Bearer {file:${registration.tokenPath}}` },
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
      ? claudeHttpServer(registration)
      : {
          command: registration.command,
          args: registration.args,
          ...(Object.keys(registration.env).length > 0 ? { env: registration.env } : {}),
        };
  return json({ mcpServers: { recall: server } });
}

/**
 * The registration text for a client (stdout of `--print-config`).
 * Examples: claude → `claude mcp add recall --scope user --transport stdio -- /usr/local/bin/recall mcp`;
 *   opencode → `{"$schema": …, "mcp": {"recall": {"type": "local", "command": ["/usr/local/bin/recall", "mcp"], …}}}`;
 *   json → `{"mcpServers": {"recall": {"command": "/usr/local/bin/recall", "args": ["mcp"]}}}`;
 *   with --http: claude → `claude mcp add-json --scope user recall '{"type":"http","url":…,"headersHelper":…}'`;
 *   opencode → `"headers": {"Authorization": "Bearer {file:<token file>}"}`; json → the same entry as claude's.
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

/**
 * For an HTTP registration, the stderr line that says where the token lives and how `target` reads it; undefined
 * for stdio (no token). Example: `recall: the bearer token stays in /home/u/.config/recall/mcp-token (0600); …`.
 */
export function registrationNote(target: ConfigTarget, registration: Registration): string | undefined {
  if (registration.kind === "stdio") return undefined;
  const how = {
    claude:
      "Claude Code runs the headersHelper to read it at each connection, so it is in neither the command, your shell history nor ~/.claude.json",
    opencode: "OpenCode reads it through {file:…} when it loads its config, so it is not in opencode.json",
    json: "Claude Code (.mcp.json) runs the headersHelper to read it at each connection; for a client without headersHelper, register the stdio server instead (`recall mcp --print-config json`)",
  }[target];
  return `recall: the bearer token stays in ${registration.tokenPath} (0600); ${how}\n`;
}
