/**
 * `recall mcp`: serve the Model Context Protocol over stdio (default) or loopback HTTP (`--http`), or print the
 * registration for a client (`--print-config claude|opencode|json`). Flags and help only; what the command does is
 * handler.ts, loaded when it runs (the MCP SDK itself only after the flags are checked).
 */
import { command, flag, number, option, optional, string } from "cmd-ts";
import { modelArg, type ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** Default `--port` of `--http` (mirrors src/mcp/http.ts `defaultHttpPort`, kept here so help needs no SDK). */
export const defaultPort = 7747;

/** The flags of `recall mcp`. */
const mcpArgs = {
  http: flag({
    long: "http",
    description: `Serve streamable HTTP on 127.0.0.1 only (never another interface), with a bearer token kept in <config>/mcp-token`,
  }),
  port: option({
    long: "port",
    type: optional(number),
    description: `Port for --http (default ${defaultPort}; 0 picks a free one)`,
  }),
  printConfig: option({
    long: "print-config",
    type: optional(string),
    description:
      "Print the registration for a client and exit: claude (the `claude mcp add` command), opencode (opencode.json) or json (mcpServers)",
  }),
  noWatch: flag({
    long: "no-watch",
    description: "Do not watch the sources; each call re-indexes what changed first, as `recall search` does",
  }),
  ...modelArg,
  ...sourceArgs,
};

/** `recall mcp`'s arguments as cmd-ts parsed them. */
export type McpArgs = ParsedArgs<typeof mcpArgs>;

/** The `mcp` subcommand. */
export const mcpCommand = command({
  name: "mcp",
  description:
    "Serve recall to AI agents over the Model Context Protocol (stdio; --http for loopback HTTP), re-indexing as sessions are written",
  args: mcpArgs,
  handler: async (args) => (await import("./handler.ts")).mcp(args),
});
