/**
 * What `recall mcp` does (its flags and help: mcp.ts). Flags are checked before anything loads; the MCP SDK is
 * imported only here, on use, so other commands never pay for it (src/mcp/index.ts).
 */
import { resolve } from "node:path";
import { UsageError } from "../errors.ts";
import { resolveRecallPaths } from "../index/index.ts";
import { writeErr, writeOut } from "../render/terminal.ts";
import { resolveHistory } from "../service/context.ts";
import { sources } from "../parsers/sources.ts";
import type { SourceArgs } from "../service/source-args.ts";
import { defaultPort, type McpArgs } from "./command.ts";

/** `--port`: a whole number 0–65535 (0: any free port), only with `--http`. */
function checkPort(port: number | undefined, http: boolean): number {
  if (port === undefined) return defaultPort;
  if (!http) throw new UsageError("--port needs --http");
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a whole number from 0 to 65535, got ${port}`);
  return port;
}

/** The flags a registered stdio server should start with: the history and model this one was given. */
function serverArgs(args: SourceArgs & { model: string | undefined; noWatch: boolean }): string[] {
  return [
    ...sources.flatMap((source) => args[source.argName].flatMap((dir) => [`--${source.flag}`, resolve(dir)])),
    ...(args.model ? ["--model", args.model.includes("/") ? resolve(args.model) : args.model] : []),
    ...(args.noWatch ? ["--no-watch"] : []),
  ];
}

/** Runs `recall mcp` with its parsed arguments; resolves to the exit code when the server stops (or after printing a registration). */
export async function mcp(args: McpArgs): Promise<number> {
  const port = checkPort(args.port, args.http);
  if (args.printConfig !== undefined) {
    const snippets = await import("./config-snippet.ts");
    const target = snippets.parseConfigTarget(args.printConfig);
    if (args.http && port === 0)
      throw new UsageError(
        "--print-config with --http needs a fixed --port",
        `use --port ${defaultPort} or another port`,
      );
    const registration = args.http
      ? snippets.httpRegistration(port, resolveRecallPaths())
      : snippets.stdioRegistration(serverArgs(args));
    writeOut(snippets.renderRegistration(target, registration));
    const note = snippets.registrationNote(target, registration);
    if (note) writeErr(note);
    return 0;
  }
  const [mcp, { loadDateWords }] = await Promise.all([import("./index.ts"), import("../search/listing/arguments.ts")]);
  // The tools read since/until synchronously (search/listing/arguments.ts): date words need the date reader loaded first.
  await loadDateWords();
  // Claude Code tells a stdio server its project in CLAUDE_PROJECT_DIR; otherwise the working folder is the project.
  const cwd = process.env.CLAUDE_PROJECT_DIR || process.cwd();
  const options = { context: resolveHistory(args), model: args.model, watch: !args.noWatch, cwd };
  if (args.http) await mcp.serveHttp({ ...options, port });
  else await mcp.serveStdio(options);
  return 0;
}
