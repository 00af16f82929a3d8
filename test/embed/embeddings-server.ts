/**
 * A real OpenAI-compatible `/v1/embeddings` server on 127.0.0.1 for remote-embedder tests. It embeds with
 * node-llama-cpp (through the local embedder) and the same generated model, and a per-test `plan` decides,
 * request by request, whether to answer, fail with a status (optionally with Retry-After) or stall.
 */
import type { Server } from "bun";
import type { Embedder } from "../../src/embed/index.ts";

/** What the server does with one request: embed, fail with a status (and a JSON body), or sleep first. */
export type PlanStep = "ok" | { status: number; retryAfter?: string; body?: unknown } | { sleepMs: number };

/**
 * llama-server's answer to an input longer than its physical batch (tools/server/server.cpp, `send_error(...,
 * ERROR_TYPE_SERVER)` → HTTP 500 with an OpenAI-style error object).
 */
export function llamaServerTooLarge(inputTokens: number, batchTokens = 512): PlanStep {
  const message = `input (${inputTokens} tokens) is too large to process. increase the physical batch size (current batch size: ${batchTokens})`;
  return { status: 500, body: { error: { code: 500, message, type: "server_error" } } };
}

/** One received request. */
export interface ReceivedRequest {
  inputs: string[];
  authorization: string | null;
  model: string | undefined;
}

/** A running server; `close()` stops it. */
export interface EmbeddingsServer {
  url: string;
  requests: ReceivedRequest[];
  /** the most requests the server was answering at the same time */
  readonly maxInFlight: number;
  setPlan(plan: (request: ReceivedRequest, index: number) => PlanStep): void;
  close(): void;
}

/** Starts the server on a free port, embedding with `embedder` (its document prefix should be empty). */
export function startEmbeddingsServer(embedder: Embedder): EmbeddingsServer {
  const requests: ReceivedRequest[] = [];
  let plan: (request: ReceivedRequest, index: number) => PlanStep = () => "ok";
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (new URL(request.url).pathname !== "/v1/embeddings" || request.method !== "POST")
        return new Response("not found", { status: 404 });
      const body = (await request.json()) as { input: string | string[]; model?: string };
      const received: ReceivedRequest = {
        inputs: Array.isArray(body.input) ? body.input : [body.input],
        authorization: request.headers.get("authorization"),
        model: body.model,
      };
      requests.push(received);
      const step = plan(received, requests.length - 1);
      if (typeof step === "object" && "status" in step) {
        const headers: Record<string, string> = step.retryAfter ? { "retry-after": step.retryAfter } : {};
        return new Response(JSON.stringify(step.body ?? { error: { message: "planned failure" } }), {
          status: step.status,
          headers,
        });
      }
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (typeof step === "object") await Bun.sleep(step.sleepMs);
      } finally {
        inFlight--;
      }
      const vectors = await embedder.embedDocuments(received.inputs);
      const data = vectors.map((vector, index) => ({ object: "embedding", index, embedding: Array.from(vector!) }));
      return Response.json({ object: "list", data: data.reverse(), model: body.model ?? "tiny" });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    setPlan(next) {
      plan = next;
      maxInFlight = 0;
    },
    close() {
      server.stop(true);
    },
  };
}
