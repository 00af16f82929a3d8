/**
 * The README's usage examples work as printed on the example history a new user sees first (issue 15: `recall
 * sessions --project shop --since 2w` listed nothing there). Every `recall search`, `recall show` and `recall
 * sessions` line of the "## Usage" block is run with an empty HOME (so recall falls back to its examples) and must
 * exit 0 with at least one result; the other lines (index, mcp, watch, forget, export) change state or never end.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { repo, runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-readme-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Splits a shell command line into words: double or single quotes group, nothing else is interpreted. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

/** The `recall search|show|sessions` lines of the README's Usage block, without their `# comment`. */
function usageExamples(): string[] {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const block = /## Usage\s+```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s{2,}#.*$/, "").trim())
    .filter((line) => /^recall (search|show|sessions)\b/.test(line));
}

describe("the README's usage examples on the example history", () => {
  const examples = usageExamples();

  test("the Usage block has search, show and sessions examples", () => {
    expect(examples.filter((line) => line.startsWith("recall search")).length).toBeGreaterThanOrEqual(3);
    expect(examples.some((line) => line.startsWith("recall show"))).toBe(true);
    expect(examples.some((line) => line.startsWith("recall sessions"))).toBe(true);
  });

  test.each(usageExamples())("%s", (line) => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      HOME: join(work, "home"),
      RECALL_HOME: join(work, "recall"),
      RECALL_OFFLINE: "1",
      NO_COLOR: "1",
    };
    for (const key of [
      ...sourceLocationVariables,
      "XDG_DATA_HOME",
      "XDG_CONFIG_HOME",
      "XDG_CACHE_HOME",
      "CLAUDE_CONFIG_DIR",
      "CODEX_HOME",
    ])
      delete env[key];
    const result = runCli(shellWords(line).slice(1), env);
    const stdout = result.stdout;
    expect({ line, code: result.exitCode, stderr: result.exitCode === 0 ? "" : result.stderr }).toEqual({
      line,
      code: 0,
      stderr: "",
    });
    expect(stdout).not.toMatch(/^No (sessions|matches|results)/m);
    const firstLine = stdout.trim().split("\n")[0] ?? "";
    expect(firstLine.length).toBeGreaterThan(0);
    if (line.includes("--json")) expect(JSON.parse(stdout).results.length).toBeGreaterThan(0);
    if (line.startsWith("recall sessions")) expect(stdout).toContain("shop");
  });
});
