import { describe, expect, test } from "bun:test";
import {
  buildSummaryPrompt,
  cutText,
  defaultSummaryBudgetCharacters,
  summarySystemPrompt,
  type SummarySource,
} from "../../src/summarize/prompt.ts";

/** A session of `turns` turns whose every text is long, so any budget is overrun many times. */
function hugeSession(turns: number): SummarySource {
  return {
    title: "Port the indexer to WAL mode",
    projectName: "recall",
    startedAt: Date.UTC(2026, 10, 20, 9, 30),
    endedAt: Date.UTC(2026, 10, 20, 17, 5),
    abstract: [
      { source: "compaction", text: `NEWEST-COMPACTION the indexer now uses WAL. ${"detail ".repeat(800)}`, at: 5 },
      { source: "compaction", text: `OLDER-COMPACTION started the port. ${"detail ".repeat(800)}`, at: 2 },
      { source: "summary", text: "PREVIOUS-RECALL-SUMMARY should not be sent", at: 9 },
    ],
    turns: Array.from({ length: turns }, (_, i) => ({
      number: i + 1,
      prompt: `${i === 0 ? "FIRST-PROMPT switch sqlite to WAL" : i === turns - 1 ? "LAST-PROMPT run the tests" : `prompt ${i + 1}`} ${"words ".repeat(2_000)} END-OF-PROMPT-${i + 1}`,
      response: `${i === turns - 1 ? "LAST-REPLY all 412 tests pass" : `reply ${i + 1}`} ${"text ".repeat(3_000)}`,
      files: i % 3 === 0 ? ["src/index/db.ts", "src/index/wal.ts"] : ["src/index/db.ts"],
      toolNames: ["Edit", "Bash"],
    })),
  };
}

describe("buildSummaryPrompt", () => {
  test("a huge session never exceeds the budget, whatever the budget", () => {
    for (const budget of [1_000, 4_000, defaultSummaryBudgetCharacters, 50_000]) {
      for (const turns of [1, 2, 40, 2_000]) {
        const prompt = buildSummaryPrompt(hugeSession(turns), budget);
        expect(prompt.system.length + prompt.user.length).toBe(prompt.characters);
        expect(prompt.characters).toBeLessThanOrEqual(budget);
        expect(prompt.estimatedTokens).toBe(Math.ceil(prompt.characters / 4));
      }
    }
  });

  test("the abstract (newest first), the first and last prompts, the last reply and the top file are sent", () => {
    const { user, system, characters } = buildSummaryPrompt(hugeSession(300));
    expect(system).toBe(summarySystemPrompt);
    expect(characters).toBeGreaterThan(defaultSummaryBudgetCharacters * 0.9);
    expect(user.indexOf("NEWEST-COMPACTION")).toBeGreaterThan(-1);
    expect(user.indexOf("NEWEST-COMPACTION")).toBeLessThan(user.indexOf("OLDER-COMPACTION"));
    expect(user).not.toContain("PREVIOUS-RECALL-SUMMARY");
    expect(user).toContain("[1] FIRST-PROMPT switch sqlite to WAL");
    expect(user).toContain("[300] LAST-PROMPT run the tests");
    // a long prompt keeps its end too
    expect(user).toContain("END-OF-PROMPT-300");
    expect(user).toContain("The agent's last reply (turn 300):\nLAST-REPLY all 412 tests pass");
    expect(user).toContain("src/index/db.ts (300), src/index/wal.ts (100)");
    expect(user).toContain("Bash (300), Edit (300)");
    expect(user).toContain("Project: recall; 2026-11-20 09:30 to 2026-11-20 17:05 UTC; 300 turns");
    expect(user).toMatch(/\(\d+ more not shown\)/);
  });

  test("a small session is sent whole, every prompt and reply", () => {
    const source: SummarySource = {
      title: null,
      projectName: "",
      startedAt: 0,
      endedAt: 0,
      abstract: [],
      turns: [
        { number: 1, prompt: "why is CI red", response: "the lockfile is stale", files: [], toolNames: [] },
        {
          number: 2,
          prompt: "fix it",
          response: "ran npm install; CI is green",
          files: ["package-lock.json"],
          toolNames: ["Bash"],
        },
      ],
    };
    const { user } = buildSummaryPrompt(source);
    expect(user).toBe(
      "Session: (untitled)\nProject: unknown; unknown to unknown UTC; 2 turns\n\n" +
        "The user's prompts, in order:\n[1] why is CI red\n[2] fix it\n\n" +
        "Files touched (times):\npackage-lock.json (1)\n\nTools used (times):\nBash (1)\n\n" +
        "Some of the agent's replies:\n[1] the lockfile is stale\n\n" +
        "The agent's last reply (turn 2):\nran npm install; CI is green",
    );
  });

  test("a 2,000-turn session of 27 MB is built in well under a second (each text is flattened once, only if sent)", () => {
    const session = hugeSession(2_000);
    const started = performance.now();
    buildSummaryPrompt(session);
    // 1.6 s when every comparison of the length sort flattened both texts again; ~0.13 s now (2 shared cores)
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("the same session gives the same prompt", () => {
    expect(buildSummaryPrompt(hugeSession(120))).toEqual(buildSummaryPrompt(hugeSession(120)));
  });

  test("a budget under 1,000 characters is a usage error", () => {
    expect(() => buildSummaryPrompt(hugeSession(1), 999)).toThrow("at least 1000 characters");
  });

  test("cutText keeps the start and the end", () => {
    expect(cutText("abcdefghijklmnop", 13)).toBe("abcdefg … nop");
    expect(cutText("  a\n\n b  ", 10)).toBe("a b");
  });
});
