/**
 * What `recall ui` does (its flags and help: ui.ts): starts the web view's server on 127.0.0.1 (src/ui/server.ts)
 * with a new secret token, keeps the index fresh with the watcher `recall watch` uses (the pages hear about each
 * update through /events), prints the URL that logs a browser in (stdout) and, unless `--no-open`, opens a file that
 * redirects to it (src/ui/login-file.ts: the token never appears in a command line), and runs until SIGINT, SIGTERM or
 * SIGHUP, then stops the watcher (after its current batch) and the server and removes that file, exit 0.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { RecallError, UsageError } from "../errors.ts";
import { startWatcher } from "../index/index.ts";
import { hasIndexChanges } from "../render/watch.ts";
import { writeOut } from "../render/terminal.ts";
import { writeLoginFile } from "./login-file.ts";
import { startUiServer, UiEvents } from "./server.ts";
import { resolveHistory, warn } from "../service/context.ts";
import { sharedModelOpener } from "../service/embedder.ts";
import { deferWatcherStart } from "../service/deferred-watcher.ts";
import { untilSignal } from "../service/signals.ts";
import type { UiArgs } from "./command.ts";

/** Runs `recall ui` until a signal; resolves to the exit code. */
export async function ui(args: UiArgs): Promise<number> {
  if (args.port !== undefined && !(Number.isInteger(args.port) && args.port >= 0 && args.port <= 65535))
    throw new UsageError(
      `--port must be a whole number from 0 to 65535, got ${args.port}`,
      "leave it out for a free port",
    );
  const base = resolveHistory(args);
  // A long-lived server scans afresh at every staleness check (the context's cached scan is for one CLI run).
  const context = { ...base, scanned: {} };
  const model = sharedModelOpener(context.paths, args.model);
  const events = new UiEvents();
  // src/mcp is reached lazily (its SDK must not load with the other commands); the backend needs no SDK.
  const { createBackend } = await import("../service/backend.ts");
  const backend = createBackend({
    context,
    embedder: args.keywordOnly ? undefined : model,
    watching: !args.noWatch,
    cwd: process.cwd(),
  });
  let server: ReturnType<typeof startUiServer>;
  try {
    server = startUiServer({ port: args.port ?? 0, token: randomBytes(24).toString("hex"), backend, events });
  } catch (error) {
    await backend.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new RecallError(
      "INTERNAL",
      `cannot listen on 127.0.0.1:${args.port ?? 0}: ${code ?? (error as Error).message}`,
      {
        hint:
          code === "EADDRINUSE"
            ? "another program uses that port: pick another with --port, or leave it out"
            : undefined,
      },
    );
  }
  // The watcher starts once the server has answered its first page (service/deferred-watcher.ts).
  const deferred = args.noWatch
    ? undefined
    : deferWatcherStart(
        server.answered,
        () =>
          startWatcher({
            recallHome: context.recallHome,
            roots: context.roots,
            openEmbedder: args.keywordOnly ? undefined : () => model.open(),
            releaseEmbedder: () => model.dispose(),
            hooks: {
              onIndexed: (summary) => {
                if (hasIndexChanges(summary))
                  events.publish("indexed", { at: Date.now(), added: summary.added, updated: summary.updated });
              },
              onWarning: (message) => warn(`recall: warning: ${message}`),
            },
          }),
        (error) =>
          warn(
            `recall: warning: the watcher did not start (${(error as Error).message}); pages show the index as it is`,
          ),
      );
  writeOut(`${server.loginUrl}\n`);
  warn(`recall: web view on ${server.loginUrl} (127.0.0.1 only; Ctrl-C stops)`);
  const loginFile = args.noOpen ? undefined : openBrowser(server.loginUrl, context.paths.data);
  const signal = await untilSignal(["SIGINT", "SIGTERM", "SIGHUP"]);
  warn(`recall: stopping (${signal})`);
  deferred?.cancel();
  if (loginFile) rmSync(loginFile, { force: true });
  await server.stop();
  await (await deferred?.watcher)?.close();
  await backend.close();
  await model.dispose();
  return 0;
}

/**
 * Open `loginUrl` in the default browser (`open` on macOS, `xdg-open` elsewhere), detached, through a redirect file
 * written in `folder` (its path is all the opener's command line shows); a failure only says so.
 * @returns the redirect file's path (removed by the caller when the server stops), or undefined when none was written
 */
function openBrowser(loginUrl: string, folder: string): string | undefined {
  const command = process.platform === "darwin" ? "open" : "xdg-open";
  if (!Bun.which(command)) {
    warn(`recall: open the URL above in your browser (${command} is not available)`);
    return undefined;
  }
  let file: string;
  try {
    file = writeLoginFile(folder, loginUrl);
  } catch (error) {
    warn(`recall: open the URL above in your browser (cannot write ${folder}: ${(error as Error).message})`);
    return undefined;
  }
  const child = spawn(command, [pathToFileURL(file).href], { detached: true, stdio: "ignore" });
  child.on("error", () => warn("recall: open the URL above in your browser"));
  child.unref();
  return file;
}
