/**
 * `recall eval` on the real corpus (issue 43; needs ../shared/corpus): it finds at least 50 labelled queries, both
 * kinds, and measures them all with their source withheld. On 2026-11-29 it found 50 distinct commit subjects (of the
 * corpus's 68 tool calls that run `git … commit`, in 18 sessions, sub-agents' and message-less ones included) and 56
 * agent-written titles of Claude Code, Codex, Gemini CLI, OpenCode and Cursor sessions.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findLabels, measureLabels, scoreLevel } from "../../src/evaluate/index.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { allCorpusRoots, hasCorpus } from "../helpers/corpus.ts";

describe.skipIf(!hasCorpus)("recall eval on the real corpus (needs ../shared/corpus)", () => {
  test("at least 50 labels of both kinds, every one measured at both levels", async () => {
    const home = mkdtempSync(join(tmpdir(), "recall-eval-corpus-"));
    try {
      await runIndex({ recallHome: home, roots: allCorpusRoots() });
      const db = openIndex(databasePath(home));
      try {
        const labels = findLabels(db);
        const commits = labels.filter((label) => label.kind === "commit");
        const titles = labels.filter((label) => label.kind === "title");
        expect(labels.length).toBeGreaterThanOrEqual(50);
        expect(commits.length).toBeGreaterThanOrEqual(40);
        expect(titles.length).toBeGreaterThanOrEqual(40);
        expect(new Set(commits.flatMap((label) => label.sessions.map((session) => session.source)))).toEqual(
          new Set(["claude-code", "codex", "gemini-cli", "opencode"]),
        );
        expect(new Set(titles.flatMap((label) => label.sessions.map((session) => session.source)))).toEqual(
          new Set(["claude-code", "codex", "gemini-cli", "opencode", "cursor"]),
        );
        const outcomes = await measureLabels(db, labels, { mode: "keyword" });
        const sessions = scoreLevel(outcomes, "sessions");
        expect(sessions.queries).toBe(labels.length);
        // floors a little under what was measured (recall@5 at level 1: commit 1.000, title 0.607): a regression
        // in parsing, withholding or ranking shows here
        expect(sessions.kinds.commit!.recall_at_5).toBeGreaterThanOrEqual(0.9);
        expect(sessions.kinds.title!.recall_at_5).toBeGreaterThanOrEqual(0.5);
      } finally {
        db.close();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);
});
