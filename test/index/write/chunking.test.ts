import { describe, expect, test } from "bun:test";
import { chunkBudget, splitIntoChunks } from "../../../src/index/index.ts";

/** A whitespace tokenizer stands in for the model's: the rules under test hold for any tokenizer. */
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const paragraph = (n: number, word = "alpha") => Array.from({ length: n }, (_, i) => `${word}${i}`).join(" ");

describe("splitIntoChunks", () => {
  test("the budget is 80% of the model context", () => {
    expect(chunkBudget(512)).toBe(409);
    expect(chunkBudget(32_768)).toBe(26_214);
  });

  test("a session document is packed at turn boundaries without exceeding the budget", () => {
    const turns = [paragraph(30, "a"), paragraph(30, "b"), paragraph(30, "c")];
    const chunks = splitIntoChunks(turns.join("\n\n"), 70, words);
    expect(chunks).toEqual([`${turns[0]!}\n\n${turns[1]!}`, turns[2]!]);
    for (const chunk of chunks) expect(words(chunk)).toBeLessThanOrEqual(70);
  });

  test("a single turn longer than the budget is split inside, and no word is lost", () => {
    const long = `${paragraph(120, "x")}\n${paragraph(90, "y")}. ${paragraph(40, "z")}`;
    const chunks = splitIntoChunks(long, 50, words);
    expect(chunks.length).toBeGreaterThan(4);
    for (const chunk of chunks) expect(words(chunk)).toBeLessThanOrEqual(50);
    expect(chunks.join(" ").split(/\s+/).filter(Boolean)).toEqual(long.split(/\s+/).filter(Boolean));
  });

  test("a word longer than the budget is cut by characters, never dropped", () => {
    const chars = (text: string) => text.length;
    const chunks = splitIntoChunks("x".repeat(1000), 64, chars);
    expect(chunks.join("")).toBe("x".repeat(1000));
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(64);
  });

  test("blank text gives no chunk", () => {
    expect(splitIntoChunks(" \n\n \n", 10, words)).toEqual([]);
  });
});
