/**
 * The recall MCP server's life (issue 10): build the McpServer with the six tools, start the watcher that
 * keeps the index fresh (unless `--no-watch`), serve over stdio (or loopback HTTP, http.ts), and on the way
 * out close everything it started — watcher (its folder watchers, timers and parse worker), model — so no
 * process or thread outlives it.
 * stdio: stdout carries protocol messages only; status lines and warnings go to stderr. The server stops when
 * stdin ends or closes (the client went away), on SIGINT/SIGTERM/SIGHUP, or when the transport closes.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { fstatSync } from "node:fs";
import packageJson from "../../package.json" with { type: "json" };
import { warn, type HistoryContext } from "../service/context.ts";
import { sharedModelOpener } from "../service/embedder.ts";
import { startWatcher, type WatchHooks } from "../index/index.ts";
import {
  hasIndexChanges,
  renderWatchEmbeddedText,
  renderWatchIndexedText,
  renderWatchSkippedText,
} from "../render/watch.ts";
import { createBackend, type Backend } from "../service/backend.ts";
import { deferWatcherStart } from "../service/deferred-watcher.ts";
import { listenHttp } from "./http.ts";
import { ensureToken } from "./token.ts";
import { serverInstructions } from "./schemas.ts";
import { registerTools } from "./tools.ts";

/**
 * Build one McpServer (name `recall`, the package version) with the six tools over `backend`; its initialize
 * result carries the instructions of schemas.ts (when to use recall, search → turns → read_turns, budget and paging).
 */
export function createRecallServer(backend: Backend): McpServer {
  const server = new McpServer(
    { name: "recall", version: packageJson.version },
    { capabilities: { tools: {} }, instructions: serverInstructions },
  );
  registerTools(server, backend);
  return server;
}

/** Options of {@link serveStdio} and {@link serveHttp}. */
export interface ServeOptions {
  context: HistoryContext;
  /** `--model`; undefined: RECALL_MODEL or the default preset, when present on disk (never downloaded here). */
  model: string | undefined;
  /** Run the watcher (default true; `--no-watch` turns it off). */
  watch: boolean;
  /** The folder the server was started in (its project is the default of `recent`). */
  cwd: string;
}

/** The backend and the watcher of one server process. */
interface Runtime {
  backend: Backend;
  close(): Promise<void>;
}

/** Status lines of the watcher on stderr (never stdout), worded as `recall watch` words them (render/watch.ts). */
function watcherHooks(): WatchHooks {
  let isLockNoted = false;
  return {
    onIndexed: (summary) => {
      isLockNoted = false;
      if (hasIndexChanges(summary)) warn(`recall: ${renderWatchIndexedText(summary)}`);
    },
    onEmbedded: (summary, elapsedMs) => warn(`recall: ${renderWatchEmbeddedText(summary, elapsedMs)}`),
    onSkipped: ({ message, retryInMs }) => {
      // Several servers on one index are normal (one per editor window): say it once, not every retry.
      if (!isLockNoted) warn(`recall: ${renderWatchSkippedText(message, retryInMs)}`);
      isLockNoted = true;
    },
    onWarning: (message) => warn(`recall: warning: ${message}`),
    onNotice: (message) => warn(`recall: ${message}`),
  };
}

function startRuntime(options: ServeOptions): Runtime {
  const model = sharedModelOpener(options.context.paths, options.model);
  // The context's cached scan is for one CLI run; a long-lived server must scan afresh at every staleness check.
  const context: HistoryContext = { ...options.context, scanned: {} };
  const backend = createBackend({ context, embedder: model, watching: options.watch, cwd: options.cwd });
  // The watcher starts once a tool call has been answered (service/deferred-watcher.ts): every call reads the index
  // through withIndex.
  let markAnswered!: () => void;
  const answered = new Promise<void>((resolve) => (markAnswered = resolve));
  const answering: Backend = {
    context: backend.context,
    cwd: backend.cwd,
    embedder: backend.embedder,
    withIndex: (fn) => backend.withIndex(fn).finally(markAnswered),
    vectorLeg: (db) => backend.vectorLeg(db),
    close: () => backend.close(),
  };
  const deferred = options.watch
    ? deferWatcherStart(
        answered,
        () =>
          startWatcher({
            recallHome: context.recallHome,
            roots: context.roots,
            openEmbedder: () => model.open(),
            releaseEmbedder: () => model.dispose(),
            hooks: watcherHooks(),
          }),
        (error) =>
          warn(
            `recall: warning: the watcher did not start (${(error as Error).message}); answers come from the index as it is`,
          ),
      )
    : undefined;
  return {
    backend: answering,
    async close() {
      deferred?.cancel();
      await (await deferred?.watcher)?.close();
      await backend.close();
    },
  };
}

/** Resolves on the first of: SIGINT, SIGTERM, SIGHUP, or `extra` resolving. */
function stopSignal(extra: Array<(stop: () => void) => void> = []): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => resolve(signal));
    for (const subscribe of extra) subscribe(() => resolve("closed"));
  });
}

/**
 * After a clean shutdown the event loop should be empty; if a handle still holds it (a native addon, a stuck
 * socket), leave anyway after this long (ms) rather than linger as an orphan (issue 10: no leaked processes).
 */
export const exitGraceMs = 3000;

function exitSoon(): void {
  setTimeout(() => process.exit(process.exitCode ?? 0), exitGraceMs).unref();
}

/** True when a person started the server in a terminal rather than a client through pipes. */
function isStdinTerminal(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return false;
  }
}

/** Serve MCP over stdio until the client goes away; resolves after everything started here is closed. */
export async function serveStdio(options: ServeOptions): Promise<void> {
  const runtime = startRuntime(options);
  const server = createRecallServer(runtime.backend);
  const transport = new StdioServerTransport();
  const stopped = stopSignal([
    (stop) => process.stdin.once("end", stop),
    (stop) => process.stdin.once("close", stop),
    (stop) => (server.server.onclose = stop),
  ]);
  await server.connect(transport);
  if (isStdinTerminal())
    warn(
      "recall: serving MCP on stdin/stdout, for an MCP client to start (see `recall mcp --print-config claude`); Ctrl-D stops",
    );
  await stopped;
  await server.close().catch(() => undefined);
  await runtime.close();
  exitSoon();
}

/** Serve MCP over HTTP on 127.0.0.1:`port` until a signal; the token file is made on first use. */
export async function serveHttp(options: ServeOptions & { port: number }): Promise<void> {
  const { token, path } = ensureToken(options.context.paths);
  const runtime = startRuntime(options);
  let http: ReturnType<typeof listenHttp>;
  try {
    http = listenHttp({ port: options.port, token, backend: runtime.backend, createServer: createRecallServer });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  warn(`recall: MCP over HTTP at http://127.0.0.1:${http.port}/mcp (loopback only); bearer token in ${path}`);
  await stopSignal();
  await http.stop(true);
  await runtime.close();
  exitSoon();
}
