import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecallError } from "../../src/errors.ts";
import { describeBackend, openSummaryBackend, summaryBackendConfig } from "../../src/summarize/index.ts";
import { getTestChatModelPath } from "./chat-model.ts";

const modelPath = getTestChatModelPath();
const key = "sk-ant-SECRET-42";
const work = mkdtempSync(join(tmpdir(), "recall-summary-config-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const notGguf = join(work, "model.gguf");
writeFileSync(notGguf, "<!doctype html><title>404</title>");

function usageError(env: Record<string, string>): RecallError {
  try {
    summaryBackendConfig(env);
  } catch (error) {
    if (error instanceof RecallError) return error;
    throw error;
  }
  throw new Error("expected a usage error");
}

describe("summaryBackendConfig", () => {
  test("nothing configured is null", () => {
    expect(summaryBackendConfig({})).toBeNull();
    expect(summaryBackendConfig({ SUMMARIES_MODEL: "x", RECALL_SUMMARY_MODEL: " " })).toBeNull();
  });

  test("a local model is preferred over an endpoint, and an endpoint over Anthropic", () => {
    const all = {
      RECALL_SUMMARY_MODEL: modelPath,
      SUMMARIES_URL: "http://127.0.0.1:8080",
      SUMMARIES_MODEL: "llama3.2",
      ANTHROPIC_API_KEY: key,
    };
    expect(summaryBackendConfig(all)).toMatchObject({ kind: "local", modelPath, idleMs: 60_000, threads: 2 });
    const { RECALL_SUMMARY_MODEL: _local, ...remote } = all;
    expect(summaryBackendConfig(remote)).toMatchObject({
      kind: "openai",
      url: "http://127.0.0.1:8080/v1/chat/completions",
      model: "llama3.2",
      apiKey: undefined,
    });
    expect(summaryBackendConfig({ ANTHROPIC_API_KEY: key })).toMatchObject({
      kind: "anthropic",
      url: "https://api.anthropic.com/v1/messages",
      model: "claude-haiku-5-5",
      apiKey: key,
    });
  });

  test("endpoint URLs are taken as a base, a /v1 base or the full URL", () => {
    const url = (value: string) =>
      (summaryBackendConfig({ SUMMARIES_URL: value, SUMMARIES_MODEL: "m" }) as { url: string }).url;
    expect(url("http://h:11434/v1")).toBe("http://h:11434/v1/chat/completions");
    expect(url("http://h/v1/chat/completions/")).toBe("http://h/v1/chat/completions");
    expect(url("https://h/openai")).toBe("https://h/openai/v1/chat/completions");
    const anthropic = summaryBackendConfig({ ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: "http://127.0.0.1:9/v1" });
    expect(anthropic).toMatchObject({ url: "http://127.0.0.1:9/v1/messages" });
  });

  test("the tuning variables are read", () => {
    expect(
      summaryBackendConfig({ RECALL_SUMMARY_MODEL: modelPath, RECALL_SUMMARY_IDLE_MS: "5000", RECALL_THREADS: "1" }),
    ).toMatchObject({ idleMs: 5_000, threads: 1 });
    expect(
      summaryBackendConfig({ ANTHROPIC_API_KEY: key, SUMMARIES_MODEL: "claude-x", SUMMARIES_TIMEOUT_MS: "9000" }),
    ).toMatchObject({ model: "claude-x", http: { timeoutMs: 9_000 } });
  });

  test("missing or malformed variables are one-line usage errors that say what to set", () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ RECALL_SUMMARY_MODEL: "models/chat.gguf" }, "must be an absolute path", "RECALL_SUMMARY_MODEL="],
      [{ RECALL_SUMMARY_MODEL: "/nowhere/chat.gguf" }, "names no file: /nowhere/chat.gguf", "RECALL_SUMMARY_MODEL"],
      [{ RECALL_SUMMARY_MODEL: notGguf }, `is not a GGUF file: ${notGguf}`, "RECALL_SUMMARY_MODEL"],
      [{ SUMMARIES_URL: "http://127.0.0.1:8080" }, "SUMMARIES_MODEL is not", "SUMMARIES_MODEL"],
      [
        { SUMMARIES_URL: "localhost:8080", SUMMARIES_MODEL: "m" },
        "SUMMARIES_URL must be http or https",
        "SUMMARIES_URL",
      ],
      [{ SUMMARIES_URL: "not a url", SUMMARIES_MODEL: "m" }, "SUMMARIES_URL is not a url", "SUMMARIES_URL"],
      [
        { ANTHROPIC_API_KEY: key, SUMMARIES_TIMEOUT_MS: "2m" },
        "SUMMARIES_TIMEOUT_MS must be a whole number",
        "SUMMARIES_TIMEOUT_MS",
      ],
      [
        { RECALL_SUMMARY_MODEL: modelPath, RECALL_SUMMARY_IDLE_MS: "-1" },
        "RECALL_SUMMARY_IDLE_MS must be",
        "RECALL_SUMMARY_IDLE_MS",
      ],
      [{ ANTHROPIC_API_KEY: key, RECALL_OFFLINE: "1" }, "RECALL_OFFLINE=1 forbids", "RECALL_OFFLINE"],
    ];
    for (const [env, message, hint] of cases) {
      const error = usageError(env);
      expect(error.exitCode).toBe(2);
      expect(error.message).toContain(message);
      expect(error.message).not.toContain("\n");
      expect(error.message).not.toContain(key);
      expect(error.hint ?? "").toContain(hint);
    }
  });

  test("RECALL_OFFLINE=1 still allows an endpoint on this machine", () => {
    expect(
      summaryBackendConfig({ SUMMARIES_URL: "http://127.0.0.1:8080", SUMMARIES_MODEL: "m", RECALL_OFFLINE: "1" }),
    ).toMatchObject({ kind: "openai" });
  });
});

describe("describeBackend and openSummaryBackend", () => {
  test("the one-line description names the model and where, never the key or URL credentials", () => {
    const anthropic = summaryBackendConfig({ ANTHROPIC_API_KEY: key })!;
    expect(describeBackend(anthropic)).toBe("anthropic claude-haiku-5-5 at https://api.anthropic.com/v1/messages");
    const openai = summaryBackendConfig({
      SUMMARIES_URL: "http://user:pass@127.0.0.1:8080/v1?x=1",
      SUMMARIES_MODEL: "qwen2.5:3b",
      SUMMARIES_API_KEY: key,
    })!;
    expect(describeBackend(openai)).toBe("openai qwen2.5:3b at http://127.0.0.1:8080/v1/chat/completions");
    const local = summaryBackendConfig({ RECALL_SUMMARY_MODEL: modelPath })!;
    expect(describeBackend(local)).toBe(`local llama-chat-tiny-1024-7 (${modelPath})`);
  });

  test("opening a backend loads and sends nothing", async () => {
    let loads = 0;
    const local = openSummaryBackend(summaryBackendConfig({ RECALL_SUMMARY_MODEL: modelPath })!, {
      onLoad: () => loads++,
    });
    expect([local.kind, local.model]).toEqual(["local", "llama-chat-tiny-1024-7"]);
    await local.close();
    expect(loads).toBe(0);
    const remote = openSummaryBackend(summaryBackendConfig({ ANTHROPIC_API_KEY: key })!);
    expect([remote.kind, remote.model]).toEqual(["anthropic", "claude-haiku-5-5"]);
  });
});
