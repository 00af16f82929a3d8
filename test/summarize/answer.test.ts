import { describe, expect, test } from "bun:test";
import { cleanSummaryAnswer } from "../../src/summarize/answer.ts";
import { buildSummaryPrompt } from "../../src/summarize/prompt.ts";
import { SummaryFailure } from "../../src/summarize/types.ts";

const prompt = buildSummaryPrompt({
  title: "CI",
  projectName: "recall",
  startedAt: 0,
  endedAt: 0,
  abstract: [],
  turns: [
    {
      number: 1,
      prompt: "why does the build fail on the release branch after the lockfile upgrade yesterday",
      response: "the lockfile is stale",
      files: [],
      toolNames: [],
    },
  ],
});

function reasonOf(raw: string): string | undefined {
  try {
    cleanSummaryAnswer(raw, prompt);
    return undefined;
  } catch (error) {
    return error instanceof SummaryFailure ? error.reason : String(error);
  }
}

describe("cleanSummaryAnswer", () => {
  test("strips reasoning, a Summary label, markdown and extra whitespace", () => {
    expect(cleanSummaryAnswer("<think>the user wants\na summary</think>\nSummary: Fixed the  build.", prompt)).toBe(
      "Fixed the build.",
    );
    expect(cleanSummaryAnswer("## Summary\n- Asked to fix **CI**\n- Pinned `bun` in package.json", prompt)).toBe(
      "Asked to fix CI. Pinned bun in package.json.",
    );
    expect(cleanSummaryAnswer("1. Asked why CI failed.\n2) Regenerated the lockfile", prompt)).toBe(
      "Asked why CI failed. Regenerated the lockfile.",
    );
  });

  test("an empty answer, an unclosed reasoning block, a huge answer or an echo is a bad answer", () => {
    expect(reasonOf("   \n")).toBe("bad_answer");
    expect(reasonOf("<think>still thinking when the tokens ran out")).toBe("bad_answer");
    expect(reasonOf("word ".repeat(400))).toBe("bad_answer");
    expect(reasonOf("why does the build fail on the release branch after the lockfile upgrade yesterday")).toBe(
      "bad_answer",
    );
    expect(reasonOf("The user asked why CI failed; the lockfile was stale.")).toBeUndefined();
  });
});
