/**
 * The embedding helper's server side (issue 17): keeps one loaded model warm behind a Unix socket so repeated CLI and
 * skill searches skip the model load (measured for the shared GloVe model: a cold hybrid search 2.7 s, of which
 * ~2.3 s is runtime start, model load and first context; a query through a warm helper costs a few ms). It answers
 * the requests of protocol.ts one at a time per connection, and exits after `idleMs` without a request, removing
 * its socket. Model use is serialized: a query waits for at most one document being embedded by an index pass.
 */
import { chmodSync, statSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { Embedder, EmbedHooks } from "../types.ts";
import { connectEmbedHelper } from "./client.ts";
import {
  encodeVector,
  lineSplitter,
  type HelperModel,
  type HelperRequest,
  type HelperResponse,
  type HelperRoots,
} from "./protocol.ts";

/** Options of {@link serveEmbedHelper}. */
export interface EmbedHelperServerOptions {
  socketPath: string;
  /** the loaded model; the server disposes it when it exits */
  embedder: Embedder;
  /** exit after this long without a request, in ms */
  idleMs: number;
  /**
   * Embed what the index lacks, with `embedder` (an Embedder whose calls wait their turn behind queries); called after
   * an `index` request has been answered, never twice at once (a request during a pass runs once more after it).
   */
  onIndex?: (roots: HelperRoots, embedder: Embedder) => Promise<void>;
  /** one line of diagnostics (the helper's log file) */
  log?: (line: string) => void;
  /** called once listening, with a function that stops the server as a `stop` request does (signal handlers) */
  onReady?: (stop: () => void) => void;
}

/** Why the server stopped. */
export type HelperExit = "idle" | "stopped" | "already-running" | "address-in-use";

/** Runs `task` after every task queued before it (one model, one caller at a time). */
function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** `embedder` with every call queued, documents one at a time so a query never waits for a whole batch. */
function queuedEmbedder(embedder: Embedder, queue: ReturnType<typeof serialQueue>): Embedder {
  return {
    fingerprint: embedder.fingerprint,
    fingerprintKey: embedder.fingerprintKey,
    dims: embedder.dims,
    contextTokens: embedder.contextTokens,
    countTokens: (text) => embedder.countTokens(text),
    async embedDocuments(texts: string[], hooks: EmbedHooks = {}) {
      const vectors: (Float32Array | null)[] = [];
      for (let i = 0; i < texts.length; i++) {
        const [vector] = await queue(() =>
          embedder.embedDocuments([texts[i]!], {
            onTextFailed: (_, error) => hooks.onTextFailed?.(i, error),
            onWarning: hooks.onWarning,
          }),
        );
        vectors.push(vector ?? null);
        hooks.onProgress?.(i + 1, texts.length);
      }
      return vectors;
    },
    embedQuery: (text) => queue(() => embedder.embedQuery(text)),
    dispose: () => embedder.dispose(),
  };
}

const listen = (server: Server, path: string): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });

/**
 * Serve `embedder` on `socketPath` until idle, stopped, or another helper already serves that path.
 * A socket file nobody answers on (a helper that was killed) is replaced. Never throws for a bad request: it
 * answers `{"ok":false,"error":…}`.
 * @returns why it stopped; the embedder is disposed in every case
 * @throws Error from listen() other than EADDRINUSE (e.g. EACCES)
 */
export async function serveEmbedHelper(options: EmbedHelperServerOptions): Promise<HelperExit> {
  const { socketPath, idleMs, log = () => {} } = options;
  const queue = serialQueue();
  const embedder = queuedEmbedder(options.embedder, queue);
  try {
    const existing = await connectEmbedHelper(socketPath, 1000);
    if (existing) {
      existing.close();
      return "already-running";
    }
    unlinkSync(socketPath);
  } catch {
    // no socket file, or it could not be removed (listen reports that)
  }
  const model: HelperModel = {
    fingerprint: embedder.fingerprint,
    fingerprintKey: embedder.fingerprintKey,
    dims: embedder.dims,
    pid: process.pid,
  };
  let finish!: (reason: HelperExit) => void;
  const finished = new Promise<HelperExit>((resolve) => (finish = resolve));
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let indexing: Promise<void> | undefined;
  let indexAgain: HelperRoots | undefined;
  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => (indexing ? armIdle() : finish("idle")), idleMs);
  };
  const runIndex = (roots: HelperRoots) => {
    if (!options.onIndex) return;
    if (indexing) {
      indexAgain = roots;
      return;
    }
    indexing = options
      .onIndex(roots, embedder)
      .catch((error) => log(`index pass failed: ${(error as Error).message}`))
      .finally(() => {
        indexing = undefined;
        const again = indexAgain;
        indexAgain = undefined;
        if (again) runIndex(again);
        armIdle();
      });
  };
  const answer = async (request: HelperRequest): Promise<HelperResponse> => {
    switch (request.op) {
      case "hello":
        return { ok: true, model };
      case "query":
        if (typeof request.text !== "string") return { ok: false, error: "query needs a text" };
        return { ok: true, model, vector: encodeVector(await embedder.embedQuery(request.text)) };
      case "index":
        return { ok: true };
      case "stop":
        return { ok: true };
      default:
        return { ok: false, error: `unknown op ${JSON.stringify((request as { op?: unknown }).op)}` };
    }
  };
  const connections = new Set<Socket>();
  const serveConnection = (socket: Socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
    let chain = Promise.resolve();
    const feed = lineSplitter((line) => {
      chain = chain.then(async () => {
        armIdle();
        let request: HelperRequest;
        let response: HelperResponse;
        try {
          request = JSON.parse(line) as HelperRequest;
          response = await answer(request);
        } catch (error) {
          socket.write(`${JSON.stringify({ ok: false, error: (error as Error).message.split("\n")[0] })}\n`);
          return;
        }
        socket.write(`${JSON.stringify(response)}\n`);
        if (request.op === "index" && response.ok) runIndex(request.roots);
        if (request.op === "stop") finish("stopped");
        armIdle();
      });
    });
    socket.on("data", (chunk) => {
      try {
        feed(chunk);
      } catch (error) {
        log(`dropped a connection: ${(error as Error).message}`);
        socket.destroy();
      }
    });
    socket.on("error", () => socket.destroy());
  };
  const server = createServer(serveConnection);
  try {
    await listen(server, socketPath);
  } catch (error) {
    await options.embedder.dispose();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") return "address-in-use";
    throw error;
  }
  chmodSync(socketPath, 0o600);
  const inode = statSync(socketPath).ino;
  log(`serving ${embedder.fingerprint.name} on ${socketPath} (pid ${process.pid}, idle exit after ${idleMs} ms)`);
  armIdle();
  options.onReady?.(() => finish("stopped"));
  const reason = await finished;
  clearTimeout(idleTimer);
  server.close();
  for (const socket of connections) socket.end(); // answers already written are flushed first
  // Remove the socket only if it is still ours (a helper started after a stale-socket race may own the path now).
  if (statSync(socketPath, { throwIfNoEntry: false })?.ino === inode) unlinkSync(socketPath);
  await indexing;
  await options.embedder.dispose();
  log(`exit: ${reason}`);
  return reason;
}
