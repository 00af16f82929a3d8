/**
 * Issue 13, agent-sized answers: `recall search --format index|full`, `--max-chars N` with its truncation
 * marker, long fields cut with a marker, `--offset`, and `--explain`. Every test runs the real CLI on the
 * examples (and on one written session holding a 68 KB pasted prompt).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-format-"));
mkdirSync(join(work, "none")); // an empty OpenCode folder: a named folder must exist (issue 15)
const home = join(work, "home");
mkdirSync(home);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const examples = [
  "--claude-dir",
  join(repo, "examples/claude-code"),
  "--opencode-dir",
  join(repo, "examples/opencode"),
];

function recall(args: string[], recallHome = join(work, "recall-home")) {
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, RECALL_HOME: recallHome };
  for (const key of [...sourceLocationVariables]) delete env[key];
  const { exitCode: code, stdout, stderr } = runCli([...args], env);
  return { code, stdout, stderr };
}

/** A printed `recall search …` command (unquoted words only) as CLI arguments. */
const argsOf = (command: string) => command.replace(/^recall /, "").split(" ");

describe("search output formats (issue 13)", () => {
  test("--json --format index keeps only ids, project, title, date, score, confidence, best turn and a one-line preview, at a fraction of the size", () => {
    const full = recall(["search", "the", "--keyword-only", "--limit", "10", "--json", ...examples]);
    const index = recall([
      "search",
      "the",
      "--keyword-only",
      "--limit",
      "10",
      "--json",
      "--format",
      "index",
      ...examples,
    ]);
    expect(full.code).toBe(0);
    expect(index.code).toBe(0);
    const fullResults = JSON.parse(full.stdout).results;
    const answer = JSON.parse(index.stdout);
    expect(answer).toMatchObject({ version: 1, level: "session", format: "index", truncated: null });
    expect(answer.results.length).toBe(10);
    for (const result of answer.results) {
      expect(Object.keys(result)).toEqual([
        "session_id",
        "project",
        "title",
        "abstract",
        "ended_at",
        "score",
        "confidence",
        "confident",
        "best_turn",
        "branch",
        "preview",
      ]);
      expect(result.preview.length).toBeLessThanOrEqual(90);
      expect(result.preview).not.toContain("\n");
    }
    expect(answer.results.map((r: { session_id: string }) => r.session_id)).toEqual(
      fullResults.map((r: { session_id: string }) => r.session_id),
    );
    expect(index.stdout.length * 2).toBeLessThan(full.stdout.length);
  });

  test("--depth 2 --format index gives turns with the prompt and excerpt on one line each; text index is two lines per result", () => {
    const json = JSON.parse(
      recall(["search", "postgres", "--keyword-only", "--depth", "2", "--json", "--format", "index", ...examples])
        .stdout,
    );
    expect(json.level).toBe("turn");
    expect(json.results.length).toBeGreaterThan(0);
    for (const result of json.results)
      expect(Object.keys(result)).toEqual([
        "session_id",
        "turn",
        "branch",
        "project",
        "title",
        "timestamp",
        "score",
        "confidence",
        "confident",
        "prompt",
        "preview",
      ]);
    const text = recall(["search", "postgres", "--keyword-only", "--format", "index", ...examples]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split("\n").slice(2);
    expect(lines.length).toBe(
      2 *
        json.results.filter(
          (r: { session_id: string }, i: number, all: Array<{ session_id: string }>) =>
            all.findIndex((o) => o.session_id === r.session_id) === i,
        ).length,
    );
    expect(lines[0]).toMatch(/^1\. \d\.\d\d \S+ \d{4}-\d\d-\d\d /);
    expect(lines[1]).toMatch(/^ {3}\S/);
  });

  test("--max-chars caps the whole answer, names what was left out, and the printed command prints exactly those results", () => {
    const whole = JSON.parse(
      recall(["search", "the", "--keyword-only", "--limit", "10", "--json", "--format", "index", ...examples]).stdout,
    );
    const capped = recall([
      "search",
      "the",
      "--keyword-only",
      "--limit",
      "10",
      "--json",
      "--format",
      "index",
      "--max-chars",
      "900",
      ...examples,
    ]);
    expect(capped.code).toBe(0);
    expect(capped.stdout.length).toBeLessThanOrEqual(900);
    const answer = JSON.parse(capped.stdout);
    const shown = answer.results.length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(10);
    expect(answer.truncated).toMatchObject({ results_shown: shown, results_omitted: 10 - shown });
    expect(answer.truncated.chars_omitted).toBeGreaterThan(0);
    expect(answer.truncated.next_command).toContain(`--offset ${shown} --limit ${10 - shown}`);
    // Following the printed commands page by page gives back exactly the uncapped answer, each page within the cap.
    const ids = (list: Array<{ session_id: string }>) => list.map((r) => r.session_id);
    const seen = ids(answer.results);
    for (let page = answer, pages = 0; page.truncated && pages < 10; pages++) {
      const next = recall([...argsOf(page.truncated.next_command), ...examples]);
      expect(next.stdout.length).toBeLessThanOrEqual(900);
      page = JSON.parse(next.stdout);
      seen.push(...ids(page.results));
    }
    expect(seen).toEqual(ids(whole.results));

    const text = recall(["search", "the", "--keyword-only", "--limit", "10", "--max-chars", "600", ...examples]);
    expect(text.stdout.length).toBeLessThanOrEqual(600);
    expect(text.stdout).toMatch(/\[truncated by --max-chars: \d+ of 10 results \(\d+ characters\) left out; /);
  });

  test("when not even one result fits, the marker names the cap that fits it and the index format", () => {
    const text = recall(["search", "the", "--keyword-only", "--max-chars", "300", ...examples]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("[truncated by --max-chars: 5 of 5 results");
    const needed = Number(/the first result alone needs --max-chars (\d+)/.exec(text.stdout)?.[1]);
    expect(needed).toBeGreaterThan(300);
    expect(text.stdout).toContain("--format index");
    const retry = recall(["search", "the", "--keyword-only", "--max-chars", String(needed), ...examples]);
    expect(retry.stdout.length).toBeLessThanOrEqual(needed);
    expect(retry.stdout).toMatch(/^\[\d\.\d\d\]( weak)? \[/m);
  });

  test("--max-chars is a hard cap even when the header and the marker alone would exceed it, in text and JSON (issue 26)", () => {
    const long = `the ${"supercalifragilistic ".repeat(30)}`.trim();
    for (const query of ["the", long]) {
      for (const format of [[], ["--format", "index"], ["--json"], ["--json", "--format", "index"]]) {
        for (const cap of ["300", "350", "400"]) {
          const out = recall(["search", query, "--keyword-only", "--max-chars", cap, ...format, ...examples]);
          expect(out.code).toBe(0);
          expect(out.stdout.length).toBeLessThanOrEqual(Number(cap));
          if (format.includes("--json")) {
            const answer = JSON.parse(out.stdout);
            expect(answer.results).toEqual([]);
            expect(answer.next_offset ?? 0).toBe(0);
            if (query === "the") expect(answer.truncated.results_shown).toBe(0);
            else expect(answer.query.length).toBeLessThan(long.length); // no match: only the query had to be cut
          } else if (query === "the") expect(out.stdout).toContain("[truncated by --max-chars:");
        }
      }
    }
  });

  test("next_offset is the first result left out by --max-chars, as the marker's command says (issue 26)", () => {
    const capped = JSON.parse(
      recall(["search", "the", "--keyword-only", "--limit", "10", "--json", "--max-chars", "2500", ...examples]).stdout,
    );
    const shown = capped.results.length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(10);
    expect(capped.next_offset).toBe(shown);
    expect(capped.truncated.next_command).toContain(`--offset ${shown} `);
    const paged = JSON.parse(
      recall([
        "search",
        "the",
        "--keyword-only",
        "--json",
        "--offset",
        "2",
        "--limit",
        "10",
        "--max-chars",
        "2500",
        ...examples,
      ]).stdout,
    );
    expect(paged.next_offset).toBe(2 + paged.results.length);
  });

  test("a 68 KB pasted prompt is cut with a marker naming the show command, in full and index JSON and in text", () => {
    const root = join(work, "har");
    const id = "4a7c1e2b-0000-4000-8000-000000000068";
    const har = `here is the HAR file of the failing checkout request ${'{"request": {"url": "https://shop.test/api/cart"}}, '.repeat(1400)}`;
    expect(har.length).toBeGreaterThan(68_000);
    writeClaudeSession(join(root, "-shop", `${id}.jsonl`), {
      sessionId: id,
      cwd: "/shop",
      turns: [
        { prompt: "hello", response: "hi" },
        { prompt: har, response: "The checkout fails on the cart call." },
      ],
    });
    const scope = ["--claude-dir", root, "--opencode-dir", join(work, "none"), "--keyword-only", "--depth", "2"];
    const recallHome = join(work, "recall-har");
    const full = recall(["search", "checkout HAR", "--json", ...scope], recallHome);
    expect(full.code).toBe(0);
    const prompt: string = JSON.parse(full.stdout).results[0].prompt;
    expect(prompt.length).toBeLessThan(2_200);
    expect(prompt).toMatch(new RegExp(`…\\[cut \\d+ characters; full text: recall show ${id}:2\\]$`));
    expect(full.stdout.length).toBeLessThan(4_000);
    const index = recall(["search", "checkout HAR", "--json", "--format", "index", ...scope], recallHome);
    expect(JSON.parse(index.stdout).results[0].prompt.length).toBeLessThanOrEqual(90);
    const text = recall(["search", "checkout HAR", ...scope], recallHome);
    expect(text.stdout.length).toBeLessThan(2_000);
  });

  test("--explain puts the terms, leg scores, vector weight and fused score in an explain field under --json, and on stderr otherwise", () => {
    const json = JSON.parse(
      recall(["search", "docker postgres", "--keyword-only", "--json", "--format", "index", "--explain", ...examples])
        .stdout,
    );
    const first = json.results[0];
    expect(first.explain).toMatchObject({
      terms: ["docker", "postgres"],
      vector_score: null,
      vector_weight: 0,
      score: first.score,
      boosts: [],
    });
    expect(first.explain.keyword_score).toBe(first.score);
    expect(first.explain.terms_in_preview.length).toBeGreaterThan(0);
    const plain = recall(["search", "docker postgres", "--keyword-only", ...examples]);
    const explained = recall(["search", "docker postgres", "--keyword-only", "--explain", ...examples]);
    expect(explained.stdout).toBe(plain.stdout);
    expect(explained.stderr).toContain("explain: keyword mode, query terms: docker, postgres");
    expect(explained.stderr).toMatch(
      /explain 1\. \S+ score 1\.0000 \(blend \(0\.00×vector — \+ 1\.00×keyword 1\.0000\) = 1\.0000\); boosts: none; in preview: /,
    );
  });

  test("sub-agent sessions show the down-ranking as a boost under --explain", () => {
    const answer = JSON.parse(
      recall([
        "search",
        "the",
        "--keyword-only",
        "--include-subagents",
        "--limit",
        "20",
        "--json",
        "--format",
        "index",
        "--explain",
        ...examples,
      ]).stdout,
    );
    const full = JSON.parse(
      recall(["search", "the", "--keyword-only", "--include-subagents", "--limit", "20", "--json", ...examples]).stdout,
    );
    const subagents = new Set(
      full.results
        .filter((r: { is_subagent: boolean }) => r.is_subagent)
        .map((r: { session_id: string }) => r.session_id),
    );
    expect(subagents.size).toBeGreaterThan(0);
    for (const result of answer.results) {
      const boosts = result.explain.boosts.map((b: { reason: string }) => b.reason);
      expect(boosts.includes("sub-agent session")).toBe(subagents.has(result.session_id));
    }
  });

  test("bad --format, --max-chars and --offset values are usage errors (exit 2, one line, no stack)", () => {
    for (const [args, message] of [
      [["--format", "xml"], "xml"],
      [["--max-chars", "50"], "--max-chars must be a whole number of at least 300, got 50"],
      [["--offset", "-1"], "--offset must be a whole number of at least 0, got -1"],
    ] as const) {
      const result = recall(["search", "x", ...args, ...examples]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toMatch(/\n\s+at .*:\d+/);
    }
  });
});
