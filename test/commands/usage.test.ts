/**
 * Command-line trip-ups of issue 26, through the real CLI: `recall help`, every usage error on a line of its own (and
 * all of them in the `--json` error object), an option given without its value, and `--session` implying `--depth 2`.
 * Spawns `bun src/cli.ts` with RECALL_HOME and HOME in a temp dir, on the example history shipped with recall.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-usage-"));
mkdirSync(join(work, "home"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const examples = [
  "--claude-dir",
  join(repo, "examples/claude-code"),
  "--opencode-dir",
  join(repo, "examples/opencode"),
];

/** Run the CLI as a user would; RECALL_HOME is private to the test, HOME is empty. */
function recall(args: string[]) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: join(work, "home"),
    RECALL_HOME: join(work, "recall-home"),
  };
  for (const key of sourceLocationVariables) delete env[key];
  const { exitCode: code, stdout, stderr } = runCli([...args], env);
  return { code, stdout, stderr };
}

describe("recall help (issue 26)", () => {
  test("`recall help` prints what `recall --help` prints and exits 0; `recall help <command>` is `<command> --help`", () => {
    const general = recall(["--help"]);
    const help = recall(["help"]);
    expect(help).toEqual({ code: 0, stdout: general.stdout, stderr: "" });
    expect(help.stdout).toContain("recall help <command>");
    for (const command of [["search"], ["forget"], ["model", "use"]]) {
      const viaHelp = recall(["help", ...command]);
      expect({ command, code: viaHelp.code }).toEqual({ command, code: 0 });
      expect(viaHelp.stdout).toBe(recall([...command, "--help"]).stdout);
      expect(viaHelp.stdout).toContain(`recall ${command.join(" ")}`);
    }
  });

  test("`recall help` of a command that does not exist is a usage error naming it, not the general help", () => {
    const result = recall(["help", "serch"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("recall: not a valid subcommand name: serch (did you mean search?)");
  });
});

describe("usage errors say every problem (issue 26)", () => {
  test("each error is one line of its own, then one hint; cmd-ts' 'found N errors' box is gone; exit 2", () => {
    const result = recall(["search", "--bogus", "--limit", "lots", "--depth", "3"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      "recall: no value provided for query",
      "recall: --depth 3: invalid value '3'; expected one of: '1', '2'",
      "recall: --limit lots: not a number",
      "recall: unknown arguments: --bogus",
      "hint: run `recall search --help`",
    ]);
  });

  test("an error about several words names each of them", () => {
    const result = recall(["search", "--bogus", "--other", "word"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("recall: unknown arguments: --bogus, --other word\n");
    expect(result.stderr).toContain("recall: no value provided for query\n");
  });

  test("under --json all of them are in the one documented error object", () => {
    const result = recall(["search", "--json", "--bogus", "--limit", "lots"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      error: {
        code: "USAGE",
        message: "no value provided for query; --limit lots: not a number; unknown arguments: --bogus",
        hint: "run `recall search --help`",
        candidates: [],
      },
    });
  });

  test("an option without its value is an error, last on the line or followed by another flag, not silently dropped", () => {
    const last = recall(["search", "docker", "--session"]);
    expect(last.code).toBe(2);
    expect(last.stderr).toContain("recall: no value given for --session\n");
    const beforeFlag = recall(["search", "docker", "--session", "--json", ...examples]);
    expect(beforeFlag.code).toBe(2);
    expect(JSON.parse(beforeFlag.stderr.trim()).error.message).toBe("no value given for --session (--json is a flag)");
    const short = recall(["sessions", "-n"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("recall: no value given for -n\n");
    // After `--` every word is the query's, flags included.
    expect(recall(["search", "--json", ...examples, "--", "--session"]).code).toBe(0);
  });
});

describe("--session implies --depth 2 (issue 26)", () => {
  test("a search inside one session by id prefix returns its turns without --depth 2", () => {
    const result = recall(["search", "curl 172.17.0.1", "--session", "23d3db6a", "--json", ...examples]);
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.level).toBe("turn");
    expect(response.results.length).toBeGreaterThan(0);
    for (const turn of response.results) expect(turn.session_id).toBe("23d3db6a-c189-41e8-b15e-e3dfa565d49f");
  });

  test("the help says so, and --depth 1 with --session is a usage error", () => {
    expect(recall(["search", "--help"]).stdout).toContain("implies --depth 2");
    const result = recall(["search", "curl", "--session", "23d3db6a", "--depth", "1", ...examples]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--session searches turns");
  });
});
