/**
 * Summaries through Anthropic's Messages API (`POST {ANTHROPIC_BASE_URL}/v1/messages`; issue 41). Headers `x-api-key`
 * and `anthropic-version: 2023-06-01`; body `{model, max_tokens: 1024, system, messages: [{role: "user", content}]}`,
 * without temperature: the current Haiku (5.5) refuses sampling parameters (its migration guide: "Remove temperature,
 * top_p, and top_k from your requests"). The answer is the `text` blocks of `content` joined, in order (a thinking
 * block may come first); `stop_reason: "refusal"` is a refusal, `"max_tokens"` keeps the whole sentences written.
 * Errors are `{"type":"error","error":{"type":"rate_limit_error"|"overloaded_error"|…,"message"}}` with 429/529 and
 * Retry-After: http-chat.ts waits and retries those.
 */
import { cleanSummaryAnswer } from "./answer.ts";
import { postChatJson, type ChatHttpOptions } from "./http-chat.ts";
import { keepWholeSentences, remoteMaxOutputTokens } from "./openai-chat.ts";
import { SummaryFailure, type SummaryBackend, type SummaryPrompt } from "./types.ts";

/** The Messages API: full URL (…/v1/messages), model id, key. */
export interface AnthropicConfig {
  kind: "anthropic";
  /** full endpoint URL ending in /v1/messages (config.ts builds it from ANTHROPIC_BASE_URL) */
  url: string;
  /** SUMMARIES_MODEL, else {@link defaultAnthropicModel} */
  model: string;
  /** ANTHROPIC_API_KEY */
  apiKey: string;
  http: ChatHttpOptions;
}

/**
 * The model used when SUMMARIES_MODEL is unset: Claude Haiku 5.5, Anthropic's current small model ("Latest",
 * released 2026-10-07; model id from https://platform.claude.com/docs/en/models/haiku-5-5/overview, read 2026-11-28).
 */
export const defaultAnthropicModel = "claude-haiku-5-5";

/** The API version header this backend speaks. */
export const anthropicVersion = "2023-06-01";

/**
 * The text of a Messages answer.
 * @throws SummaryFailure(refused) for stop_reason refusal; SummaryFailure(bad_answer) when there is no text block
 */
export function readMessage(json: unknown, url: string): { text: string; truncated: boolean } {
  const message = (json ?? {}) as { content?: unknown; stop_reason?: unknown };
  if (message.stop_reason === "refusal") throw new SummaryFailure("refused", `the model refused to summarize (${url})`);
  if (!Array.isArray(message.content)) throw new SummaryFailure("bad_answer", `${url} answered without content`);
  const blocks = message.content.filter((block) => (block as { type?: unknown }).type === "text");
  if (blocks.length === 0) throw new SummaryFailure("bad_answer", `${url} answered without a text block`);
  const text = blocks.map((block) => String((block as { text?: unknown }).text ?? "")).join("");
  return { text, truncated: message.stop_reason === "max_tokens" };
}

/** Opens the backend (no request is sent until the first summary). */
export function openAnthropic(config: AnthropicConfig): SummaryBackend {
  return {
    kind: "anthropic",
    model: config.model,
    async summarize(prompt: SummaryPrompt, signal?: AbortSignal): Promise<string> {
      const json = await postChatJson(
        {
          url: config.url,
          headers: { "x-api-key": config.apiKey, "anthropic-version": anthropicVersion },
          body: {
            model: config.model,
            max_tokens: remoteMaxOutputTokens,
            system: prompt.system,
            messages: [{ role: "user", content: prompt.user }],
          },
          secret: config.apiKey,
        },
        config.http,
        signal,
      );
      const { text, truncated } = readMessage(json, config.url);
      const summary = cleanSummaryAnswer(text, prompt);
      return truncated ? keepWholeSentences(summary) : summary;
    },
    async close(): Promise<void> {},
  };
}
