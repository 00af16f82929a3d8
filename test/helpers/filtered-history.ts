/**
 * A generated history for filtered-search tests (issue 42, search/ranking/document-mask.ts): 30 projects × 4 Claude
 * Code sessions of a few turns, one session a day from 2026-01-01, each turn's words drawn from 60 made-up words (a
 * word is in about a third of the documents, so its idf stays positive), and the filters that narrow it.
 * Deterministic: every run writes and asks the same things, given the same `random` (ranking-corpus.ts
 * `randomStream`).
 */
import { join } from "node:path";
import type { SearchFilters } from "../../src/search/listing/filters.ts";
import { writeClaudeSession } from "./claude-writer.ts";

const dayMs = 86_400_000;
const base = Date.UTC(2026, 0, 1);
const projects = 30;
const vocabulary = Array.from({ length: 60 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}x`);

/** `count` words of the vocabulary drawn by `random`, space-separated. */
export function wordsOf(random: () => number, count: number): string {
  return Array.from({ length: count }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(" ");
}

const projectName = (i: number) => `project-${String(i).padStart(2, "0")}`;
/** Session `j` of project `i` starts on day 4i + j after 2026-01-01 (epoch ms; one transcript line a second). */
const startOf = (i: number, j: number) => base + (i * 4 + j) * dayMs;

/**
 * Write the history's transcripts under `<root>/-home-u-<project>/`; its Claude Code root is `root`.
 * @param turns turns a session (default 5: 720 documents in all)
 */
export function writeFilteredHistory(root: string, random: () => number, turns = 5): void {
  for (let i = 0; i < projects; i++)
    for (let j = 0; j < 4; j++) {
      const sessionId = `${String(i).padStart(8, "0")}-0000-4000-8000-${String(j).padStart(12, "0")}`;
      writeClaudeSession(join(root, `-home-u-${projectName(i)}`, `${sessionId}.jsonl`), {
        sessionId,
        cwd: `/home/u/${projectName(i)}`,
        startMs: startOf(i, j),
        turns: Array.from({ length: turns }, () => ({ prompt: wordsOf(random, 6), response: wordsOf(random, 20) })),
      });
    }
}

/**
 * 60 filters that keep a project, a span of days, or both; some date bounds fall inside a session, between its turns
 * (4.5 s after its first line: after its first two turns).
 */
export function narrowingFilters(random: () => number): SearchFilters[] {
  const filters: SearchFilters[] = [];
  for (let n = 0; n < 12; n++) {
    const i = Math.floor(random() * projects);
    const j = Math.floor(random() * 4);
    const inside = startOf(i, j) + 4_500;
    filters.push({ project: projectName(i) });
    filters.push({ since: startOf(i, j) });
    filters.push({ since: inside, until: inside + 3 * dayMs });
    filters.push({ until: inside });
    filters.push({ project: projectName(i), since: startOf(i, 2) });
  }
  return filters;
}
