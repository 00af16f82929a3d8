/**
 * Issue 11: Codex CLI and Gemini CLI history through the CLI as a user runs it (`--codex-dir`, `--gemini-dir`):
 * both are indexed next to each other, found by their own words, filtered by `--source`, shown at level 3, and
 * each result names the command that resumes it in its own agent. Parsing details are tested in
 * test/parsers/codex*.test.ts and gemini-cli*.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-agents-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const home = join(work, "home");
mkdirSync(home);
const sources = [
  "--codex-dir",
  join(repo, "test/fixtures/codex/home"),
  "--gemini-dir",
  join(repo, "test/fixtures/gemini-cli/dot-gemini"),
];

function recall(args: string[]) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: home,
    RECALL_HOME: join(work, "recall-home"),
  };
  for (const key of [...sourceLocationVariables]) delete env[key];
  const { exitCode: code, stdout, stderr } = runCli([...args, ...sources], env);
  return { code, stdout, stderr };
}

interface JsonResult {
  session_id: string;
  source: string;
  resume_command: string;
  turn?: number;
}

describe("Codex CLI and Gemini CLI sessions through the CLI (issue 11)", () => {
  test("recall index reads both agents' folders", () => {
    const result = recall(["index", "--keyword-only"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/indexed: \d+ added/);
    const sessions = JSON.parse(recall(["sessions", "--json", "--limit", "50"]).stdout).sessions as Array<{
      source: string;
    }>;
    expect(new Set(sessions.map((session) => session.source))).toEqual(new Set(["codex", "gemini-cli"]));
  });

  test("a Codex turn is found by its words and resumes with `codex resume <id>` in its project", () => {
    const result = recall(["search", "trigram index instead", "--json", "--no-reindex"]);
    expect(result.code).toBe(0);
    const top = JSON.parse(result.stdout).results[0] as JsonResult;
    expect(top.source).toBe("codex");
    expect(top.session_id).toBe("019c0000-ffff-7000-8000-00000000000f");
    expect(top.resume_command).toMatch(/codex resume 019c0000-ffff-7000-8000-00000000000f$/);
  });

  test("a Gemini turn is found by its words and resumes with `gemini --resume <id>` in the project from .project_root", () => {
    const result = recall(["search", "CSV export", "--json", "--no-reindex"]);
    const top = JSON.parse(result.stdout).results[0] as JsonResult;
    expect(top.source).toBe("gemini-cli");
    expect(top.session_id).toBe("bbbb2222-0000-4000-8000-000000000002");
    expect(top.resume_command).toBe("cd /home/dev/shop-app && gemini --resume bbbb2222-0000-4000-8000-000000000002");
  });

  test("--source keeps one agent; an unknown one is a usage error naming every source", () => {
    const codexOnly = JSON.parse(recall(["search", "index", "--source", "codex", "--json", "--no-reindex"]).stdout)
      .results as JsonResult[];
    expect(codexOnly.length).toBeGreaterThan(0);
    expect(codexOnly.every((result) => result.source === "codex")).toBe(true);
    const bad = recall(["search", "index", "--source", "vim", "--no-reindex"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("use one of: claude-code, opencode, codex, gemini-cli, cursor, aider");
  });

  test("recall show re-reads a Codex and a Gemini session with the resume line", () => {
    const codex = recall(["show", "019c0000-ffff:1", "--no-reindex"]);
    expect(codex.code).toBe(0);
    expect(codex.stdout).toContain("> Try a trigram index instead");
    expect(codex.stdout).toContain("codex resume 019c0000-ffff-7000-8000-00000000000f");
    const gemini = recall(["show", "bbbb2222:1-2", "--no-reindex"]);
    expect(gemini.code).toBe(0);
    expect(gemini.stdout).toContain("> Add a CSV export");
    expect(gemini.stdout).toContain("> Also support TSV");
  });

  test("nothing from the credentials file next to the chats reaches the index", () => {
    // the file's own words as one quoted phrase: a phrase has no any-term fallback, so only a copy of the file matches
    expect(
      JSON.parse(
        recall(["search", '"credentials file: must never be listed or read"', "--json", "--no-reindex"]).stdout,
      ).results,
    ).toEqual([]);
  });
});
