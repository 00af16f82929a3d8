/**
 * Summaries through an OpenAI-compatible `POST /v1/chat/completions` endpoint (llama-server, Ollama, vLLM, LM Studio,
 * OpenAI…; issue 41). Sends `{model, messages: [system, user], temperature: 0, max_tokens: 1024}` (or what the model
 * takes) with `Authorization: Bearer SUMMARIES_API_KEY` when a key is set. Reads `choices[0].message.content` (a string, or an
 * array of `{type: "text", text}` parts); `message.refusal` or `finish_reason: "content_filter"` is a refusal, and
 * `finish_reason: "length"` keeps the whole sentences written before the cut. HTTP is http-chat.ts.
 */
import { cleanSummaryAnswer } from "./answer.ts";
import { postChatJson, type ChatHttpOptions } from "./http-chat.ts";
import { SummaryFailure, type SummaryBackend, type SummaryPrompt } from "./types.ts";

/** An OpenAI-compatible chat endpoint: full URL (…/chat/completions), model id, optional key. */
export interface OpenAiChatConfig {
  kind: "openai";
  /** full endpoint URL ending in /chat/completions (config.ts normalizes SUMMARIES_URL) */
  url: string;
  /** SUMMARIES_MODEL */
  model: string;
  /** SUMMARIES_API_KEY, sent as a Bearer token */
  apiKey: string | undefined;
  http: ChatHttpOptions;
}

/**
 * Output tokens allowed: a 3-sentence summary is 60–150 tokens, but a thinking model's reasoning counts toward the cap
 * too (Claude Haiku 5.5 thinks adaptively: "thinking tokens count toward" max_tokens, its what's-new page), and only
 * the tokens generated are billed. A longer answer is rejected anyway (answer.ts, 1,500 characters).
 */
export const remoteMaxOutputTokens = 1_024;

/**
 * The text of a chat-completions answer, or why there is none.
 * @throws SummaryFailure(refused) for `message.refusal` or finish_reason content_filter; SummaryFailure(bad_answer)
 *   when there is no choice or no text
 */
export function readChatCompletion(json: unknown, url: string): { text: string; truncated: boolean } {
  const choice = (json as { choices?: unknown } | null)?.choices;
  const first = Array.isArray(choice) ? (choice[0] as Record<string, unknown> | undefined) : undefined;
  if (!first) throw new SummaryFailure("bad_answer", `${url} answered without choices`);
  const message = (first.message ?? {}) as { content?: unknown; refusal?: unknown };
  if (typeof message.refusal === "string" && message.refusal.trim() !== "")
    throw new SummaryFailure("refused", `the model refused: ${message.refusal.slice(0, 200)}`);
  if (first.finish_reason === "content_filter")
    throw new SummaryFailure("refused", `${url} withheld the answer (finish_reason content_filter)`);
  const content = message.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .map((part) =>
              (part as { type?: unknown }).type === "text" ? String((part as { text?: unknown }).text ?? "") : "",
            )
            .join("")
        : undefined;
  if (text === undefined) throw new SummaryFailure("bad_answer", `${url} answered without message content`);
  return { text, truncated: first.finish_reason === "length" };
}

/**
 * The answer cut at its last sentence end when the model was stopped by its token limit, so no summary ends
 * mid-word. Example: `"Fixed CI. Then the agent star"` → `"Fixed CI."`.
 * @throws SummaryFailure(bad_answer) when not one whole sentence was written
 */
export function keepWholeSentences(text: string): string {
  const end = Math.max(
    text.lastIndexOf(". "),
    text.lastIndexOf("! "),
    text.lastIndexOf("? "),
    /[.!?]$/.test(text) ? text.length - 1 : -1,
  );
  if (end < 0)
    throw new SummaryFailure("bad_answer", "the model was cut off by its token limit before ending a sentence");
  return text.slice(0, end + 1);
}

/**
 * A 400 that names a parameter the model does not take: OpenAI's reasoning models (o-series, GPT-5) answer
 * `Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.` and
 * `Unsupported value: 'temperature' does not support 0 with this model.`; returns which one, else undefined.
 */
function unsupportedParameter(error: unknown): "max_tokens" | "temperature" | undefined {
  if (!(error instanceof SummaryFailure) || error.reason !== "bad_answer" || !/http 400/.test(error.message)) return;
  return /unsupported (parameter|value)\W+'?(max_tokens|temperature)'?/i.exec(error.message)?.[2] as
    | "max_tokens"
    | "temperature"
    | undefined;
}

/**
 * Opens the backend (no request is sent until the first summary). It sends `max_tokens` and `temperature: 0`, which
 * every OpenAI-compatible server takes; when a model refuses one (see {@link unsupportedParameter}), the request is
 * sent again with `max_completion_tokens` or without temperature, and later requests go that way from the start.
 */
export function openOpenAiChat(config: OpenAiChatConfig): SummaryBackend {
  const accepts = { maxTokens: true, temperature: true };
  const body = (prompt: SummaryPrompt) => ({
    model: config.model,
    messages: [
      { role: "system", content: prompt.system },
      { role: "user", content: prompt.user },
    ],
    ...(accepts.temperature ? { temperature: 0 } : {}),
    ...(accepts.maxTokens ? { max_tokens: remoteMaxOutputTokens } : { max_completion_tokens: remoteMaxOutputTokens }),
    stream: false,
  });
  const headers: Record<string, string> = config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {};
  return {
    kind: "openai",
    model: config.model,
    async summarize(prompt: SummaryPrompt, signal?: AbortSignal): Promise<string> {
      let json: unknown;
      for (;;) {
        try {
          json = await postChatJson(
            { url: config.url, headers, body: body(prompt), secret: config.apiKey },
            config.http,
            signal,
          );
          break;
        } catch (error) {
          const parameter = unsupportedParameter(error);
          if (parameter === "max_tokens" && accepts.maxTokens) accepts.maxTokens = false;
          else if (parameter === "temperature" && accepts.temperature) accepts.temperature = false;
          else throw error;
        }
      }
      const { text, truncated } = readChatCompletion(json, config.url);
      const summary = cleanSummaryAnswer(text, prompt);
      return truncated ? keepWholeSentences(summary) : summary;
    },
    async close(): Promise<void> {},
  };
}
