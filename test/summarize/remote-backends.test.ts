import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { anthropicVersion, openAnthropic } from "../../src/summarize/anthropic.ts";
import type { ChatHttpOptions } from "../../src/summarize/http-chat.ts";
import { openOpenAiChat } from "../../src/summarize/openai-chat.ts";
import { buildSummaryPrompt } from "../../src/summarize/prompt.ts";
import { SummaryFailure, type SummaryBackend } from "../../src/summarize/types.ts";
import { anthropicError, startChatServer } from "./chat-server.ts";

const server = startChatServer();
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setPlan(() => ({ answer: "Done." }));
});

const key = "sk-test-SECRET-123";
const fast: ChatHttpOptions = { timeoutMs: 2_000, baseDelayMs: 10 };

function backends(http: ChatHttpOptions = fast): Array<[string, SummaryBackend]> {
  return [
    [
      "openai",
      openOpenAiChat({
        kind: "openai",
        url: `${server.base}/v1/chat/completions`,
        model: "qwen-test",
        apiKey: key,
        http,
      }),
    ],
    [
      "anthropic",
      openAnthropic({ kind: "anthropic", url: `${server.base}/v1/messages`, model: "claude-test", apiKey: key, http }),
    ],
  ];
}

const prompt = buildSummaryPrompt(
  {
    title: "Fix CI",
    projectName: "recall",
    startedAt: 0,
    endedAt: 0,
    abstract: [],
    turns: Array.from({ length: 50 }, (_, i) => ({
      number: i + 1,
      prompt: `prompt ${i + 1} ${"x".repeat(2_000)}`,
      response: `reply ${i + 1} ${"y".repeat(2_000)}`,
      files: ["ci.yml"],
      toolNames: ["Bash"],
    })),
  },
  4_000,
);

async function failureOf(run: Promise<unknown>): Promise<SummaryFailure> {
  try {
    await run;
  } catch (error) {
    if (error instanceof SummaryFailure) return error;
    throw error;
  }
  throw new Error("expected a SummaryFailure");
}

describe("remote summary backends against a real local server", () => {
  for (const [kind, backend] of backends()) {
    test(`${kind}: a normal answer is cleaned, and the request carries the model, the key header and the budgeted prompt`, async () => {
      server.setPlan(() => ({ answer: "Summary: The user asked to fix CI.\n- Pinned bun\n" }));
      expect(await backend.summarize(prompt)).toBe("The user asked to fix CI. Pinned bun.");
      const [request] = server.requests;
      const body = request!.body as Record<string, unknown>;
      if (kind === "openai") {
        expect(request!.path).toBe("/v1/chat/completions");
        expect(request!.headers.authorization).toBe(`Bearer ${key}`);
        expect(body.model).toBe("qwen-test");
        expect(body.temperature).toBe(0);
        expect(body.messages).toEqual([
          { role: "system", content: prompt.system },
          { role: "user", content: prompt.user },
        ]);
      } else {
        expect(request!.path).toBe("/v1/messages");
        expect(request!.headers["x-api-key"]).toBe(key);
        expect(request!.headers["anthropic-version"]).toBe(anthropicVersion);
        expect(body.model).toBe("claude-test");
        expect(body.system).toBe(prompt.system);
        expect(body.messages).toEqual([{ role: "user", content: prompt.user }]);
        expect(body.temperature).toBeUndefined();
      }
      expect(body.max_tokens).toBe(1_024);
      expect(prompt.system.length + prompt.user.length).toBeLessThanOrEqual(4_000);
    });

    test(`${kind}: 429 with Retry-After is waited out and retried`, async () => {
      server.setPlan((_, index) =>
        index === 0
          ? { status: 429, retryAfter: "1", body: anthropicError("rate_limit_error", "slow down") }
          : { answer: "Fixed CI." },
      );
      expect(await backend.summarize(prompt)).toBe("Fixed CI.");
      expect(server.requests).toHaveLength(2);
      const waitedMs = server.requests[1]!.atMs - server.requests[0]!.atMs;
      expect(waitedMs).toBeGreaterThanOrEqual(950);
      expect(waitedMs).toBeLessThan(3_000);
    });

    test(`${kind}: 529 overloaded 4 times gives up after 3 retries as rate_limited with the server's wait`, async () => {
      server.setPlan(() => ({
        status: 529,
        retryAfter: "0.05",
        body: anthropicError("overloaded_error", "Overloaded"),
      }));
      const failure = await failureOf(backend.summarize(prompt));
      expect(failure.reason).toBe("rate_limited");
      expect(failure.retryAfterMs).toBe(50);
      expect(server.requests).toHaveLength(4);
    });

    test(`${kind}: a Retry-After past 60 s of waiting in all is not waited for`, async () => {
      server.setPlan(() => ({ status: 429, retryAfter: "120" }));
      const failure = await failureOf(backend.summarize(prompt));
      expect(failure.reason).toBe("rate_limited");
      expect(failure.retryAfterMs).toBe(120_000);
      expect(server.requests).toHaveLength(1);
    });

    test(`${kind}: 500s are retried, then the server is unreachable`, async () => {
      server.setPlan(() => ({ status: 500, body: anthropicError("api_error", "Internal server error") }));
      expect((await failureOf(backend.summarize(prompt))).reason).toBe("unreachable");
      expect(server.requests).toHaveLength(4);
    });

    test(`${kind}: a hung server is a timeout`, async () => {
      const [, hung] = backends({ ...fast, timeoutMs: 200 }).find(([k]) => k === kind)!;
      server.setPlan(() => ({ hangMs: 1_500 }));
      const started = performance.now();
      expect((await failureOf(hung.summarize(prompt))).reason).toBe("timeout");
      expect(performance.now() - started).toBeLessThan(1_000);
    });

    test(`${kind}: a prompt too long for the model is too_large, never retried`, async () => {
      server.setPlan(() => ({
        status: 400,
        body:
          kind === "openai"
            ? {
                error: {
                  message: "This model's maximum context length is 8192 tokens, however you requested 9000 tokens",
                  type: "invalid_request_error",
                },
              }
            : anthropicError("invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum"),
      }));
      expect((await failureOf(backend.summarize(prompt))).reason).toBe("too_large");
      expect(server.requests).toHaveLength(1);
    });

    test(`${kind}: 413 is too_large whatever its body says`, async () => {
      server.setPlan(() => ({ status: 413, body: {} }));
      expect((await failureOf(backend.summarize(prompt))).reason).toBe("too_large");
      expect(server.requests).toHaveLength(1);
    });

    test(`${kind}: a malformed body is a bad answer`, async () => {
      server.setPlan(() => ({ raw: "{not json" }));
      expect((await failureOf(backend.summarize(prompt))).reason).toBe("bad_answer");
      server.setPlan(() => ({ raw: '{"unexpected": true}' }));
      expect((await failureOf(backend.summarize(prompt))).reason).toBe("bad_answer");
    });

    test(`${kind}: 401 is auth, and the key never appears in the message even when the server echoes it`, async () => {
      server.setPlan(() => ({ status: 401, body: anthropicError("authentication_error", `invalid x-api-key ${key}`) }));
      const failure = await failureOf(backend.summarize(prompt));
      expect(failure.reason).toBe("auth");
      expect(failure.message).not.toContain(key);
      expect(failure.message).toContain("http 401");
      expect(server.requests).toHaveLength(1);
    });

    test(`${kind}: an answer cut by the token limit keeps its whole sentences`, async () => {
      server.setPlan(() => ({
        answer: "Fixed CI. Then the agent star",
        stop: kind === "openai" ? "length" : "max_tokens",
      }));
      expect(await backend.summarize(prompt)).toBe("Fixed CI.");
    });
  }

  test("openai: message.refusal and finish_reason content_filter are refusals", async () => {
    const openai = backends()[0]![1];
    server.setPlan(() => ({ answer: "", refusal: "I can't help with that." }));
    expect((await failureOf(openai.summarize(prompt))).reason).toBe("refused");
    server.setPlan(() => ({ answer: "", stop: "content_filter" }));
    expect((await failureOf(openai.summarize(prompt))).reason).toBe("refused");
  });

  test("openai: a model that refuses max_tokens or temperature 0 (OpenAI's reasoning models) is asked again without them, once", async () => {
    const openai = backends()[0]![1];
    const unsupported = (message: string, param: string) => ({
      status: 400,
      body: { error: { message, type: "invalid_request_error", param, code: "unsupported_parameter" } },
    });
    server.setPlan((request) =>
      "max_tokens" in request.body
        ? unsupported(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            "max_tokens",
          )
        : "temperature" in request.body
          ? unsupported(
              "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
              "temperature",
            )
          : { answer: "Fixed CI." },
    );
    expect(await openai.summarize(prompt)).toBe("Fixed CI.");
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]!.body.max_completion_tokens).toBe(1_024);
    expect(await openai.summarize(prompt)).toBe("Fixed CI.");
    expect(server.requests).toHaveLength(4);
  });

  test("anthropic: stop_reason refusal is a refusal", async () => {
    const anthropic = backends()[1]![1];
    server.setPlan(() => ({ answer: "", stop: "refusal" }));
    expect((await failureOf(anthropic.summarize(prompt))).reason).toBe("refused");
  });

  test("anthropic: a 429 for a reached spend cap is rate_limited at once, never retried", async () => {
    const anthropic = backends()[1]![1];
    server.setPlan(() => ({
      status: 429,
      body: {
        type: "error",
        error: {
          type: "rate_limit_error",
          message: "spend cap reached",
          details: { error_code: "enforced_spend_limit_reached" },
        },
      },
    }));
    const failure = await failureOf(anthropic.summarize(prompt));
    expect(failure.reason).toBe("rate_limited");
    expect(server.requests).toHaveLength(1);
  });

  test("a server that is not there is unreachable", async () => {
    const closed = startChatServer();
    const url = `${closed.base}/v1/chat/completions`;
    closed.close();
    const backend = openOpenAiChat({ kind: "openai", url, model: "m", apiKey: undefined, http: fast });
    expect((await failureOf(backend.summarize(prompt))).reason).toBe("unreachable");
  });

  test("an aborted signal stops the wait for a retry", async () => {
    const openai = backends()[0]![1];
    server.setPlan(() => ({ status: 429, retryAfter: "30" }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stopped by the user")), 100);
    const started = performance.now();
    await expect(openai.summarize(prompt, controller.signal)).rejects.toThrow("stopped by the user");
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
