/**
 * A small generated history for ranking-equivalence tests (phrase-rankings.test.ts, postings-ranking.test.ts): Claude
 * Code sessions whose prompts and responses mix filler text with common, middling and rare words (some that stem
 * together), and the hundreds of keyword queries those tests compare FTS5's own ranking with.
 */
import { join } from "node:path";
import { fillerText, writeClaudeSession } from "./claude-writer.ts";

/** Common, middling and rare words, some that stem together (retry/retries, migrate/migration). */
export const rankingWords = [
  "docker",
  "network",
  "bridge",
  "timeout",
  "retry",
  "retries",
  "migration",
  "migrate",
  "schema",
  "parser",
  "zeppelin",
  "kubernetes",
  "flaky",
  "login",
  "cache",
];

/** A deterministic pseudo-random stream of numbers in [0, 1) (mulberry32). */
export function randomStream(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Write `count` sessions of 2–11 turns under `<claudeRoot>/projects`, the words skewed so that the first ones are
 * common; `extra` is added to every prompt. The same seed writes the same sessions.
 */
export function writeRankingSessions(claudeRoot: string, count: number, seed: number, extra = ""): void {
  const random = randomStream(seed);
  const word = () => rankingWords[Math.floor(random() ** 2 * rankingWords.length)]!;
  for (let session = 0; session < count; session++) {
    const id = `${String(seed).padStart(4, "0")}${String(session).padStart(4, "0")}-0000-4000-8000-000000000000`;
    writeClaudeSession(join(claudeRoot, "projects", `-home-u-p${session % 6}`, `${id}.jsonl`), {
      sessionId: id,
      cwd: `/home/u/p${session % 6}`,
      turns: Array.from({ length: 2 + Math.floor(random() * 10) }, (_, turn) => ({
        prompt: `${fillerText(seed * 1000 + session * 20 + turn, 2 + Math.floor(random() * 8))} ${word()} ${word()} ${extra}`,
        response: `${fillerText(seed * 1000 + session * 20 + turn + 7, 5 + Math.floor(random() * 30))} ${random() < 0.5 ? word() : ""} ${random() < 0.3 ? `${word()} ${word()}` : ""}`,
      })),
    });
  }
}

/** A query as its phrases (FTS5 fragments) and whether every phrase must match. */
export interface PhraseQuery {
  phrases: string[];
  every: boolean;
}

/** 300 queries: 1–4 phrases (words, two-word phrases, three-letter prefixes), all or any of them. */
export function rankingQueries(): PhraseQuery[] {
  const random = randomStream(42);
  const pick = () => rankingWords[Math.floor(random() * rankingWords.length)]!;
  const phrase = () => {
    const roll = random();
    if (roll < 0.15) return `"${pick()} ${pick()}"`;
    if (roll < 0.25) return `"${pick().slice(0, 3)}"*`;
    return `"${pick()}"`;
  };
  const out: PhraseQuery[] = [];
  for (let i = 0; i < 300; i++) {
    const phrases = [...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, phrase))];
    out.push({ phrases, every: random() < 0.5 });
  }
  return out;
}
