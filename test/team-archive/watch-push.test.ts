import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli, spawnCli } from "../helpers/cli.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";
import { cliEnv, makeWorkspace, sourceFlags, waitFor, type Workspace } from "../index/watch/helpers.ts";

// `recall watch --push` (issue 30): the watcher pushes to the team archive after each change it indexes.
const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the watch --push tests: ${skipReason}`);

let server: PostgresServer;
let workspace: Workspace;

const text = async (stream: ReadableStream<Uint8Array> | undefined) => (stream ? new Response(stream).text() : "");

describe.skipIf(skipReason !== undefined)("recall watch --push (issue 30)", () => {
  beforeAll(async () => {
    server = await startPostgres();
    const admin = await openArchive(parseArchiveUrl(server.url()));
    try {
      await initArchive(admin, ["alpha"]);
    } finally {
      await admin.close();
    }
    await server.admin("CREATE ROLE alice LOGIN PASSWORD 'alice-secret'");
    await server.admin("GRANT recall_team_alpha TO alice");
    workspace = makeWorkspace();
  }, 60_000);
  afterAll(async () => {
    workspace?.cleanup();
    await server?.stop();
  });

  const archived = async () =>
    (
      (await server.admin("SELECT session_id FROM recall.sessions ORDER BY session_id")) as Array<{
        session_id: string;
      }>
    ).map((row) => row.session_id);

  test("pushes what the index holds at start, then each new session, and stops cleanly", async () => {
    const child = spawnCli(
      [
        "watch",
        "--debounce",
        "300",
        "--keyword-only",
        "--json",
        "--push",
        "--archive-url",
        server.url({ user: "alice" }),
        ...sourceFlags(workspace),
      ],
      { ...cliEnv(workspace), PGPASSWORD: "alice-secret" },
      { stdout: "pipe", stderr: "pipe" },
    );
    try {
      await waitFor(async () => (await archived()).length > 0, 30_000);
      const before = await archived();
      const sessionId = "d0222222-0000-4000-8000-000000000002";
      writeClaudeSession(join(workspace.claude, "-home-dev-new", `${sessionId}.jsonl`), {
        sessionId,
        cwd: "/home/dev/new",
        turns: [{ prompt: "the flaky deploy of last month", response: "it was the cache" }],
      });
      await waitFor(async () => (await archived()).includes(sessionId), 30_000);
      expect(await archived()).toEqual([...before, sessionId].sort());
    } finally {
      child.kill("SIGTERM");
    }
    expect(await child.exited).toBe(0);
    const events = (await text(child.stdout as ReadableStream<Uint8Array>))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; sent?: number });
    expect(events.filter((event) => event.event === "pushed").length).toBeGreaterThanOrEqual(2);
  }, 90_000);

  test("a wrong password stops it at start with one line and exit code 1", async () => {
    const run = runCli(
      ["watch", "--keyword-only", "--push", "--archive-url", server.url({ user: "alice" }), ...sourceFlags(workspace)],
      { ...cliEnv(workspace), PGPASSWORD: "wrong" },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("refused the login");
    expect(run.stderr).not.toContain("    at ");
  });
});
