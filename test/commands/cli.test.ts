import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { sourceIds, sourceLocationVariables } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-cli-"));
mkdirSync(join(work, "none")); // an empty OpenCode folder: a named folder must exist (issue 15)
const emptyHome = join(work, "home");
mkdirSync(emptyHome);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const examples = [
  "--claude-dir",
  join(repo, "examples/claude-code"),
  "--opencode-dir",
  join(repo, "examples/opencode"),
];

/** The test's environment without anything that points at real history (unset, not empty: Bun reads an empty XDG_CACHE_HOME as the cwd). */
function userEnv(overrides: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, ...overrides };
  for (const key of [...sourceLocationVariables]) delete env[key];
  return env;
}

/** Run the CLI as a user would; RECALL_HOME is private to the test, HOME is empty. */
function recall(args: string[], options: { home?: string; recallHome?: string } = {}) {
  const {
    exitCode: code,
    stdout,
    stderr,
  } = runCli(
    [...args],
    userEnv({ HOME: options.home ?? emptyHome, RECALL_HOME: options.recallHome ?? join(work, "recall-home") }),
  );
  return { code, stdout, stderr };
}

describe("recall CLI", () => {
  test("--help lists the commands on stdout and exits 0; --version prints the version", () => {
    const help = recall(["--help"]);
    expect(help.code).toBe(0);
    for (const name of ["search", "show", "sessions", "index", "status"]) expect(help.stdout).toContain(name);
    const version = recall(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  test("a folder named by a flag that does not exist fails with its path, for index and search, and indexes nothing (issue 15)", () => {
    const home = join(work, "typo-home");
    for (const command of [["index"], ["search", "docker"]]) {
      const result = recall([...command, "--claude-dir", "~/.claude/projectz", "--opencode-dir", join(work, "none")], {
        home,
        recallHome: join(work, "recall-typo"),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("--claude-dir ~/.claude/projectz: no such folder");
      expect(result.stderr).toContain("check the path for a typo");
      expect(result.stderr).not.toContain("    at ");
    }
    expect(existsSync(join(work, "recall-typo", "index.sqlite"))).toBe(false);
  });

  test("usage errors exit 2 with a one-line reason and no stack trace", () => {
    for (const args of [
      ["search", "   ", ...examples],
      ["search", "x", "--depth", "3"],
      ["search", "x", "--bogus"],
      ["serch", "x"],
      ["search", "x", "--since", "yesterday-ish", ...examples],
      ["search", "x", "--session", "abc", "--depth", "1"],
    ]) {
      const result = recall(args);
      expect(result.code).toBe(2);
      expect(result.stderr).not.toMatch(/\n\s+at .*:\d+/);
    }
    expect(recall(["search", "   ", ...examples]).stderr).toContain("the search query is empty");
  });

  test("a query of spaces, of invisible characters only, or of bytes that are not UTF-8 is the same usage error (issue 38, item 16)", () => {
    // The shell puts the bytes in argv (Bun's spawn takes only strings); it execs the harness's bun ($0) and cli ($1).
    const notUtf8 = runCli([], userEnv({ HOME: emptyHome, RECALL_HOME: join(work, "recall-home") }), {
      prefix: ["sh", "-c", `exec "$0" "$1" search "$(printf '\\377\\376')" ${examples.join(" ")}`],
    });
    const results = [
      recall(["search", "   ", ...examples]),
      recall(["search", "\u200b\ufeff \u202e", ...examples]),
      { code: notUtf8.exitCode, stdout: notUtf8.stdout, stderr: notUtf8.stderr },
    ];
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.split("\n")[0]).toBe("recall: the search query is empty: it has no visible characters");
    }
  });

  test("under --json every error is the documented JSON object: cmd-ts' usage errors and a RECALL_HOME below a file too (issue 15)", () => {
    const cases: Array<{ args: string[]; code: number; errorCode: string; message: string }> = [
      {
        args: ["search", "x", "--json", "--bogus", ...examples],
        code: 2,
        errorCode: "USAGE",
        message: "unknown arguments: --bogus",
      },
      { args: ["serch", "x", "--json"], code: 2, errorCode: "USAGE", message: "not a valid subcommand name: serch" },
      {
        args: ["search", "--json", "--limit", "lots"],
        code: 2,
        errorCode: "USAGE",
        message: "no value provided for query; --limit lots: not a number",
      },
      {
        args: ["sessions", "--json", "--since", "2026-02-30", ...examples],
        code: 2,
        errorCode: "USAGE",
        message: "2026-02-30",
      },
    ];
    for (const { args, code, errorCode, message } of cases) {
      const result = recall(args);
      expect({ args, code: result.code }).toEqual({ args, code });
      const lines = result.stderr.trim().split("\n");
      const error = JSON.parse(lines.at(-1)!).error;
      expect(error.code).toBe(errorCode);
      expect(error.message).toContain(message);
      expect(error.hint).toBeTruthy();
      expect(result.stderr).not.toContain("error: found");
    }
    const file = join(work, "a-file");
    Bun.write(file, "not a folder");
    for (const command of [["search", "docker"], ["status"], ["doctor"], ["sessions"]]) {
      const result = recall([...command, "--json", ...examples], { recallHome: join(file, "recall") });
      expect({ command, code: result.code }).toEqual({ command, code: 1 });
      const combined = result.stdout + result.stderr;
      expect(combined).not.toContain("ENOTDIR");
      expect(combined).not.toContain("unexpected error");
      expect(combined).toContain("a file is in the way on its path");
    }
  });

  test("search --json follows the documented contract and finds the session by its own words", () => {
    const result = recall(["search", "containers cannot reach postgres on the host", "--json", ...examples]);
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response).toMatchObject({
      version: 1,
      level: "session",
      mode: "keyword",
      searched: { sessions: 12, projects: 6, sources: ["claude-code", "opencode"] },
    });
    const first = response.results[0];
    expect(first.session_id).toBe("23d3db6a-c189-41e8-b15e-e3dfa565d49f");
    expect(first).toMatchObject({
      source: "claude-code",
      project: "platform-deploy",
      project_path: "/home/dev/infra/platform-deploy",
      turns: 4,
    });
    expect(first.started_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(first.score).toBeGreaterThan(0);
    expect(first.score).toBeLessThanOrEqual(1);
    expect(typeof first.preview).toBe("string");
    expect(Array.isArray(first.files)).toBe(true);
    expect(first.next_command).toContain("--depth 2 --session 23d3db6a-c189-41e8-b15e-e3dfa565d49f");
    // The fallback to keyword-only is said on stderr, never mixed into stdout.
    expect(result.stderr).toContain("keyword-only");
  });

  test("level 2 inside one session by id prefix returns turns with the whole prompt and a show command", () => {
    const result = recall([
      "search",
      "curl 172.17.0.1",
      "--depth",
      "2",
      "--session",
      "23d3db6a",
      "--json",
      ...examples,
    ]);
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.level).toBe("turn");
    expect(response.results.length).toBeGreaterThan(0);
    for (const turn of response.results) expect(turn.session_id).toBe("23d3db6a-c189-41e8-b15e-e3dfa565d49f");
    const best = response.results[0];
    expect(best.prompt).toContain("curl 172.17.0.1:5432");
    expect(best.show_command).toMatch(/^recall show 23d3db6a-c189-41e8-b15e-e3dfa565d49f:\d+-\d+$/);
  });

  test("text output has the header, the session line, the preview and the drill-deeper hint", () => {
    const result = recall(["search", "flaky login test timezone", ...examples]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Searched 12 sessions across 6 projects \(claude-code, opencode\)/);
    expect(result.stdout).toMatch(
      /\[\d\.\d\d\] \[claude-code\] session=f7dd9101-a59 project=shop-web date=2026-02-\d\d turns=4/,
    );
    // The preview is cut from the best turn around the most query words, with those words marked.
    expect(result.stdout).toMatch(/\[(flaky|login|test|timezones?)\]/);
    expect(result.stdout).toContain("→ drill deeper: recall search");
  });

  test("show prints the header, the prompt and compact tool calls of the chosen turns", () => {
    const result = recall(["show", "23d3db6a:1-2", ...examples]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Showing turns 1-2 of 4");
    expect(result.stdout).toContain("project: /home/dev/infra/platform-deploy");
    expect(result.stdout).toMatch(/\[Bash\] \S/);
    expect(result.stdout).toContain("── Turn 2 ");
    expect(result.stdout).not.toContain("── Turn 3 ");
    const json = JSON.parse(recall(["show", "23d3db6a:2", "--json", ...examples]).stdout);
    expect(json.turns.map((turn: { turn: number }) => turn.turn)).toEqual([2]);
    expect(json.session.session_id).toBe("23d3db6a-c189-41e8-b15e-e3dfa565d49f");
  });

  test("show of an unknown id exits 1 with 'no session matches'; an ambiguous prefix lists the candidates", () => {
    const unknown = recall(["show", "ffffffff-0000", ...examples]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no session matches ffffffff-0000");
    const root = join(work, "ambiguous");
    for (const suffix of ["1111", "2222"]) {
      const id = `abcdef12-0000-4000-8000-00000000${suffix}`;
      writeClaudeSession(join(root, "-x", `${id}.jsonl`), {
        sessionId: id,
        cwd: "/x",
        turns: [{ prompt: `hello ${suffix}`, response: "hi" }],
      });
    }
    const ambiguous = recall(["show", "abcdef12", "--claude-dir", root, "--opencode-dir", join(work, "none")], {
      recallHome: join(work, "recall-ambiguous"),
    });
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain("abcdef12 matches 2 sessions");
    expect(ambiguous.stderr).toContain("abcdef12-0000-4000-8000-000000001111");
    expect(ambiguous.stderr).toContain("abcdef12-0000-4000-8000-000000002222");
    // Issue 15: any unique prefix is enough; a short one that matches several is called too short.
    const short = recall(["show", "abcd", "--claude-dir", root, "--opencode-dir", join(work, "none")], {
      recallHome: join(work, "recall-ambiguous"),
    });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("the prefix abcd is too short: it matches 2 sessions");
    const unique = recall(["show", "23d3", ...examples]);
    expect(unique.code).toBe(0);
    expect(unique.stdout).toContain("23d3db6a-c189-41e8-b15e-e3dfa565d49f");
    // A session's turn past its last one does not exist, even for a session without turns.
    const past = recall(["show", "23d3:99", ...examples]);
    expect(past.code).toBe(1); // a failure like an unknown session, not a usage error (issue 38, item 15)
    expect(past.stderr).toMatch(/has \d+ turns; turn 99 does not exist/);
  });

  test("sessions --json lists newest first with full ids and ISO times", () => {
    const result = recall(["sessions", "--json", "--source", "opencode", ...examples]);
    expect(result.code).toBe(0);
    const { sessions } = JSON.parse(result.stdout);
    expect(sessions.length).toBe(4);
    const ended = sessions.map((s: { ended_at: string }) => Date.parse(s.ended_at));
    expect([...ended].sort((a, b) => b - a)).toEqual(ended);
    for (const session of sessions) {
      expect(session.session_id).toMatch(/^ses_/);
      expect(Object.keys(session)).toEqual(
        expect.arrayContaining([
          "session_id",
          "source",
          "project",
          "project_path",
          "title",
          "started_at",
          "ended_at",
          "turns",
          "parent_session_id",
        ]),
      );
    }
  });

  test("status --json reports counts per source and that the index is up to date", () => {
    const indexed = recall(["index", "--json", ...examples]);
    expect(JSON.parse(indexed.stdout).version).toBe(1); // issue 15: index and status --json carry the contract's version
    const result = recall(["status", "--json", ...examples]);
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout);
    expect(status.version).toBe(1);
    expect(status.sessions).toBe(13);
    expect(status.stale).toBe(false);
    expect(status.by_source.map((row: { source: string }) => row.source)).toEqual(["claude-code", "opencode"]);
  });

  test("a machine with no agent history says so in one line and searches the shipped examples", () => {
    const result = recall(["search", "websocket memory leak", "--json"], { recallHome: join(work, "recall-fresh") });
    expect(result.code).toBe(0);
    const line = result.stderr.split("\n").find((text) => text.includes("no agent history found"))!;
    // one readable line, not every default folder of every agent (41 paths with 24 agents); doctor lists them
    expect(line).toContain(`default places of the ${sourceIds.length} agents recall reads (\`recall doctor\` lists`);
    expect(line.length).toBeLessThan(300);
    expect(JSON.parse(result.stdout).results[0].session_id).toBe("7a5e3b10-8c95-4851-9e9b-75de80faf166");
  });
});
