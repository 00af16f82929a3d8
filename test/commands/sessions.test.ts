/**
 * `recall sessions` rough edges seen in a real run (issue 15): sessions without turns (summary-only files) listed
 * as `?`, `unknown`, `0 turns`; the same Windows project twice (`C:\` and `c:\`); "1 turns"; id columns misaligned
 * by ids of different lengths; no `--until` / `--branch`. Driven through the CLI on hand-made Claude Code files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { call, connectStdio, fromSource, isolatedEnv, textOf } from "../mcp/helpers.ts";

const work = mkdtempSync(join(tmpdir(), "recall-sessions-"));
const claude = join(work, "claude");
const noOpenCode = join(work, "no-opencode");
afterAll(() => rmSync(work, { recursive: true, force: true }));

const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`);

beforeAll(() => {
  mkdirSync(noOpenCode);
  writeClaudeSession(join(claude, "C--Users-me-Vault", "11111111-1111-4111-8111-111111111111.jsonl"), {
    sessionId: "11111111-1111-4111-8111-111111111111",
    cwd: "C:\\Users\\me\\Vault",
    gitBranch: "main",
    startMs: day("2026-03-01"),
    turns: [{ prompt: "set up the vault index", response: "done" }],
  });
  writeClaudeSession(join(claude, "c--Users-me-Vault", "22222222-2222-4222-8222-222222222222.jsonl"), {
    sessionId: "22222222-2222-4222-8222-222222222222",
    cwd: "c:\\users\\me\\vault",
    gitBranch: "feature/notes",
    startMs: day("2026-03-10"),
    turns: [
      { prompt: "add notes to the vault", response: "ok" },
      { prompt: "and tags", response: "ok" },
    ],
  });
  // A session id that is not a UUID (renamed by a tool), in a project with a CJK name.
  writeClaudeSession(join(claude, "-home-dev-项目", "short-id.jsonl"), {
    sessionId: "short-id",
    cwd: "/home/dev/项目",
    startMs: day("2026-03-20"),
    turns: [{ prompt: "解释这个项目", response: "好的" }],
  });
  // Only a summary line: a session without turns (formats.md §1.1).
  writeFileSync(
    join(claude, "-home-dev-项目", "33333333-3333-4333-8333-333333333333.jsonl"),
    '{"type":"summary","summary":"Old branch title","leafUuid":"x"}\n',
  );
});

function recall(args: string[]) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: work,
    RECALL_HOME: join(work, "home"),
    NO_COLOR: "1",
    TZ: "UTC",
  };
  for (const key of sourceLocationVariables) delete env[key];
  const result = runCli([...args, "--claude-dir", claude, "--opencode-dir", noOpenCode], env);
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

describe("a session without turns in show and MCP read_turns (issue 15: show printed 'turns 0-0 of 0' and accepted turn 2)", () => {
  test("shows the header and says there are no turns; a turn past the first fails (exit 1), as in MCP read_turns", () => {
    const whole = recall(["show", "33333333"]);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain("Old branch title");
    expect(whole.stdout).toContain("no turns: the source holds no prompt or answer");
    expect(whole.stdout).not.toContain("0-0 of 0");
    const past = recall(["show", "33333333:2"]);
    expect(past.code).toBe(1);
    expect(past.stderr).toContain("session 33333333-3333-4333-8333-333333333333 has 0 turns; turn 2 does not exist");
    expect(past.stdout).toBe("");
  });

  test("MCP read_turns says the same: no turns, and turn 2 is a tool error", async () => {
    const env = isolatedEnv(work, join(work, "home"), { TZ: "UTC" });
    const server = await connectStdio(
      [...fromSource, "mcp", "--no-watch", "--claude-dir", claude, "--opencode-dir", noOpenCode],
      env,
    );
    try {
      const whole = await call(server.client, "read_turns", { session: "33333333" });
      expect(whole.isError).toBeFalsy();
      expect(textOf(whole)).toContain("no turns: the source holds no prompt or answer");
      expect(textOf(whole)).not.toContain("0-0 of 0");
      const past = await call(server.client, "read_turns", { session: "33333333", from: 2 });
      expect(past.isError).toBe(true);
      expect(textOf(past)).toContain("has 0 turns; turn 2 does not exist");
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("recall sessions", () => {
  test("aligned columns, singular '1 turn', and a session without turns counted instead of listed", () => {
    const result = recall(["sessions"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    const rows = lines.slice(0, 3);
    expect(rows.map((line) => line.split(/\s+/)[0])).toEqual([
      "short-id",
      "22222222-2222-4222-8222-222222222222",
      "11111111-1111-4111-8111-111111111111",
    ]);
    // Every column starts at the same terminal column on every row, CJK project names included.
    for (const column of ["claude-code", "2026-03-"]) {
      const starts = rows.map((line) => Bun.stringWidth(line.slice(0, line.indexOf(column))));
      expect(new Set(starts).size).toBe(1);
    }
    expect(rows[0]).toContain("项目");
    expect(rows[0]).toMatch(/ 1 turn {2}/);
    expect(rows[1]).toMatch(/ 2 turns {2}/);
    expect(result.stdout).not.toContain("1 turns");
    expect(lines[3]).toBe("(1 session without any turn not listed: --include-empty lists it)");
    const json = JSON.parse(recall(["sessions", "--json", "--no-reindex"]).stdout);
    expect(json.version).toBe(1);
    expect(json.sessions).toHaveLength(3);
    expect(json.empty_sessions_hidden).toBe(1);
  });

  test("--include-empty lists the session without turns, with '(no project)' rather than '?'", () => {
    const result = recall(["sessions", "--include-empty", "--no-reindex"]);
    const empty = result.stdout.split("\n").find((line) => line.startsWith("33333333"));
    expect(empty).toBeDefined();
    expect(empty).toContain("(no project)");
    expect(empty).toContain("0 turns");
    expect(empty).toContain("Old branch title");
    expect(result.stdout).not.toContain("without any turn not listed");
    expect(
      JSON.parse(recall(["sessions", "--include-empty", "--json", "--no-reindex"]).stdout).empty_sessions_hidden,
    ).toBe(0);
  });

  test("--until and --branch filter like search's", () => {
    const ids = (args: string[]) =>
      (
        JSON.parse(recall(["sessions", "--json", "--no-reindex", ...args]).stdout).sessions as Array<{
          session_id: string;
        }>
      ).map((s) => s.session_id);
    expect(ids(["--until", "2026-03-05"])).toEqual(["11111111-1111-4111-8111-111111111111"]);
    expect(ids(["--since", "2026-03-05", "--until", "2026-03-15"])).toEqual(["22222222-2222-4222-8222-222222222222"]);
    expect(ids(["--branch", "feature/notes"])).toEqual(["22222222-2222-4222-8222-222222222222"]);
    expect(recall(["sessions", "--since", "2026-03-15", "--until", "2026-03-05", "--no-reindex"]).code).toBe(2);
  });

  test("one Windows folder recorded as C:\\ and c:\\ is one project in status and in the searched count", () => {
    const status = JSON.parse(recall(["status", "--json"]).stdout);
    const vault = status.by_project.filter(
      (p: { project_path: string }) => p.project_path.toLowerCase() === "c:\\users\\me\\vault",
    );
    expect(vault).toHaveLength(1);
    expect(vault[0].sessions).toBe(2);
    expect(vault[0].turns).toBe(3);
    const search = JSON.parse(recall(["search", "vault", "--json", "--no-reindex"]).stdout);
    expect(search.searched.projects).toBe(3); // the vault, 项目, and the summary-only file's empty project
    expect(search.results).toHaveLength(2);
  });
});
