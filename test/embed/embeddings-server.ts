/**
 * A real OpenAI-compatible `/v1/embeddings` server on 127.0.0.1 for remote-embedder tests. It embeds with
 * node-llama-cpp (through the local embedder) and the same generated model, and a per-test `plan` decides,
 * request by request, whether to answer, fail with a status (optionally with Retry-After) or stall.
 */
import type { Server } from "bun";
import type { Embedder } from "../../src/embed/index.ts";

/** What the server does with one request: embed, fail with a status, or sleep first. */
export type PlanStep = "ok" | { status: number; retryAfter?: string } | { sleepMs: number };

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
  setPlan(plan: (request: ReceivedRequest, index: number) => PlanStep): void;
  close(): void;
}

/** Starts the server on a free port, embedding with `embedder` (its document prefix should be empty). */
export function startEmbeddingsServer(embedder: Embedder): EmbeddingsServer {
  const requests: ReceivedRequest[] = [];
  let plan: (request: ReceivedRequest, index: number) => PlanStep = () => "ok";
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (new URL(request.url).pathname !== "/v1/embeddings" || request.method !== "POST") return new Response("not found", { status: 404 });
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
        return new Response(JSON.stringify({ error: { message: "planned failure" } }), { status: step.status, headers });
      }
      if (typeof step === "object") await Bun.sleep(step.sleepMs);
      const vectors = await embedder.embedDocuments(received.inputs);
      const data = vectors.map((vector, index) => ({ object: "embedding", index, embedding: Array.from(vector!) }));
      return Response.json({ object: "list", data: data.reverse(), model: body.model ?? "tiny" });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    setPlan(next) { plan = next; },
    close() { server.stop(true); },
  };
}
