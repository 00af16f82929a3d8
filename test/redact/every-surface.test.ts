/**
 * Issue 37, hole 5: one Claude Code session carries planted secrets (test/fixtures/secrets) in its prompts, replies,
 * tool inputs, tool outputs, file edits (an Edit's old and new string, a Write's content), its title, its working
 * folder and its git branch. After `recall index`, no part of any of them shows in any surface: `recall search`,
 * `show`, `sessions` and `export` (text and JSON), the bytes of every file under RECALL_HOME (index.sqlite with its
 * WAL), the MCP tools, every page of `recall ui` (the session page with its diffs, the search page, the turns JSON,
 * the activity page), and every row `recall archive push` writes to a team archive (PGlite, in this process).
 * The session file lies in a folder not named after its working folder: Claude Code names its project folders after
 * the working folder, so a token in that folder's name is also in the source file's path, which recall stores as it
 * is to re-read the source (the README says so).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { databasePath, openIndex } from "../../src/index/index.ts";
import { openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { type PlantedItem, plantedSet } from "../fixtures/secrets/planted-set.ts";
import { type TestTurn, writeClaudeSession } from "../helpers/claude-writer.ts";
import { startPgliteServer } from "../helpers/pglite-server.ts";
import { call, connectStdio, fromSource, isolatedEnv, textOf } from "../mcp/helpers.ts";
import { startUi } from "../ui/ui-history.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-every-surface-"));
const claudeDir = join(work, "claude");
const recallHome = join(work, "recall-home");
const sessionId = "5ec5e7a1-3737-4737-8737-000000000037";
const env = {
  ...isolatedEnv(work, recallHome),
  RECALL_CLAUDE_DIRS: claudeDir,
  RECALL_CODEX_DIRS: join(work, "none"),
  RECALL_OPENCODE_DIRS: join(work, "none"),
  RECALL_GEMINI_DIRS: join(work, "none"),
  RECALL_CURSOR_DIRS: join(work, "none"),
  RECALL_AIDER_DIRS: join(work, "none"),
};

const items = plantedSet();
/** The planted item of `provider` whose shape starts with `shape`. */
function item(provider: string, shape: string): PlantedItem {
  const found = items.find((candidate) => candidate.provider === provider && candidate.shape.startsWith(shape));
  if (!found) throw new Error(`no planted ${provider} ${shape}`);
  return found;
}

const planted = {
  path: item("github", "ghp_{a36} (path)"),
  branch: item("pulumi", "pul-{h40} (branch)"),
  title: item("stripe", "sk_live_{a24} (prose)"),
  prompt: item("mysql", "mysql -p"),
  prompt2: item("postgresql", "PGPASSWORD="),
  response: item("http", "Cookie header"),
  response2: item("aws", "aws configure set"),
  input: item("curl", "curl -u user:pass"),
  output: item("netrc", ".netrc lines"),
  output2: item("http", "Authorization token"),
  editBefore: item("yaml", "password:"),
  editAfter: item("docker", "docker login -p"),
  written: item("pem", "RSA private key"),
  writePath: item("digitalocean", "dop_v1_{h64} (path)"),
};
const secrets = Object.values(planted);

/** What must not show: each secret, each line of it, and each run of 10+ letters and digits in it, also lower-cased (FTS terms). */
function needles(secret: string): string[] {
  const runs = secret.match(/[A-Za-z0-9]{10,}/g) ?? [];
  return [...new Set([secret, ...secret.split("\n"), ...runs, ...runs.map((run) => run.toLowerCase())])];
}

/** The planted secrets that show in `text`, as `provider | shape` lines; [] when none. */
function leaks(text: string): string[] {
  return secrets
    .filter((secret) => needles(secret.secret).some((needle) => text.includes(needle)))
    .map((secret) => `${secret.provider} | ${secret.shape}`);
}

const cwd = `/home/dev/${planted.path.secret}/app`;
const branch = `fix/${planted.branch.secret}-leak`;
const turns: TestTurn[] = [
  {
    prompt: `rotate the shop database credentials:\n${planted.prompt.carrier}\n${planted.prompt2.carrier}`,
    response: `The session cookie was in the request:\n${planted.response.carrier}\nand the CLI profile:\n${planted.response2.carrier}`,
    tools: [
      { name: "Bash", input: { command: planted.input.carrier }, output: "200 OK" },
      { name: "Bash", input: { command: "cat ~/.netrc" }, output: `${planted.output.carrier}\n` },
      { name: "Bash", input: { command: "grep -r Authorization scripts/" }, output: planted.output2.carrier },
    ],
  },
  {
    prompt: "move the credentials out of the compose file and the deploy script",
    response: "Done: the compose file reads them from the environment now.",
    tools: [
      {
        name: "Edit",
        input: {
          file_path: `${cwd}/compose.yaml`,
          old_string: planted.editBefore.carrier,
          new_string: `${planted.editAfter.carrier}\n# credentials moved to the environment`,
        },
        output: "The file compose.yaml has been updated.",
      },
      {
        name: "Write",
        input: { file_path: `/home/dev/${planted.writePath.secret}/deploy_rsa`, content: planted.written.carrier },
        output: "File created successfully.",
      },
    ],
  },
];

/** `recall <args>` from source on the test's history; throws on a non-zero exit. */
function recall(args: string[]): string {
  const run = runCli(args, env);
  if (run.exitCode !== 0) throw new Error(`recall ${args.join(" ")} exited ${run.exitCode}: ${run.stderr}`);
  return run.stdout + run.stderr;
}

/** Every file below `dir`, recursively. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesBelow(path) : [path];
  });
}

beforeAll(() => {
  writeClaudeSession(join(claudeDir, "project", `${sessionId}.jsonl`), {
    sessionId,
    cwd,
    gitBranch: branch,
    title: planted.title.carrier,
    turns,
  });
  recall(["index"]);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("planted secrets show on no surface (issue 37)", () => {
  test("the source file holds every planted secret (the fixture plants them)", () => {
    const source = readFileSync(join(claudeDir, "project", `${sessionId}.jsonl`), "utf8");
    const missing = secrets.filter((secret) => !secret.secret.split("\n").every((line) => source.includes(line)));
    expect(missing.map((secret) => secret.shape)).toEqual([]);
  });

  test("the command line: search, show, sessions and export, text and JSON", () => {
    const outputs = {
      search: recall(["search", "shop database credentials"]),
      searchJson: recall(["search", "shop database credentials", "--json"]),
      searchTurns: recall(["search", "compose file environment", "--depth", "2", "--json"]),
      show: recall(["show", sessionId]),
      showJson: recall(["show", sessionId, "--json"]),
      sessions: recall(["sessions", "--json"]),
      exportJson: recall(["export"]),
      exportMarkdown: recall(["export", "--format", "markdown"]),
    };
    expect(outputs.show).toContain("[REDACTED:");
    expect(outputs.showJson).toContain('"git_branch":"fix/[REDACTED:pulumi-token]-leak"');
    expect(outputs.showJson).toContain('"project_path":"/home/dev/[REDACTED:github-token]/app"');
    expect(outputs.sessions).toContain(sessionId);
    expect(outputs.searchJson).toContain(sessionId);
    expect(outputs.searchTurns).toContain(sessionId);
    for (const [surface, text] of Object.entries(outputs))
      expect({ surface, leaks: leaks(text) }).toEqual({ surface, leaks: [] });
  });

  test("no byte of any file under RECALL_HOME (index.sqlite, its WAL, resume states) holds a secret", () => {
    const files = filesBelow(recallHome);
    expect(files.some((path) => path.endsWith("index.sqlite"))).toBe(true);
    for (const path of files) {
      const bytes = readFileSync(path).toString("latin1");
      expect({ path, leaks: leaks(bytes) }).toEqual({ path, leaks: [] });
    }
  });

  test("the MCP tools: search, read_turns, list_sessions, recent, timeline", async () => {
    const connection = await connectStdio([...fromSource, "mcp"], env, repo);
    try {
      const answers = [
        await call(connection.client, "search", { query: "shop database credentials" }),
        await call(connection.client, "search", { query: "compose file environment", depth: 2 }),
        await call(connection.client, "read_turns", { session: sessionId, budget: 200_000 }),
        await call(connection.client, "list_sessions", { format: "full" }),
        await call(connection.client, "recent", { format: "full" }),
        await call(connection.client, "timeline", { anchor: `${sessionId}:1` }),
      ];
      const texts = answers.map((answer) => `${textOf(answer)}\n${JSON.stringify(answer.structuredContent ?? {})}`);
      expect(texts[0]).toContain(sessionId.slice(0, 8));
      expect(texts[2]).toContain("[REDACTED:");
      for (const text of texts) expect(leaks(text)).toEqual([]);
    } finally {
      await connection.close();
    }
  }, 60_000);

  test("every page of the web view, the diffs included", async () => {
    const ui = await startUi(env, ["--no-watch"]);
    try {
      const { cookie, base } = await ui.login();
      const get = async (path: string) => (await fetch(`${ui.origin}${base}${path}`, { headers: { cookie } })).text();
      const pages = {
        session: await get(`/session/${sessionId}`),
        turns: await get(`/session/${sessionId}/turns?after=0`),
        search: await get("/?q=shop+database+credentials"),
        searchTurns: await get(`/?q=compose+file&session=${sessionId}`),
        activity: await get("/activity"),
        home: await get("/"),
      };
      expect(pages.session).toContain("[REDACTED:private-key]"); // the Write's diff
      expect(pages.session).toContain("password: [REDACTED:password]"); // the Edit's diff
      for (const [page, text] of Object.entries(pages))
        expect({ page, leaks: leaks(text) }).toEqual({ page, leaks: [] });
    } finally {
      await ui.stop();
    }
  }, 60_000);

  test("every row a push writes to the team archive", async () => {
    const server = await startPgliteServer();
    const archive = await openArchive(parseArchiveUrl(server.url()));
    const db = openIndex(databasePath(recallHome), { readonly: true });
    try {
      await initArchive(archive, ["alpha"]);
      const pushed = await pushToArchive(db, archive, {
        team: "alpha",
        recallHome,
        origin: { machine: "m", osUser: "u" },
      });
      expect(pushed.sent).toBe(1);
      const tables = await archive.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'recall'",
      );
      expect(tables.length).toBeGreaterThan(3);
      let rows = "";
      for (const { name } of tables) {
        const dumped = await archive.query<{ row: string }>(
          `SELECT row_to_json(t)::text AS row FROM recall."${name}" t`,
        );
        rows += dumped.map((row) => row.row).join("\n");
      }
      expect(rows).toContain("[REDACTED:");
      expect(leaks(rows)).toEqual([]);
    } finally {
      db.close();
      await archive.close();
      await server.stop();
    }
  }, 60_000);
});
