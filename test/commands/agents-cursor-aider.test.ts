/**
 * Issue 11: Cursor and Aider history through the CLI as a user runs it. Cursor from `--cursor-dir` (a `User` folder
 * built by test/fixtures/cursor/make-db.ts); Aider without any flag, found in the project folder a Claude Code session
 * worked in (Aider has no home folder: src/index/plan/known-projects.ts), and from `--aider-dir`. Parsing details are in
 * test/parsers/cursor*.test.ts and aider*.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makeCursorUserFolder, secretToken } from "../fixtures/cursor/make-db.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-cursor-aider-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const home = join(work, "home");
mkdirSync(home);
const cursor = makeCursorUserFolder(join(work, "cursor"));
const project = join(work, "projects", "greeter");
mkdirSync(project, { recursive: true });
copyFileSync(
  join(repo, "test/fixtures/aider/project-a/.aider.chat.history.md"),
  join(project, ".aider.chat.history.md"),
);
const claude = join(work, "claude");
writeClaudeSession(join(claude, "-greeter", "3f0c2a4e-1111-4111-8111-000000000001.jsonl"), {
  sessionId: "3f0c2a4e-1111-4111-8111-000000000001",
  cwd: project,
  turns: [{ prompt: "set up the greeter package", response: "Created pyproject.toml." }],
});

function recall(args: string[], sources: string[]) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: home,
    RECALL_HOME: join(work, "recall-home"),
  };
  for (const key of [...sourceLocationVariables]) delete env[key];
  const { exitCode: code, stdout, stderr } = runCli([...args, ...sources], env);
  return { code, stdout, stderr };
}

const sources = ["--claude-dir", claude, "--cursor-dir", cursor.user];
const top = (stdout: string) =>
  JSON.parse(stdout).results[0] as { session_id: string; source: string; resume_command: string; project_path: string };

describe("Cursor and Aider sessions through the CLI (issue 11)", () => {
  test("one index run reads Claude Code, Cursor, and the Aider history in the Claude session's project folder", () => {
    const result = recall(["index", "--keyword-only"], sources);
    expect(result.code).toBe(0);
    const sessions = JSON.parse(recall(["sessions", "--json", "--limit", "50", "--no-reindex"], sources).stdout)
      .sessions as Array<{ source: string }>;
    expect(new Set(sessions.map((session) => session.source))).toEqual(new Set(["claude-code", "cursor", "aider"]));
  });

  test("an Aider session is found by its words and resumes with aider --restore-chat-history in its project", () => {
    const result = recall(["search", "rename the function greet to hello", "--json", "--no-reindex"], sources);
    expect(result.code).toBe(0);
    const hit = top(result.stdout);
    expect(hit.source).toBe("aider");
    expect(hit.project_path).toBe(project);
    expect(hit.resume_command).toBe(`cd ${project} && aider --restore-chat-history`);
  });

  test("a Cursor chat is found by its words, with its workspace folder and a command that opens it", () => {
    const result = recall(["search", "why is the cart empty", "--json", "--no-reindex"], sources);
    const hit = top(result.stdout);
    expect(hit.source).toBe("cursor");
    expect(hit.project_path).toBe("/home/dev/shop");
    expect(hit.resume_command).toBe("cursor /home/dev/shop");
  });

  test("Cursor's auth token never reaches the index", () => {
    expect(
      JSON.parse(recall(["search", `"${secretToken}"`, "--json", "--no-reindex"], sources).stdout).results,
    ).toEqual([]);
  });

  test("--aider-dir finds a history below a folder no session names", () => {
    const elsewhere = join(work, "elsewhere", "deep", "tool");
    mkdirSync(elsewhere, { recursive: true });
    copyFileSync(
      join(repo, "test/fixtures/aider/project-a/.aider.chat.history.md"),
      join(elsewhere, ".aider.chat.history.md"),
    );
    const withDir = [...sources, "--aider-dir", join(work, "elsewhere")];
    expect(recall(["index", "--keyword-only"], withDir).code).toBe(0);
    const found = JSON.parse(
      recall(["search", "rename the function greet to hello", "--json", "--no-reindex", "--source", "aider"], withDir)
        .stdout,
    ).results as Array<{ project_path: string }>;
    expect([...new Set(found.map((result) => result.project_path))].sort()).toEqual([elsewhere, project].sort());
  });
});
