/**
 * Issue 14: a command loads what it uses. app.ts wires a command from its flags alone (src/commands/<name>.ts), only the
 * command the line names (every one for --help, issue 42), and the handler (src/commands/<name>-handler.ts) is loaded
 * when that command runs; a keyword-only search never loads the embedding side (embedder, embedding helper client,
 * vector store). Checked on real runs of `bun src/cli.ts`
 * with a preload that records every module the process loaded (test/commands/module-recorder.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { repo, runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-lazy-"));
mkdirSync(join(work, "home"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const examples = [
  "--claude-dir",
  join(repo, "examples/claude-code"),
  "--opencode-dir",
  join(repo, "examples/opencode"),
];

/** What a command does, loaded when it runs: `commands/<name>-handler.ts`, or `handler.ts` of the picker, web view and MCP. */
const isHandler = (path: string): boolean => path.endsWith("-handler.ts") || path.endsWith("/handler.ts");

/** Runs `bun src/cli.ts <args>`; resolves the exit code and the src/ modules it loaded, relative to src/ (`commands/search.ts`). */
function loadedBy(args: string[]): { code: number; modules: string[] } {
  const listFile = join(work, `modules-${Math.random().toString(36).slice(2)}.txt`);
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: join(work, "home"),
    RECALL_HOME: join(work, "recall-home"),
    RECALL_TEST_MODULES_FILE: listFile,
  };
  for (const key of sourceLocationVariables) delete env[key];
  const result = runCli(args, env, { bunArgs: ["--preload", join(repo, "test/commands/module-recorder.ts")] });
  const src = join(repo, "src");
  const modules = readFileSync(listFile, "utf8")
    .split("\n")
    .filter((path) => path.startsWith(`${src}/`))
    .map((path) => relative(src, path));
  return { code: result.exitCode, modules };
}

describe("commands load what they use (issue 14)", () => {
  beforeAll(() => {
    expect(loadedBy(["index", "--keyword-only", ...examples]).code).toBe(0);
  });

  test("--help wires every command without loading any handler, the search API or the embedding layer", () => {
    const { code, modules } = loadedBy(["--help"]);
    expect(code).toBe(0);
    expect(modules).toContain("commands/search.ts");
    expect(modules).toContain("commands/watch.ts");
    const loadedOnUse = modules.filter(
      (path) => isHandler(path) || ["search/api.ts", "render/search-explain.ts", "embed/index.ts"].includes(path),
    );
    expect(loadedOnUse).toEqual([]);
  });

  test("a keyword-only search loads the search handler only, and nothing of the embedding side", () => {
    const { code, modules } = loadedBy(["search", "postgres", "--keyword-only", "--no-reindex", "--json", ...examples]);
    expect(code).toBe(0);
    expect(modules.filter(isHandler)).toEqual(["commands/search-handler.ts"]);
    // the search's own flags are wired, no other command's (issue 42)
    expect(modules).toContain("commands/search.ts");
    const otherDefinitions = ["commands/watch.ts", "commands/sessions.ts", "commands/show.ts", "pick/command.ts"];
    expect(modules.filter((path) => otherDefinitions.includes(path))).toEqual([]);
    const embeddingSide = modules.filter(
      (path) =>
        // presets and the model-family table are pure data the calibration lookup reads (search/ranking/calibration.ts)
        (path.startsWith("embed/") && !["embed/presets.ts", "embed/model-family.ts"].includes(path)) ||
        (path.startsWith("mcp/") && path !== "mcp/command.ts") || // the command's flags are wired like every other
        path.startsWith("native/") || // the vector store (index/vectors/reembed-progress.ts is apart from it)
        [
          "service/search-semantic.ts",
          "service/embedder.ts",
          "service/query-embedder.ts",
          "service/vector-leg.ts",
          "search/ranking/vector.ts",
        ].includes(path),
    );
    expect(embeddingSide).toEqual([]);
  });

  test("a hybrid search does load the embedding side (it falls back to keyword-only without vectors)", () => {
    const { code, modules } = loadedBy(["search", "postgres", "--no-reindex", "--json", ...examples]);
    expect(code).toBe(0);
    expect(modules).toContain("service/search-semantic.ts");
    expect(modules).toContain("service/vector-leg.ts");
  });
});
