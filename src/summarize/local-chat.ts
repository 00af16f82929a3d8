/**
 * Summaries from a local chat GGUF through node-llama-cpp (issue 41; `RECALL_SUMMARY_MODEL`). The model is loaded on
 * the first summary, not when the backend opens (loading a 1–3B model takes seconds and hundreds of MB), through the
 * embedder's loader (embed/load-runtime.ts: the same import in dev and in the compiled binary, logs off stdout), and
 * released (context and model disposed) after `idleMs` without a request (default 60 s) and on `close()`. One summary
 * runs at a time on one context sequence with 2 threads (runtime-notes §1: more threads than free cores stalls
 * llama.cpp). The user message is cut, in tokens of the model itself, to what the context leaves after the system
 * prompt, the chat template and the answer (at most 200 tokens): its start and its end are kept (the last reply is at
 * the end). Greedy decoding (temperature 0), so the same prompt gives the same summary. The chat format comes from the
 * GGUF's `tokenizer.chat_template` (node-llama-cpp's "auto" wrapper; a model without one gets its general format).
 */
import type { LlamaContext, LlamaModel } from "node-llama-cpp";
import { EmbedError } from "../errors.ts";
import { getSharedLlama, loadNodeLlamaCpp } from "../embed/load-runtime.ts";
import { cleanSummaryAnswer } from "./answer.ts";
import { keepWholeSentences } from "./openai-chat.ts";
import { SummaryFailure, type SummaryBackend, type SummaryPrompt } from "./types.ts";

/** A local chat model file and how to run it. */
export interface LocalChatConfig {
  kind: "local";
  /** absolute path of the .gguf file (RECALL_SUMMARY_MODEL) */
  modelPath: string;
  /** the file's base name without .gguf, as shown to the user */
  model: string;
  /** release the model after this many ms without a request; default 60,000 (RECALL_SUMMARY_IDLE_MS) */
  idleMs: number;
  /** llama.cpp threads; default 2 (RECALL_THREADS) */
  threads: number;
  /** cap on the context in tokens (memory grows with it); default 8,192, never above the model's training context */
  maxContextTokens?: number;
  /** output tokens at most; default 200 (2–3 sentences are 60–150) */
  maxOutputTokens?: number;
}

/** What the backend reports as it works (the command can show "loading the model…"; tests check the plumbing). */
export interface LocalChatHooks {
  /** the model and its context were loaded; `contextTokens` is the context's size */
  onLoad?(info: { contextTokens: number; loadMs: number }): void;
  /** the model was released, after `idleMs` without a request or by `close()` */
  onRelease?(why: "idle" | "close"): void;
  /** a prompt is about to be evaluated: its tokens (system + user) and the user tokens before any cut */
  onPrompt?(info: {
    promptTokens: number;
    userTokensBeforeCut: number;
    roomTokens: number;
    maxOutputTokens: number;
  }): void;
  /** the model answered: its raw text, the tokens it generated and why it stopped */
  onAnswer?(info: { raw: string; outputTokens: number; stopReason: string }): void;
}

/** Tokens the chat template adds around the system and user messages (ChatML: ~10; Llama 3: ~20), with room to spare. */
const templateTokens = 48;

/** Loaded state: the model and its one context. */
interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
}

/**
 * Opens the backend. Nothing is loaded until the first `summarize`.
 * `summarize` throws EmbedError(EMBED_FAILED) when node-llama-cpp or the model cannot be loaded,
 * SummaryFailure(too_large) when the context cannot hold even the system prompt and the answer, and
 * SummaryFailure(bad_answer) for an empty, echoed or cut-off answer (answer.ts).
 */
export function openLocalChat(config: LocalChatConfig, hooks: LocalChatHooks = {}): SummaryBackend {
  return new LocalChat(config, hooks);
}

class LocalChat implements SummaryBackend {
  readonly kind = "local" as const;
  readonly model: string;
  private loading: Promise<Loaded> | undefined;
  /** summaries run one at a time: each waits for the one before */
  private queue: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly config: LocalChatConfig,
    private readonly hooks: LocalChatHooks,
  ) {
    this.model = config.model;
  }

  summarize(prompt: SummaryPrompt, signal?: AbortSignal): Promise<string> {
    this.pending++;
    clearTimeout(this.idleTimer);
    const run = this.queue.then(() => this.run(prompt, signal));
    this.queue = run.catch(() => {});
    return run.finally(() => {
      if (--this.pending === 0) this.armIdleTimer();
    });
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending === 0) void this.release("idle");
    }, this.config.idleMs);
    this.idleTimer.unref?.();
  }

  private load(): Promise<Loaded> {
    this.loading ??= (async () => {
      const started = performance.now();
      const llama = await getSharedLlama();
      let model: LlamaModel;
      try {
        model = await llama.loadModel({ modelPath: this.config.modelPath });
      } catch (cause) {
        throw new EmbedError(
          "EMBED_FAILED",
          `cannot load the summary model ${this.config.modelPath}: ${String(cause)}`,
          {
            cause,
            hint: "point RECALL_SUMMARY_MODEL at a chat (instruct) GGUF that llama.cpp can load",
          },
        );
      }
      const contextSize = Math.min(model.trainContextSize, this.config.maxContextTokens ?? 8_192);
      try {
        const context = await model.createContext({ contextSize, threads: this.config.threads, sequences: 1 });
        this.hooks.onLoad?.({ contextTokens: context.contextSize, loadMs: performance.now() - started });
        return { model, context };
      } catch (cause) {
        await model.dispose();
        throw new EmbedError(
          "EMBED_FAILED",
          `cannot create a ${contextSize}-token context for ${this.config.modelPath}`,
          {
            cause,
          },
        );
      }
    })().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  private async run(prompt: SummaryPrompt, signal: AbortSignal | undefined): Promise<string> {
    if (signal?.aborted) throw signal.reason;
    const { model, context } = await this.load();
    const maxOutputTokens = this.config.maxOutputTokens ?? 200;
    const user = this.fitUser(model, context.contextSize, prompt, maxOutputTokens);
    const { LlamaChatSession } = await loadNodeLlamaCpp();
    const sequence = context.getSequence();
    const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: prompt.system });
    try {
      let outputTokens = 0;
      const result = await session.promptWithMeta(user, {
        temperature: 0,
        maxTokens: maxOutputTokens,
        // A thinking model (Qwen3, DeepSeek-R1 distills) would spend the 200 tokens reasoning; a summary needs none.
        budgets: { thoughtTokens: 0 },
        signal,
        onToken: (tokens) => {
          outputTokens += tokens.length;
        },
      });
      this.hooks.onAnswer?.({ raw: result.responseText, outputTokens, stopReason: result.stopReason });
      const summary = cleanSummaryAnswer(result.responseText, prompt);
      return result.stopReason === "maxTokens" ? keepWholeSentences(summary) : summary;
    } finally {
      session.dispose();
      sequence.dispose();
    }
  }

  /**
   * The user message cut to the context: room = context − system tokens − template − answer. A longer message keeps
   * its first 60 % and last 40 % of the room, joined by " … ".
   */
  private fitUser(model: LlamaModel, contextTokens: number, prompt: SummaryPrompt, maxOutputTokens: number): string {
    const room = contextTokens - model.tokenize(prompt.system).length - templateTokens - maxOutputTokens;
    if (room < 32)
      throw new SummaryFailure(
        "too_large",
        `the ${contextTokens}-token context of ${this.model} cannot hold the instructions and a ${maxOutputTokens}-token answer`,
      );
    const tokens = model.tokenize(prompt.user);
    let user = prompt.user;
    // Detokenizing and tokenizing again may not give the same count: shrink until it fits (twice at most in practice).
    for (let budget = room; model.tokenize(user).length > room; budget = Math.floor(budget * 0.95)) {
      const head = Math.floor(budget * 0.6);
      user = `${model.detokenize(tokens.slice(0, head))} … ${model.detokenize(tokens.slice(tokens.length - (budget - head - 4)))}`;
    }
    const promptTokens = model.tokenize(prompt.system).length + model.tokenize(user).length;
    this.hooks.onPrompt?.({ promptTokens, userTokensBeforeCut: tokens.length, roomTokens: room, maxOutputTokens });
    return user;
  }

  private async release(why: "idle" | "close"): Promise<void> {
    const loading = this.loading;
    this.loading = undefined;
    if (!loading) return;
    const loaded = await loading.catch(() => undefined);
    if (!loaded) return;
    await loaded.context.dispose();
    await loaded.model.dispose();
    this.hooks.onRelease?.(why);
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    await this.queue;
    await this.release("close").catch(() => {});
  }
}
