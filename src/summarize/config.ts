/**
 * Which summary backend to use, from the environment (issue 41), in this order of preference:
 *   1. `RECALL_SUMMARY_MODEL=/abs/path/model.gguf`, a local chat model (`RECALL_SUMMARY_IDLE_MS`, default 60,000;
 *      `RECALL_THREADS`, default 2);
 *   2. `SUMMARIES_URL` (base or full URL) + `SUMMARIES_MODEL` (required) + `SUMMARIES_API_KEY` (optional Bearer);
 *   3. `ANTHROPIC_API_KEY` (+ `ANTHROPIC_BASE_URL`, default https://api.anthropic.com; `SUMMARIES_MODEL`, default
 *      claude-haiku-5-5).
 * `SUMMARIES_TIMEOUT_MS` is the remote per-request timeout (default 120,000); `RECALL_OFFLINE=1` forbids a remote URL
 * off this machine. Pass the environment merged over the `.env` file (embed/config.ts `loadEnvWithDotEnv`). Loads and sends nothing.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { basename, isAbsolute } from "node:path";
import { isLoopbackUrl, isOffline } from "../embed/config.ts";
import { UsageError } from "../errors.ts";
import { defaultAnthropicModel, openAnthropic, type AnthropicConfig } from "./anthropic.ts";
import type { ChatHttpOptions } from "./http-chat.ts";
import { openLocalChat, type LocalChatConfig, type LocalChatHooks } from "./local-chat.ts";
import { openOpenAiChat, type OpenAiChatConfig } from "./openai-chat.ts";
import type { SummaryBackend } from "./types.ts";

/** One configured backend: local GGUF, OpenAI-compatible endpoint or Anthropic. */
export type SummaryBackendConfig = LocalChatConfig | OpenAiChatConfig | AnthropicConfig;

type Env = Record<string, string | undefined>;

/** A set, non-blank variable's trimmed value, or undefined. */
const read = (env: Env, name: string): string | undefined => env[name]?.trim() || undefined;

function wholeNumber(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got ${raw}`, `fix or unset ${name}`);
  return value;
}

/**
 * An http(s) URL with its path ended by `suffix` unless it already ends so: `/v1` gets the rest, a bare host gets all.
 * Examples (suffix `/v1/chat/completions`): `http://h:8080` → `http://h:8080/v1/chat/completions`;
 *   `http://h/v1/` → `http://h/v1/chat/completions`; `https://h/v1/chat/completions` → unchanged.
 * @throws UsageError naming `variable` when the value is not an http(s) URL
 */
export function normalizeEndpointUrl(value: string, suffix: string, variable: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new UsageError(
      `${variable} is not a url: ${value}`,
      `set ${variable} to an http(s) URL, e.g. http://127.0.0.1:8080/v1`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${variable} must be http or https: ${value}`, `set ${variable} to an http(s) URL`);
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith(suffix) ? path : path.endsWith("/v1") ? `${path}${suffix.slice(3)}` : `${path}${suffix}`;
  return url.toString();
}

function httpOptions(env: Env): ChatHttpOptions {
  const timeoutMs = wholeNumber(env, "SUMMARIES_TIMEOUT_MS", 1, 3_600_000);
  return timeoutMs === undefined ? {} : { timeoutMs };
}

function refuseOffline(env: Env, url: string, variable: string): void {
  if (isOffline(env) && !isLoopbackUrl(url))
    throw new UsageError(
      `RECALL_OFFLINE=1 forbids the summary endpoint in ${variable} (${displayUrl(url)})`,
      `unset RECALL_OFFLINE, or ${variable}`,
    );
}

/** True when the file starts with the 4 bytes "GGUF" (every GGUF version does). */
function hasGgufMagic(path: string): boolean {
  const magic = Buffer.alloc(4);
  const fd = openSync(path, "r");
  try {
    return readSync(fd, magic, 0, 4, 0) === 4 && magic.toString("latin1") === "GGUF";
  } finally {
    closeSync(fd);
  }
}

function localConfig(env: Env, path: string): LocalChatConfig {
  if (!isAbsolute(path))
    throw new UsageError(
      `RECALL_SUMMARY_MODEL must be an absolute path to a .gguf file, got ${path}`,
      "set RECALL_SUMMARY_MODEL=/full/path/to/model.gguf",
    );
  if (!existsSync(path) || !statSync(path).isFile())
    throw new UsageError(
      `RECALL_SUMMARY_MODEL names no file: ${path}`,
      "download a chat (instruct) GGUF and point RECALL_SUMMARY_MODEL at it",
    );
  if (!hasGgufMagic(path))
    throw new UsageError(
      `RECALL_SUMMARY_MODEL is not a GGUF file: ${path}`,
      "point RECALL_SUMMARY_MODEL at a .gguf chat model (a failed download is often an HTML page)",
    );
  return {
    kind: "local",
    modelPath: path,
    model: basename(path).replace(/\.gguf$/i, ""),
    idleMs: wholeNumber(env, "RECALL_SUMMARY_IDLE_MS", 0, 86_400_000) ?? 60_000,
    threads: wholeNumber(env, "RECALL_THREADS", 1, 256) ?? 2,
  };
}

/**
 * Returns the backend the environment configures, by the preference order of the module doc, or null when none is.
 * @param env the environment (default process.env), ideally merged over the `.env` file
 * @throws UsageError (one line, with the fix as hint) for a relative, missing or non-GGUF RECALL_SUMMARY_MODEL, SUMMARIES_URL
 *   without SUMMARIES_MODEL, a URL that is not http(s), a non-numeric SUMMARIES_TIMEOUT_MS / RECALL_SUMMARY_IDLE_MS /
 *   RECALL_THREADS, or a remote URL under RECALL_OFFLINE=1
 */
export function summaryBackendConfig(env: Env = process.env): SummaryBackendConfig | null {
  const modelPath = read(env, "RECALL_SUMMARY_MODEL");
  if (modelPath) return localConfig(env, modelPath);
  const endpoint = read(env, "SUMMARIES_URL");
  if (endpoint) {
    const url = normalizeEndpointUrl(endpoint, "/v1/chat/completions", "SUMMARIES_URL");
    const model = read(env, "SUMMARIES_MODEL");
    if (!model)
      throw new UsageError(
        "SUMMARIES_URL is set but SUMMARIES_MODEL is not: the endpoint needs a model name",
        "set SUMMARIES_MODEL to a chat model the endpoint serves (e.g. the one `ollama list` shows)",
      );
    refuseOffline(env, url, "SUMMARIES_URL");
    return { kind: "openai", url, model, apiKey: read(env, "SUMMARIES_API_KEY"), http: httpOptions(env) };
  }
  const apiKey = read(env, "ANTHROPIC_API_KEY");
  if (apiKey) {
    const base = read(env, "ANTHROPIC_BASE_URL") ?? "https://api.anthropic.com";
    const url = normalizeEndpointUrl(base, "/v1/messages", "ANTHROPIC_BASE_URL");
    refuseOffline(env, url, "ANTHROPIC_BASE_URL");
    const model = read(env, "SUMMARIES_MODEL") ?? defaultAnthropicModel;
    return { kind: "anthropic", url, model, apiKey, http: httpOptions(env) };
  }
  return null;
}

/**
 * {@link summaryBackendConfig} for a report that must not fail (`status`, `doctor`): the configured backend (null when
 * none is), or the usage error that says what is wrong with its variables (`config` null then).
 */
export function readSummaryBackend(env: Env = process.env): {
  config: SummaryBackendConfig | null;
  problem: UsageError | null;
} {
  try {
    return { config: summaryBackendConfig(env), problem: null };
  } catch (error) {
    if (error instanceof UsageError) return { config: null, problem: error };
    throw error;
  }
}

/** A URL for display: without user:password, query or fragment. */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

/**
 * One line for `status` / `doctor`, never the key.
 * Examples: `local qwen2.5-1.5b-instruct-q4_k_m (/models/qwen2.5-1.5b-instruct-q4_k_m.gguf)`;
 *   `openai llama3.2 at http://127.0.0.1:11434/v1/chat/completions`; `anthropic claude-haiku-5-5 at https://api.anthropic.com/v1/messages`
 */
export function describeBackend(config: SummaryBackendConfig): string {
  switch (config.kind) {
    case "local":
      return `local ${config.model} (${config.modelPath})`;
    case "openai":
    case "anthropic":
      return `${config.kind} ${config.model} at ${displayUrl(config.url)}`;
    default:
      return config satisfies never;
  }
}

/**
 * Opens the configured backend; nothing is loaded or sent until the first summary.
 * @param hooks the local backend's progress hooks (ignored by the remote ones)
 */
export function openSummaryBackend(config: SummaryBackendConfig, hooks: LocalChatHooks = {}): SummaryBackend {
  switch (config.kind) {
    case "local":
      return openLocalChat(config, hooks);
    case "openai":
      return openOpenAiChat(config);
    case "anthropic":
      return openAnthropic(config);
    default:
      return config satisfies never;
  }
}
