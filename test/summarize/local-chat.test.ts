import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tinyLlamaShape, writeLlamaChatModel } from "../../scripts/gguf/llama-model.ts";
import { openLocalChat, type LocalChatConfig, type LocalChatHooks } from "../../src/summarize/local-chat.ts";
import { buildSummaryPrompt, type SummarySource } from "../../src/summarize/prompt.ts";
import { SummaryFailure, type SummaryBackend } from "../../src/summarize/types.ts";
import { getTestChatModelPath } from "./chat-model.ts";

const modelPath = getTestChatModelPath();

function config(overrides: Partial<LocalChatConfig> = {}): LocalChatConfig {
  return {
    kind: "local",
    modelPath,
    model: "llama-chat-tiny-7",
    idleMs: 60_000,
    threads: 2,
    maxOutputTokens: 16,
    ...overrides,
  };
}

/** Every hook call, in order. */
function recorder() {
  const events: Array<{ type: string; info: unknown }> = [];
  const hooks: LocalChatHooks = {
    onLoad: (info) => events.push({ type: "load", info }),
    onRelease: (why) => events.push({ type: "release", info: why }),
    onPrompt: (info) => events.push({ type: "prompt", info }),
    onAnswer: (info) => events.push({ type: "answer", info }),
  };
  const of = <T>(type: string) => events.filter((event) => event.type === type).map((event) => event.info as T);
  return { events, hooks, of };
}

const source = (turns: number): SummarySource => ({
  title: "Fix the build",
  projectName: "recall",
  startedAt: 0,
  endedAt: 0,
  abstract: [],
  turns: Array.from({ length: turns }, (_, i) => ({
    number: i + 1,
    prompt: `fix the build test ${i + 1} ${"the file was changed and the test run failed ".repeat(20)}`,
    response: `the agent fixed file ${i + 1} ${"the tests run and the build was done ".repeat(20)}`,
    files: ["src/a.ts"],
    toolNames: ["Edit"],
  })),
});

/** The summary, or the reason it failed: noise from random weights may be a bad answer, which is fine here. */
async function outcome(backend: SummaryBackend, turns = 1): Promise<string> {
  try {
    return `summary: ${await backend.summarize(buildSummaryPrompt(source(turns)))}`;
  } catch (error) {
    if (error instanceof SummaryFailure) return `failure: ${error.reason}`;
    throw error;
  }
}

const opened: SummaryBackend[] = [];
afterAll(async () => {
  for (const backend of opened) await backend.close();
});

describe("local chat backend with the generated tiny llama model", () => {
  test("the generator writes a small model quickly", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-llama-"));
    try {
      const started = performance.now();
      const info = writeLlamaChatModel(join(dir, "m.gguf"), { ...tinyLlamaShape, seed: 1, name: "t" });
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(info.tensorCount).toBe(2 * 9 + 3);
      expect(statSync(join(dir, "m.gguf")).size).toBe(info.sizeBytes);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("loads on the first summary, not at open; answers within the token budget; the same prompt gives the same answer", async () => {
    const { hooks, of } = recorder();
    const backend = openLocalChat(config(), hooks);
    opened.push(backend);
    expect(backend.kind).toBe("local");
    expect(backend.model).toBe("llama-chat-tiny-7");
    await Bun.sleep(50);
    expect(of("load")).toHaveLength(0);
    const first = await outcome(backend);
    const second = await outcome(backend);
    expect(of<{ contextTokens: number }>("load")).toEqual([expect.objectContaining({ contextTokens: 1024 })]);
    const answers = of<{ raw: string; outputTokens: number; stopReason: string }>("answer");
    expect(answers).toHaveLength(2);
    expect(answers[0]!.raw.length).toBeGreaterThan(0);
    expect(answers[0]!.outputTokens).toBeGreaterThan(0);
    expect(answers[0]!.outputTokens).toBeLessThanOrEqual(16);
    expect(answers[1]!.raw).toBe(answers[0]!.raw);
    expect(second).toBe(first);
    expect(first).toMatch(/^(summary: .+|failure: bad_answer)$/);
  });

  test("a prompt longer than the context is cut, in the model's tokens, to leave room for the answer", async () => {
    const { hooks, of } = recorder();
    const backend = openLocalChat(config({ maxContextTokens: 512 }), hooks);
    opened.push(backend);
    await outcome(backend, 30);
    const [prompt] = of<{
      promptTokens: number;
      userTokensBeforeCut: number;
      roomTokens: number;
      maxOutputTokens: number;
    }>("prompt");
    expect(of<{ contextTokens: number }>("load")[0]!.contextTokens).toBe(512);
    expect(prompt!.userTokensBeforeCut).toBeGreaterThan(prompt!.roomTokens);
    expect(prompt!.maxOutputTokens).toBe(16);
    // the instructions, the cut message and the answer fit the context (48 tokens kept for the chat template)
    expect(prompt!.promptTokens + 48 + prompt!.maxOutputTokens).toBeLessThanOrEqual(512);
    expect(of("answer")).toHaveLength(1);
  });

  test("a context too small for the instructions and the answer is too_large", async () => {
    const backend = openLocalChat(config({ maxContextTokens: 96 }));
    opened.push(backend);
    expect(await outcome(backend)).toBe("failure: too_large");
  });

  test("the model is released after the idle time and on close, and loaded again when needed", async () => {
    const { hooks, of } = recorder();
    const backend = openLocalChat(config({ idleMs: 100 }), hooks);
    opened.push(backend);
    await outcome(backend);
    expect(of("release")).toEqual([]);
    await Bun.sleep(400);
    expect(of("release")).toEqual(["idle"]);
    await outcome(backend);
    expect(of("load")).toHaveLength(2);
    await backend.close();
    expect(of("release")).toEqual(["idle", "close"]);
  });
});
