/**
 * The MCP tools' team archive switch (issue 30): `search`, `list_sessions` and `read_turns` with `archive: true`,
 * driven through the SDK's client against `recall mcp` from the source (./helpers.ts) and a real PostgreSQL server the test starts
 * (test/helpers/postgres.ts). The answers come from the archive (each result naming who pushed it and from where, and
 * its archive id), keep the local answers' output schemas (the SDK client checks them), and read_turns pages within
 * its budget as locally. Without an archive, or with one that cannot be reached, each call is a one-line tool error
 * and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";
import { type Connection, call, connectStdio, fromSource, isolatedEnv, textOf } from "./helpers.ts";

const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the MCP archive tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-mcp-archive-"));
const home = join(work, "home");
const claude = join(work, "claude");
const idOf = (n: number) => `${String(n).padStart(8, "0")}-cccc-4000-8000-000000000000`;
const docker = idOf(3);
const count = 6;
let postgres: PostgresServer;
/** Served from the archive named in its settings file (RECALL_HOME/.env), as alice (PGPASSWORD). */
let archived: Connection;
/** No archive configured. */
let bare: Connection;
/** RECALL_ARCHIVE_URL in the environment names a port nothing listens on. */
let unreachable: Connection;

type Item = Record<string, unknown>;
const structured = (result: { structuredContent?: unknown }) => result.structuredContent as Record<string, unknown>;
const results = (result: { structuredContent?: unknown }) => structured(result).results as Item[];

const serve = (recallHome: string, extra: Record<string, string> = {}) => {
  const env = isolatedEnv(home, recallHome, { TZ: "UTC", ...extra });
  if (!("RECALL_ARCHIVE_URL" in extra)) delete env.RECALL_ARCHIVE_URL;
  return connectStdio([...fromSource, "mcp", "--no-watch", "--claude-dir", claude], env);
};

describe.skipIf(skipReason !== undefined)("issue 30: the MCP tools with archive: true", () => {
  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    for (let n = 0; n < count; n++) {
      const project = n % 2 === 0 ? "shop" : "api";
      writeClaudeSession(join(claude, "projects", `-home-u-${project}`, `${idOf(n)}.jsonl`), {
        sessionId: idOf(n),
        cwd: `/home/u/${project}`,
        startMs: Date.UTC(2026, 2, 1 + n, 10),
        title: n === 3 ? "Docker bridge MTU" : `session number ${n}`,
        turns: [
          {
            prompt: n === 3 ? "the docker bridge network drops packets" : `${fillerText(n, 8)} about the parser`,
            response: n === 3 ? "Set the bridge MTU to 1450 and restart dockerd." : fillerText(n + 50, 12),
            tools: [{ name: "Bash", input: { command: `ip link show docker${n}` }, output: "ok" }],
          },
          { prompt: `follow up ${n}`, response: n === 3 ? fillerText(99, 600) : "done" },
        ],
      });
    }
    const recallHome = join(work, "archived-home");
    expect((await runIndex({ recallHome, roots: { "claude-code": [claude], opencode: [] } })).failedUnits).toBe(0);
    postgres = await startPostgres();
    const admin = await openArchive(parseArchiveUrl(postgres.url()));
    try {
      await initArchive(admin, ["alpha"]);
    } finally {
      await admin.close();
    }
    await postgres.admin("CREATE ROLE alice LOGIN PASSWORD 'alice-secret'");
    await postgres.admin("GRANT recall_team_alpha TO alice");
    const db = openIndex(databasePath(recallHome), { readonly: true });
    const alice = await openArchive(parseArchiveUrl(postgres.url({ user: "alice", password: "alice-secret" })));
    try {
      await pushToArchive(db, alice, { origin: { machine: "laptop", osUser: "alice" } });
    } finally {
      await alice.close();
      db.close();
    }
    // The archive named as `recall archive init` saves it: in the settings file, without the password.
    writeFileSync(join(recallHome, ".env"), `RECALL_ARCHIVE_URL=${postgres.url({ user: "alice" })}\n`);
    [archived, bare, unreachable] = await Promise.all([
      serve(recallHome, { PGPASSWORD: "alice-secret" }),
      serve(join(work, "bare-home")),
      serve(join(work, "unreachable-home"), {
        RECALL_ARCHIVE_URL: "postgresql://alice@127.0.0.1:1/postgres",
        PGPASSWORD: "alice-secret",
      }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([archived?.close(), bare?.close(), unreachable?.close()]);
    await postgres?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test("every tool that takes archive documents it in its schema", async () => {
    const { tools } = await archived.client.listTools();
    const withArchive = tools.filter((tool) => "archive" in (tool.inputSchema.properties ?? {})).map((t) => t.name);
    expect(withArchive).toEqual(["search", "read_turns", "list_sessions"]);
    expect(archived.client.getInstructions()).toContain("archive=true");
  });

  test("search answers from the archive, each result naming who pushed it and its archive id", async () => {
    const result = await call(archived.client, "search", { query: "docker bridge network", archive: true });
    expect(result.isError).toBeFalsy();
    const top = results(result)[0]!;
    expect(top).toMatchObject({
      session_id: docker,
      project: "api",
      pushed_by: "alice",
      machine: "laptop",
      team: "alpha",
      os_user: "alice",
      best_turn: 1,
      resume_command: null,
      confident: true,
    });
    expect(top.archive_id).toMatch(/^\d+$/);
    expect(structured(result)).toMatchObject({ depth: 1, mode: "keyword", archive: postgres.url({ user: "alice" }) });
    const text = textOf(result);
    expect(text.split("\n")[0]).toMatch(/keyword search over \d+ sessions in the team archive postgres/);
    expect(text).toContain(
      `archive:${top.archive_id} 2026-03-04 api "Docker bridge MTU" turn 1/2 (team archive: by alice@laptop, team alpha)`,
    );
    // the same server still searches this machine's index without the switch: no origin fields there
    const local = await call(archived.client, "search", { query: "docker bridge network" });
    expect(results(local)[0]).toMatchObject({ session_id: docker });
    expect(results(local)[0]!.pushed_by).toBeUndefined();
  }, 60_000);

  test("search at depth 2 within one archived session, by its archive id, finds the turn; offset pages", async () => {
    const [top] = results(await call(archived.client, "search", { query: "docker bridge", archive: true }));
    const turns = await call(archived.client, "search", {
      query: "bridge MTU",
      session: top!.archive_id,
      archive: true,
      format: "full",
    });
    expect(turns.isError).toBeFalsy();
    expect(results(turns)[0]).toMatchObject({ session_id: docker, turn: 1, pushed_by: "alice", source: "claude-code" });
    expect(textOf(turns)).toContain("next: read_turns archive=true session=ARCHIVE_ID from=TURN");
    const all = results(await call(archived.client, "search", { query: "parser", archive: true, limit: 20 }));
    expect(all.length).toBeGreaterThan(2);
    const first = await call(archived.client, "search", { query: "parser", archive: true, limit: 2 });
    expect(structured(first)).toMatchObject({ offset: 0, next_offset: 2 });
    const second = await call(archived.client, "search", { query: "parser", archive: true, limit: 2, offset: 2 });
    expect(structured(second).offset).toBe(2);
    expect([...results(first), ...results(second)].map((item) => item.archive_id)).toEqual(
      all.slice(0, 4).map((item) => item.archive_id),
    );
  }, 60_000);

  test("a query of zero-width characters only is the same one-line usage error as spaces only, as locally (issue 38, item 16)", async () => {
    const local = textOf(await call(archived.client, "search", { query: "   " }));
    expect(local).toStartWith("the search query is empty: it has no visible characters (");
    for (const server of [archived, bare])
      for (const query of ["   ", "\u200b\u200b", " \u200b\ufeff\u2060 "]) {
        const result = await call(server.client, "search", { query, archive: true });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toBe(local);
      }
  }, 60_000);

  test("list_sessions lists the archive newest first, with the local listing's filters and order", async () => {
    const result = await call(archived.client, "list_sessions", { archive: true, project: "shop" });
    expect(result.isError).toBeFalsy();
    const local = results(await call(archived.client, "list_sessions", { project: "shop" }));
    expect(results(result).map((item) => item.session_id)).toEqual(local.map((item) => item.session_id));
    expect(results(result)).toHaveLength(3);
    expect(results(result)[0]).toMatchObject({ session_id: idOf(4), machine: "laptop", pushed_by: "alice" });
    const lines = textOf(result).split("\n");
    expect(lines[0]).toBe(`Sessions in the team archive ${postgres.url({ user: "alice" })}, newest first:`);
    expect(lines[1]).toMatch(
      /^1\. archive:\d+ 2026-03-05 shop 2 turns "session number 4" by alice@laptop, team alpha$/,
    );
    const page = await call(archived.client, "list_sessions", { archive: true, limit: 4, format: "full" });
    expect(structured(page)).toMatchObject({ offset: 0, next_offset: 4 });
    expect(results(page)[0]).toMatchObject({ project_path: "/home/u/api", git_branch: "main", is_subagent: false });
  }, 60_000);

  test("read_turns reads an archived session by its archive id, pages within its budget, and checks its range", async () => {
    const [top] = results(await call(archived.client, "search", { query: "docker bridge", archive: true }));
    const whole = await call(archived.client, "read_turns", { session: top!.archive_id, archive: true });
    expect(whole.isError).toBeFalsy();
    const text = textOf(whole);
    expect(text.split("\n").slice(0, 3)).toEqual([
      `${docker} · claude-code · /home/u/api · "Docker bridge MTU"`,
      `turns 1-2 of 2 · team archive, archive id ${top!.archive_id}`,
      "pushed by alice@laptop, team alpha (os user alice); tool outputs are not archived",
    ]);
    expect(text).toContain("> the docker bridge network drops packets");
    expect(text).toContain("[Bash] ip link show docker3");
    expect(structured(whole)).toMatchObject({ from: 1, to: 2, total_turns: 2, from_archive: true, truncated: null });
    // by the session id as well, one turn, within a small budget: the marker names where to go on
    const cut = await call(archived.client, "read_turns", { session: docker, from: 2, budget: 600, archive: true });
    expect(textOf(cut).length).toBeLessThanOrEqual(600);
    const truncated = structured(cut).truncated as { next_from: number; next_from_char: number };
    expect(truncated).toMatchObject({ next_from: 2 });
    expect(textOf(cut)).toContain(`ask for turns 2-2 from_char=${truncated.next_from_char}]`);
    const rest = await call(archived.client, "read_turns", {
      session: docker,
      from: 2,
      from_char: truncated.next_from_char,
      budget: 200_000,
      archive: true,
    });
    expect(textOf(rest).split("\n")[1]).toContain(`turn 2 of 2, turn 2 from character ${truncated.next_from_char}`);
    const past = await call(archived.client, "read_turns", { session: docker, from: 5, archive: true });
    expect(past.isError).toBe(true);
    expect(textOf(past)).toContain("has 2 turns; turn 5 does not exist");
    const rewound = await call(archived.client, "read_turns", { session: docker, rewound: true, archive: true });
    expect(textOf(rewound)).toContain("the team archive holds the conversation only");
    const unknown = await call(archived.client, "read_turns", { session: "ffffffff-0000", archive: true });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain("no session in the archive matches ffffffff-0000");
  }, 60_000);

  test("without an archive set up each tool says so in one line, and the server keeps serving", async () => {
    for (const [tool, args] of [
      ["search", { query: "docker", archive: true }],
      ["list_sessions", { archive: true }],
      ["read_turns", { session: docker, archive: true }],
    ] as const) {
      const result = await call(bare.client, tool, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toStartWith("no team archive is set up (");
      expect(textOf(result)).not.toContain("\n");
    }
    const local = await call(bare.client, "search", { query: "docker bridge network" });
    expect(local.isError).toBeFalsy();
    expect(results(local)[0]).toMatchObject({ session_id: docker });
  }, 60_000);

  test("an archive that cannot be reached is a one-line tool error, and the server keeps serving", async () => {
    const result = await call(unreachable.client, "list_sessions", { archive: true });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toStartWith("cannot reach the archive at postgresql://alice@127.0.0.1:1/postgres");
    expect(textOf(result)).not.toContain("\n");
    expect(textOf(result)).not.toContain("alice-secret");
    const local = await call(unreachable.client, "list_sessions", {});
    expect(local.isError).toBeFalsy();
    expect(results(local)).toHaveLength(count);
  }, 60_000);
});
