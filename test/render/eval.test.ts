/**
 * `recall eval`'s report (issue 43) shows session text: a query is a commit message or a title an agent wrote, and a
 * transcript can hold terminal escapes and bidirectional controls. The text shows each missed query on one line with
 * its controls neutralized; the JSON carries them escaped.
 */
import { describe, expect, test } from "bun:test";
import type { Label, LabelOutcome } from "../../src/evaluate/index.ts";
import { renderEvalJson, renderEvalText } from "../../src/render/eval.ts";

const hostile = "Fix \u001b]0;pwned\u0007 login\n\u001b[2J flow \u202eevil\u202c \u009b31m done";

function outcome(query: string, rank: number): LabelOutcome {
  const label: Label = {
    kind: "title",
    query,
    sessions: [
      { rowid: 1, source: "claude-code", sessionId: "a1b2c3d4-0000-4000-8000-000000000000", turns: [1], withheld: {} },
    ],
  };
  const level = { rank, confident: rank === 1, coverage: 1 };
  return { label, sessions: level, turns: level };
}

describe("recall eval's report with hostile session text", () => {
  const outcomes = [outcome(hostile, Infinity), outcome("Docker bridge network repair", 1)];
  const report = {
    labels: outcomes.map((entry) => entry.label),
    sessions: 2,
    keyword: outcomes,
    hybrid: undefined,
    model: null,
    tuning: undefined,
  };

  test("the text lists the missed query on one line, every control shown as an escape", () => {
    const text = renderEvalText(report);
    expect(text).toContain("not in the top 10 at level 1: 1 of 2");
    const line = text.split("\n").find((entry) => entry.includes("login"))!;
    expect(line).toBe(
      "  title   Fix \\x1b]0;pwned\\x07 login \\x1b[2J flow \\u202eevil\\u202c \\x9b31m done  (claude-code a1b2c3d4-000)",
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for raw controls
    expect(text).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/);
    expect(text).not.toContain("Docker bridge network repair"); // found: not listed
  });

  test("the JSON holds the query whole, its controls escaped", () => {
    const json = renderEvalJson(report);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for raw controls
    expect(json).not.toMatch(/[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/);
    const parsed = JSON.parse(json);
    expect(parsed.labels[0]).toEqual({
      kind: "title",
      query: hostile,
      sessions: [outcomes[0]!.label.sessions[0]!.sessionId],
      rank: null,
      turn_rank: null,
    });
    expect(parsed.recall_at_1).toBe(0.5);
  });
});
