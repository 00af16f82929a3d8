/**
 * The embedding helper's client side: one connection to a running helper (protocol.ts), used by `recall search` to
 * embed its query without loading the model. Every failure (no socket, nobody listening, a helper that hangs or
 * answers nonsense) reads as "no helper", so the search falls back to loading the model itself.
 */
import { existsSync, readdirSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { EmbedError } from "../../errors.ts";
import {
  decodeVector,
  lineSplitter,
  type HelperModel,
  type HelperRequest,
  type HelperResponse,
  type HelperRoots,
} from "./protocol.ts";

/** An open connection to a helper. */
export interface HelperConnection {
  /** the model the helper has loaded */
  readonly model: HelperModel;
  /**
   * Embeds one query with the model's query prefix (the helper adds it), as `Embedder.embedQuery`.
   * @throws EmbedError(EMBED_FAILED) when the helper fails, hangs past the timeout or goes away
   */
  embedQuery(text: string): Promise<Float32Array>;
  /** Asks the helper to embed, in the background, what the index of these roots lacks; resolves when it agreed. */
  requestIndex(roots: HelperRoots): Promise<void>;
  /** Asks the helper to exit (it answers first). */
  stop(): Promise<void>;
  /** Closes this connection (the helper keeps running). */
  close(): void;
}

/**
 * Connect to the helper at `socketPath` and greet it.
 * @param timeoutMs for the connection and the greeting, and for each later answer (a query: the same bound)
 * @returns undefined when nothing answers a greeting there within `timeoutMs`
 */
export async function connectEmbedHelper(socketPath: string, timeoutMs: number): Promise<HelperConnection | undefined> {
  let socket: Socket;
  try {
    socket = await new Promise<Socket>((resolve, reject) => {
      const attempt = connect(socketPath);
      const timer = setTimeout(() => {
        attempt.destroy();
        reject(new Error("timeout"));
      }, timeoutMs);
      attempt.once("connect", () => {
        clearTimeout(timer);
        resolve(attempt);
      });
      attempt.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } catch {
    return undefined;
  }
  const waiting: Array<(response: HelperResponse | Error) => void> = [];
  const failAll = (error: Error) => {
    for (const settle of waiting.splice(0)) settle(error);
  };
  const feed = lineSplitter((line) => {
    let response: HelperResponse | Error;
    try {
      response = JSON.parse(line) as HelperResponse;
    } catch {
      response = new Error("the helper sent a line that is not JSON");
    }
    waiting.shift()?.(response);
  });
  socket.on("data", (chunk) => {
    try {
      feed(chunk);
    } catch (error) {
      failAll(error as Error);
      socket.destroy();
    }
  });
  socket.on("error", (error) => failAll(error));
  socket.on("close", () => failAll(new Error("the helper closed the connection")));
  socket.unref(); // an open connection never keeps a finished search alive
  const send = (request: HelperRequest): Promise<Extract<HelperResponse, { ok: true }>> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer from the embedding helper within ${timeoutMs} ms`));
      }, timeoutMs);
      waiting.push((response) => {
        clearTimeout(timer);
        if (response instanceof Error) reject(response);
        else if (!response.ok) reject(new Error(response.error));
        else resolve(response);
      });
      socket.write(`${JSON.stringify(request)}\n`);
    });
  let model: HelperModel | undefined;
  try {
    model = (await send({ op: "hello" })).model;
  } catch {
    // answered nonsense or not at all
  }
  if (!model || typeof model.dims !== "number" || typeof model.fingerprintKey !== "string") {
    socket.destroy();
    return undefined;
  }
  const helperModel = model;
  return {
    model: helperModel,
    async embedQuery(text) {
      try {
        const response = await send({ op: "query", text });
        if (response.model?.fingerprintKey !== helperModel.fingerprintKey || typeof response.vector !== "string")
          throw new Error("the helper changed its model");
        return decodeVector(response.vector, helperModel.dims);
      } catch (cause) {
        throw new EmbedError(
          "EMBED_FAILED",
          `query embedding by the embedding helper failed: ${(cause as Error).message}`,
          { cause },
        );
      }
    },
    async requestIndex(roots) {
      await send({ op: "index", roots });
    },
    async stop() {
      await send({ op: "stop" });
    },
    close() {
      socket.destroy();
    },
  };
}

/**
 * Ask every helper with a socket in `dir` (`<cache>/helpers`) to exit; sockets nobody answers on are left alone.
 * @returns how many helpers answered and were asked to stop (0 when `dir` does not exist)
 */
export async function stopEmbedHelpers(dir: string): Promise<number> {
  let stopped = 0;
  for (const name of existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith(".sock")) : []) {
    const helper = await connectEmbedHelper(join(dir, name), 2000);
    if (!helper) continue;
    try {
      await helper.stop();
      stopped++;
    } catch {
      // it exited meanwhile
    } finally {
      helper.close();
    }
  }
  return stopped;
}
