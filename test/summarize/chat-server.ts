/**
 * A real chat server on 127.0.0.1 for the remote summary backends' tests: it speaks OpenAI's
 * `/v1/chat/completions` and Anthropic's `/v1/messages`, records every request, and a per-test `plan` decides,
 * request by request, whether to answer (with a finish/stop reason), fail with a status (and Retry-After), hang, or
 * send a raw body.
 */
import type { Server } from "bun";

/** What the server does with one request. */
export type ChatStep =
  | { answer: string; stop?: string; refusal?: string }
  | { status: number; retryAfter?: string; body?: unknown }
  | { hangMs: number }
  | { raw: string };

/** One received request. */
export interface ReceivedChat {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  atMs: number;
}

/** A running server; `close()` stops it. */
export interface ChatServer {
  /** base URL, e.g. http://127.0.0.1:41234 */
  base: string;
  requests: ReceivedChat[];
  setPlan(plan: (request: ReceivedChat, index: number) => ChatStep): void;
  close(): void;
}

function answerBody(path: string, step: { answer: string; stop?: string; refusal?: string }): unknown {
  if (path === "/v1/messages")
    return {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [
        { type: "thinking", thinking: "what to say", signature: "x" },
        { type: "text", text: step.answer },
      ],
      stop_reason: step.stop ?? "end_turn",
      usage: { input_tokens: 10, output_tokens: 5 },
    };
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: step.answer, refusal: step.refusal ?? null },
        finish_reason: step.stop ?? "stop",
      },
    ],
  };
}

/** Starts the server on a free port. */
export function startChatServer(): ChatServer {
  const requests: ReceivedChat[] = [];
  let plan: (request: ReceivedChat, index: number) => ChatStep = () => ({ answer: "Done." });
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/v1/messages"))
        return new Response("not found", { status: 404 });
      const received: ReceivedChat = {
        path,
        headers: Object.fromEntries(request.headers.entries()),
        body: (await request.json()) as Record<string, unknown>,
        atMs: performance.now(),
      };
      requests.push(received);
      const step = plan(received, requests.length - 1);
      if ("hangMs" in step) {
        await Bun.sleep(step.hangMs);
        return Response.json(answerBody(path, { answer: "too late." }));
      }
      if ("raw" in step) return new Response(step.raw, { headers: { "content-type": "application/json" } });
      if ("status" in step) {
        const headers: Record<string, string> = step.retryAfter ? { "retry-after": step.retryAfter } : {};
        return Response.json(step.body ?? { error: { message: "planned failure" } }, { status: step.status, headers });
      }
      return Response.json(answerBody(path, step));
    },
  });
  return {
    base: `http://127.0.0.1:${server.port}`,
    requests,
    setPlan(next) {
      plan = next;
    },
    close() {
      server.stop(true);
    },
  };
}

/** Anthropic's error body: `{"type":"error","error":{"type":…,"message":…}}`. */
export function anthropicError(type: string, message: string): unknown {
  return { type: "error", error: { type, message }, request_id: "req_test" };
}
