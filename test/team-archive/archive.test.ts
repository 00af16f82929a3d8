import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { ArchiveError } from "../../src/errors.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { type ArchiveConnection, openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { searchArchive } from "../../src/team-archive/search.ts";
import type {
  SessionResult as ArchiveSessionResult,
  TurnResult as ArchiveTurnResult,
} from "../../src/search/reading/hydrate.ts";
import { readArchiveSession, resolveArchiveSessionId } from "../../src/team-archive/show.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";
import { cliCommand, runCli, spawnCli } from "../helpers/cli.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";
import { hasTmux, TmuxTerminal } from "../helpers/tmux.ts";

// The team archive (issue 30) on a real PostgreSQL server the test starts itself (Debian's package; no pgvector).
const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the team archive tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-team-archive-"));
const home = join(work, "home");
const sessions = 24;
const idOf = (n: number) => `${String(n).padStart(8, "0")}-aaaa-4000-8000-000000000000`;
let server: PostgresServer;
let db: Database;
const open: ArchiveConnection[] = [];

const connect = async (user: string, password: string, database = "postgres") => {
  const connection = await openArchive(parseArchiveUrl(server.url({ user, password, database })));
  open.push(connection);
  return connection;
};

/** The arguments of `recall archive push --json` of the local index to `url`. */
const pushArgs = (url: string) => ["archive", "push", "--no-reindex", "--json", "--archive-url", url];

/** Each archived session of `database` (of `machine`, when given) with its content hash and row counts, by session id. */
async function sessionRows(server: PostgresServer, database: string, machine?: string) {
  const client = new pg.Client({ connectionString: server.url({ database }) });
  await client.connect();
  try {
    const result = await client.query(
      `SELECT s.session_id, s.content_hash,
         (SELECT count(*) FROM recall.turns t WHERE t.session = s.id)::int AS turns,
         (SELECT count(*) FROM recall.documents d WHERE d.session = s.id)::int AS documents
       FROM recall.sessions s WHERE $1::text IS NULL OR s.machine = $1 ORDER BY s.session_id`,
      [machine ?? null],
    );
    return result.rows as Array<{ session_id: string; content_hash: string; turns: number; documents: number }>;
  } finally {
    await client.end();
  }
}

describe.skipIf(skipReason !== undefined)("the team archive on PostgreSQL (issue 30)", () => {
  beforeAll(async () => {
    for (let n = 0; n < sessions; n++) {
      writeClaudeSession(join(work, "claude", "projects", `-home-u-p${n % 3}`, `${idOf(n)}.jsonl`), {
        sessionId: idOf(n),
        cwd: `/home/u/p${n % 3}`,
        turns: [
          {
            prompt:
              n === 7
                ? "the docker bridge network drops packets after the kernel upgrade"
                : `${fillerText(n * 10, 10)} about the parser`,
            response: n === 7 ? "Set the bridge MTU to 1450 and restart dockerd." : fillerText(n * 10 + 5, 25),
            tools: [{ name: "Bash", input: { command: `ls src/file_${n}.ts` }, output: "ok" }],
          },
          { prompt: `${fillerText(n * 10 + 2, 8)} follow up`, response: fillerText(n * 10 + 3, 20) },
        ],
      });
    }
    const summary = await runIndex({
      recallHome: home,
      roots: { "claude-code": [join(work, "claude")], opencode: [] },
    });
    expect(summary.failedUnits).toBe(0);
    db = openIndex(databasePath(home), { readonly: true });
    server = await startPostgres();
    const admin = await connect(server.adminUser, server.adminPassword);
    const report = await initArchive(admin, ["alpha", "beta"]);
    expect(report).toMatchObject({ applied: [1, 2, 3, 4, 5, 6], teamsCreated: ["alpha", "beta"], vectors: false });
    for (const [role, team] of [
      ["alice", "alpha"],
      ["carol", "alpha"],
      ["bob", "beta"],
    ] as const) {
      await server.admin(`CREATE ROLE ${role} LOGIN PASSWORD '${role}-secret'`);
      await server.admin(`GRANT recall_team_${team} TO ${role}`);
    }
    await server.admin("CREATE DATABASE second");
    const second = await connect(server.adminUser, server.adminPassword, "second");
    await initArchive(second, ["alpha"]);
  }, 120_000);

  afterAll(async () => {
    for (const connection of open) await connection.close();
    await server?.stop();
    db?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test("init again applies nothing and creates no team twice", async () => {
    const admin = await connect(server.adminUser, server.adminPassword);
    expect(await initArchive(admin, ["alpha"])).toMatchObject({ applied: [], teamsCreated: [] });
  });

  test("a push sends every session; a second push sends nothing", async () => {
    const alice = await connect("alice", "alice-secret");
    const first = await pushToArchive(db, alice, { origin: { machine: "laptop", osUser: "alice" } });
    expect(first).toMatchObject({ team: "alpha", sessions, sent: sessions, unchanged: 0, turns: 2 * sessions });
    const second = await pushToArchive(db, alice, { origin: { machine: "laptop", osUser: "alice" } });
    expect(second).toMatchObject({ sent: 0, unchanged: sessions, turns: 0, documents: 0 });
  });

  test("archive push --json prints one snake_case summary with the version, counts and the time", async () => {
    await server.admin("CREATE DATABASE summary");
    const admin = await connect(server.adminUser, server.adminPassword, "summary");
    await initArchive(admin, ["alpha"]);
    const run = runCli(pushArgs(server.url({ user: "alice", database: "summary" })), {
      ...process.env,
      RECALL_HOME: home,
      PGPASSWORD: "alice-secret",
    });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(summary).toMatchObject({
      version: 1,
      archive: server.url({ user: "alice", database: "summary" }),
      team: "alpha",
      sessions,
      sent: sessions,
      unchanged: 0,
      turns: 2 * sessions,
      documents: 3 * sessions,
      vectors: 0,
      vector_model: null,
      compacted_batches: 0,
    });
    expect(summary.elapsed_ms).toBeGreaterThan(0);
    expect(Object.keys(summary).every((key) => /^[a-z0-9_]+$/.test(key))).toBe(true);
  });

  test("search finds the session and the turn, marked with who pushed it and from where; show reads its turns", async () => {
    const alice = await connect("alice", "alice-secret");
    const found = await searchArchive(alice, {
      query: "docker bridge network",
      level: "session",
      filters: {},
      limit: 5,
    });
    const top = found.results[0] as ArchiveSessionResult;
    expect(top).toMatchObject({
      sessionId: idOf(7),
      here: false,
      archived: { pushedBy: "alice", machine: "laptop", team: "alpha" },
      bestTurn: 1,
    });
    expect(top.confident).toBe(true);
    expect(found.mode).toBe("keyword"); // no vector leg given: keyword-only by request, as local search's API
    const turns = await searchArchive(alice, { query: "bridge MTU", level: "turn", filters: {}, limit: 3 });
    expect((turns.results[0] as ArchiveTurnResult).turn).toBe(1);
    const shown = await readArchiveSession(alice, top.archived!.archiveId);
    expect(shown.turns.map((turn) => turn.prompt)).toEqual([
      "the docker bridge network drops packets after the kernel upgrade",
      expect.stringContaining("follow up"),
    ]);
    expect(shown.turns[0]!.tools[0]).toMatchObject({ name: "Bash" });
    expect((await readArchiveSession(alice, idOf(7), 2, 2)).turns.map((turn) => turn.number)).toEqual([2]);
    const filtered = await searchArchive(alice, {
      query: "parser",
      level: "session",
      filters: { project: "p1" },
      limit: 50,
    });
    expect(filtered.results.length).toBeGreaterThan(0);
    expect(filtered.results.every((result) => (result as ArchiveSessionResult).project === "p1")).toBe(true);
  });

  test("search --archive says why it is keyword-only, and --keyword-only asks for no notice", () => {
    const notices = (...flags: string[]) => {
      const run = runCli(
        [
          "search",
          "--archive",
          server.url({ user: "alice" }),
          "docker bridge network",
          "--no-reindex",
          "--json",
          ...flags,
        ],
        { ...process.env, RECALL_HOME: home, PGPASSWORD: "alice-secret" },
      );
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ mode: "keyword", archive: expect.any(String) });
      return run.stderr.split("\n").filter(Boolean); // on stderr, as local search's notices
    };
    expect(notices()).toEqual(["recall: keyword-only search: this machine's index has no embedding model"]);
    expect(notices("--keyword-only")).toEqual([]);
  });

  test("search --archive and --everywhere take every output flag of local search: --explain, --format, --max-chars", () => {
    const search = (...flags: string[]) =>
      runCli(["search", "docker bridge network", "--no-reindex", "--keyword-only", ...flags], {
        ...process.env,
        RECALL_HOME: home,
        PGPASSWORD: "alice-secret",
      });
    const url = server.url({ user: "alice" });
    const explained = search("--archive-url", url, "--explain", "--json");
    expect(explained.exitCode).toBe(0);
    const answer = JSON.parse(explained.stdout.toString()) as { results: Array<{ here: boolean; explain: unknown }> };
    expect(answer.results.length).toBeGreaterThan(0);
    expect(answer.results.every((result) => !result.here && result.explain !== null)).toBe(true);
    const index = search("--everywhere", "--archive-url", url, "--format", "index", "--json", "--max-chars", "2000");
    expect(index.exitCode).toBe(0);
    expect(index.stdout.toString().length).toBeLessThanOrEqual(2000);
    expect(JSON.parse(index.stdout.toString())).toMatchObject({ format: "index", archive: expect.any(String) });
    const text = search("--archive-url", url, "--depth", "2");
    expect(text.exitCode).toBe(0);
    expect(text.stdout.toString()).toMatch(/in the team archive postgres/);
    expect(text.stdout.toString()).toContain("(team archive: by alice@laptop, team alpha)");
    expect(text.stdout.toString()).toMatch(/→ context: recall show --archive \d+:\d+-\d+/);
  });

  test("paging, a session named by a prefix or its archive id, and a turn past the end", async () => {
    const alice = await connect("alice", "alice-secret");
    const ask = (offset: number, limit: number) =>
      searchArchive(alice, { query: "parser", level: "session", filters: {}, limit, offset });
    const whole = await ask(0, 6);
    const second = await ask(3, 3);
    expect(second.results.map((r) => (r as ArchiveSessionResult).sessionId)).toEqual(
      whole.results.slice(3).map((r) => (r as ArchiveSessionResult).sessionId),
    );
    expect((await ask(0, 3)).nextOffset).toBe(3);
    const sessionId = await resolveArchiveSessionId(alice, idOf(7).slice(0, 8));
    expect(sessionId).toBe(idOf(7));
    const [row] = await alice.query<{ id: string }>("SELECT id FROM recall.sessions WHERE session_id = $1 LIMIT 1", [
      idOf(7),
    ]);
    expect(await resolveArchiveSessionId(alice, row!.id)).toBe(idOf(7));
    const turns = await searchArchive(alice, { query: "bridge", level: "turn", filters: { sessionId }, limit: 5 });
    expect(turns.results.every((r) => (r as ArchiveTurnResult).sessionId === idOf(7))).toBe(true);
    await expect(readArchiveSession(alice, row!.id, 50, 60)).rejects.toThrow("has 2 turns; turn 50 does not exist");
  });

  test("a push whose connection drops mid-way, re-run, leaves the same rows as an uninterrupted push", async () => {
    const carol = await connect("carol", "carol-secret", "second");
    let batches = 0;
    const dropped = pushToArchive(db, carol, {
      origin: { machine: "ci-runner", osUser: "carol" },
      batchSessions: 2, // 12 batches on two connections: most are still to send when the server ends both
      onProgress: (sent) => {
        if (sent > 0 && ++batches === 2) {
          // the server ends carol's session between two batches' statements
          void server.admin(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'carol' AND datname = 'second'",
          );
        }
      },
    });
    const error = await dropped.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ArchiveError);
    const partial = await server.admin("SELECT count(*)::int AS n FROM recall.sessions", []);
    expect(partial).toBeDefined();
    const again = await connect("carol", "carol-secret", "second");
    const resumed = await pushToArchive(db, again, {
      origin: { machine: "ci-runner", osUser: "carol" },
      batchSessions: 5,
    });
    expect(resumed.sent + resumed.unchanged).toBe(sessions);
    expect(resumed.unchanged).toBeGreaterThan(0); // the batches committed before the drop were not sent again
    const interrupted = await sessionRows(server, "second", "ci-runner");
    const uninterrupted = await sessionRows(server, "postgres", "laptop");
    expect(interrupted).toHaveLength(sessions);
    expect(interrupted).toEqual(uninterrupted);
  });

  test("a push killed (SIGKILL) inside a transaction, re-run, leaves the same rows as an uninterrupted push", async () => {
    // The admin holds a lock the push's first batch must wait for (it replaces turns), so the push is killed while
    // its transaction has written session rows and not committed.
    await server.admin("CREATE DATABASE killed");
    const killedDb = await connect(server.adminUser, server.adminPassword, "killed");
    await initArchive(killedDb, ["alpha"]);
    const blocker = await connect(server.adminUser, server.adminPassword, "killed");
    await blocker.query("BEGIN");
    await blocker.query("LOCK TABLE recall.turns IN EXCLUSIVE MODE");
    const env = { ...process.env, RECALL_HOME: home, PGPASSWORD: "carol-secret" };
    const child = spawnCli(pushArgs(server.url({ user: "carol", database: "killed" })), env, {
      stdout: "pipe",
      stderr: "pipe",
    });
    const waiting = async () =>
      (
        (await server.admin(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = 'carol' AND datname = 'killed' AND wait_event_type = 'Lock'",
        )) as Array<{ n: number }>
      )[0]!.n > 0;
    for (let waited = 0; !(await waiting()); waited += 50) {
      if (waited > 20_000) throw new Error("the push never reached the lock");
      await Bun.sleep(50);
    }
    child.kill("SIGKILL");
    await child.exited;
    await blocker.query("ROLLBACK");
    // the killed push's backend ends (its transaction rolled back) once it finds its client gone
    const backends = async () =>
      (
        (await server.admin(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = 'carol' AND datname = 'killed'",
        )) as Array<{ n: number }>
      )[0]!.n;
    for (let waited = 0; (await backends()) > 0; waited += 50) {
      if (waited > 20_000) throw new Error("the killed push's backend never ended");
      await Bun.sleep(50);
    }
    const rerun = runCli(pushArgs(server.url({ user: "carol", database: "killed" })), env);
    expect(rerun.exitCode).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ sent: sessions, unchanged: 0 }); // nothing had committed
    const uninterrupted = (await sessionRows(server, "postgres")).filter(
      (row, i, all) => all.findIndex((r) => r.session_id === row.session_id) === i,
    );
    expect(await sessionRows(server, "killed")).toEqual(
      uninterrupted.filter((row) => row.session_id.endsWith("-aaaa-4000-8000-000000000000")),
    );
  }, 60_000);

  test("4 pushers at once: every machine's sessions are there once", async () => {
    const pushers = await Promise.all([1, 2, 3, 4].map(() => connect("alice", "alice-secret")));
    const summaries = await Promise.all(
      pushers.map((connection, i) =>
        pushToArchive(db, connection, { origin: { machine: `runner-${i}`, osUser: "ci" }, batchSessions: 4 }),
      ),
    );
    for (const summary of summaries) expect(summary.sent).toBe(sessions);
    const rows = (await server.admin(
      "SELECT machine, count(*)::int AS n, count(DISTINCT session_id)::int AS distinct FROM recall.sessions WHERE machine LIKE 'runner-%' GROUP BY machine ORDER BY machine",
    )) as Array<{ machine: string; n: number; distinct: number }>;
    expect(rows).toEqual([0, 1, 2, 3].map((i) => ({ machine: `runner-${i}`, n: sessions, distinct: sessions })));
  });

  test("row-level security: a member of team beta gets nothing of team alpha, through recall or crafted SQL", async () => {
    const bob = await connect("bob", "bob-secret");
    const found = await searchArchive(bob, { query: "docker bridge network", level: "session", filters: {}, limit: 5 });
    expect(found.results).toEqual([]);
    await expect(readArchiveSession(bob, idOf(7))).rejects.toThrow("no session in the archive matches");
    for (const table of ["sessions", "turns", "documents"]) {
      const [row] = await bob.query<{ n: number }>(`SELECT count(*)::int AS n FROM recall.${table}`);
      expect(row!.n).toBe(0);
    }
    // crafted: file a session under team alpha, rewrite alpha's rows, read a turn by its session id
    await expect(
      bob.query(
        `INSERT INTO recall.sessions (team, machine, os_user, source, session_id, is_subagent, project_path, project_name,
           started_at, ended_at, turn_count, files, source_status, content_hash)
         VALUES ('alpha', 'x', 'x', 'claude-code', 'forged', false, '/x', 'x', 0, 0, 0, '[]', 'present', 'x')`,
      ),
    ).rejects.toMatchObject({ code: "ARCHIVE_REFUSED" });
    const [updated] = await bob.query<{ n: number }>(
      "WITH u AS (UPDATE recall.sessions SET title = 'pwned' WHERE team = 'alpha' RETURNING 1) SELECT count(*)::int AS n FROM u",
    );
    expect(updated!.n).toBe(0);
    const [turns] = await bob.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM recall.turns WHERE session IN (SELECT id FROM recall.sessions WHERE team = 'alpha')",
    );
    expect(turns!.n).toBe(0);
    const titles = (await server.admin("SELECT DISTINCT title FROM recall.sessions WHERE team = 'alpha'")) as Array<{
      title: string | null;
    }>;
    expect(titles.map((row) => row.title)).not.toContain("pwned");
    // the inverted index: bob sees none of alpha's postings or batch statistics, and cannot file postings under alpha
    for (const table of ["postings", "batches"]) {
      const [row] = await bob.query<{ n: number }>(`SELECT count(*)::int AS n FROM recall.${table}`);
      expect(row!.n).toBe(0);
    }
    const [postings] = await bob.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM recall.postings WHERE term = 'docker'",
    );
    expect(postings!.n).toBe(0);
    const alphaBatch = (await server.admin("SELECT id FROM recall.batches WHERE team = 'alpha' LIMIT 1")) as Array<{
      id: string;
    }>;
    await expect(
      bob.query(
        "INSERT INTO recall.postings (term, batch, team, document_count, postings) VALUES ('forged', $1, 'alpha', 1, '\\x000101')",
        [alphaBatch[0]!.id],
      ),
    ).rejects.toMatchObject({ code: "ARCHIVE_REFUSED" });
    const alice = await connect("alice", "alice-secret");
    const [seen] = await alice.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM recall.postings WHERE term = 'docker'",
    );
    expect(seen!.n).toBeGreaterThan(0);
    // and bob cannot push as alice: pushed_by is checked against the role
    await expect(
      bob.query(
        `INSERT INTO recall.sessions (team, pushed_by, machine, os_user, source, session_id, is_subagent, project_path,
           project_name, started_at, ended_at, turn_count, files, source_status, content_hash)
         VALUES ('beta', 'alice', 'x', 'x', 'claude-code', 'forged', false, '/x', 'x', 0, 0, 0, '[]', 'present', 'x')`,
      ),
    ).rejects.toMatchObject({ code: "ARCHIVE_REFUSED" });
  });

  test("search --everywhere ranks this machine's results and the archive's together, each saying where it is", async () => {
    // carol pushes a session this machine does not have
    const elsewhere = join(work, "elsewhere");
    writeClaudeSession(
      join(elsewhere, "claude", "projects", "-home-c-k8s", "cccccccc-0000-4000-8000-00000000000c.jsonl"),
      {
        sessionId: "cccccccc-0000-4000-8000-00000000000c",
        cwd: "/home/c/k8s",
        turns: [
          {
            prompt: "the kubernetes ingress times out behind the docker bridge network",
            response: "Raise the proxy timeout.",
          },
        ],
      },
    );
    await runIndex({
      recallHome: join(elsewhere, "home"),
      roots: { "claude-code": [join(elsewhere, "claude")], opencode: [] },
    });
    const theirs = openIndex(databasePath(join(elsewhere, "home")), { readonly: true });
    try {
      await pushToArchive(theirs, await connect("carol", "carol-secret"), {
        origin: { machine: "desk", osUser: "carol" },
      });
    } finally {
      theirs.close();
    }
    const run = runCli(
      [
        "search",
        "--everywhere",
        "--archive-url",
        server.url({ user: "alice" }),
        "docker bridge network",
        "--keyword-only",
        "--no-reindex",
        "--json",
        "-n",
        "5",
      ],
      { ...process.env, RECALL_HOME: home, PGPASSWORD: "alice-secret" },
    );
    expect(run.stderr.toString()).not.toContain("unexpected");
    expect(run.exitCode).toBe(0);
    const answer = JSON.parse(run.stdout.toString()) as {
      version: number;
      archive: string;
      searched: { sessions: number };
      results: Array<{ here: boolean; archive_id?: string; session_id: string; pushed_by?: string }>;
    };
    expect(answer.version).toBe(1);
    expect(answer.archive).toContain("alice@");
    // this machine's session, also pushed: the local one (resumable, read from its source), naming the archive's copy
    const mine = answer.results.find((entry) => entry.session_id === idOf(7));
    expect(mine).toMatchObject({ here: true, archive_id: expect.stringMatching(/^\d+$/) });
    expect(mine).toMatchObject({ resume_command: expect.stringContaining("claude --resume") });
    const carols = answer.results.find((entry) => entry.session_id === "cccccccc-0000-4000-8000-00000000000c");
    expect(carols).toMatchObject({
      here: false,
      pushed_by: "carol",
      machine: "desk",
      resume_command: null,
      next_command: expect.stringContaining("--archive --depth 2 --session"),
    });
    // each session once, though this machine's sessions were pushed from five machines
    const ids = answer.results.map((entry) => entry.session_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("a wrong password, an unreachable server and a role in no team each give one clear error", async () => {
    const wrong = openArchive(parseArchiveUrl(server.url({ user: "alice", password: "nope" })));
    await expect(wrong).rejects.toMatchObject({ code: "ARCHIVE_AUTH" });
    await expect(wrong).rejects.toThrow(/refused the login/);
    const closed = openArchive(parseArchiveUrl(`postgresql://alice@127.0.0.1:1/postgres`));
    await expect(closed).rejects.toMatchObject({ code: "ARCHIVE_UNREACHABLE" });
    await server.admin("CREATE ROLE dave LOGIN PASSWORD 'dave-secret'");
    await server.admin("GRANT recall_member TO dave");
    const dave = await connect("dave", "dave-secret");
    await expect(pushToArchive(db, dave)).rejects.toMatchObject({ code: "ARCHIVE_REFUSED" });
    for (const error of [await wrong.catch((e: unknown) => e), await closed.catch((e: unknown) => e)])
      expect((error as Error).message).not.toContain("\n");
  });

  test("forget --archive deletes the copies this role pushed, with their turns; without it a pipe leaves the archive alone", async () => {
    const copies = async () =>
      (
        (await server.admin(
          "SELECT pushed_by, count(*)::int AS n FROM recall.sessions WHERE session_id = $1 GROUP BY pushed_by ORDER BY pushed_by",
          [idOf(3)],
        )) as Array<{ pushed_by: string; n: number }>
      ).map((row) => `${row.pushed_by}:${row.n}`);
    // bob's team cannot see alice's copies, and carol pushes one of her own into the same team
    await pushToArchive(db, await connect("carol", "carol-secret"), {
      origin: { machine: "carol-box", osUser: "carol" },
    });
    const before = await copies();
    expect(before).toEqual(["alice:5", "carol:1"]); // laptop and runner-0…3, and carol's
    const env = { ...process.env, RECALL_HOME: home, PGPASSWORD: "alice-secret" };
    const quiet = runCli(["forget", idOf(3), "--no-reindex"], {
      ...env,
      RECALL_ARCHIVE_URL: server.url({ user: "alice" }),
    });
    expect(quiet.exitCode).toBe(0);
    expect(await copies()).toEqual(before); // not a terminal, not asked: the archive keeps them
    await runIndex({ recallHome: home, roots: { "claude-code": [join(work, "claude")], opencode: [] } }); // still forgotten: a tombstone
    const run = runCli(["forget", idOf(4), "--no-reindex", "--archive-url", server.url({ user: "alice" })], env);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("deleted 5 session copies from the team archive");
    const left = (await server.admin(
      "SELECT pushed_by, count(*)::int AS n FROM recall.sessions WHERE session_id = $1 GROUP BY pushed_by",
      [idOf(4)],
    )) as Array<{ pushed_by: string; n: number }>;
    expect(left).toEqual([{ pushed_by: "carol", n: 1 }]);
    const [orphans] = (await server.admin(
      "SELECT count(*)::int AS n FROM recall.turns t WHERE NOT EXISTS (SELECT 1 FROM recall.sessions s WHERE s.id = t.session)",
    )) as Array<{ n: number }>;
    expect(orphans!.n).toBe(0);
  });

  test.skipIf(!hasTmux)(
    "forget on a terminal asks before deleting the archive's copies: no keeps them, yes deletes them",
    async () => {
      const alicesCopies = async (n: number) =>
        (
          (await server.admin(
            "SELECT count(*)::int AS n FROM recall.sessions WHERE session_id = $1 AND pushed_by = 'alice'",
            [idOf(n)],
          )) as Array<{ n: number }>
        )[0]!.n;
      expect(await alicesCopies(5)).toBe(5);
      expect(await alicesCopies(6)).toBe(5);
      const terminal = TmuxTerminal.start(200, 30, {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: work,
        RECALL_HOME: home,
        RECALL_ARCHIVE_URL: server.url({ user: "alice" }),
        PGPASSWORD: "alice-secret",
      });
      try {
        const forget = (n: number) =>
          terminal.run(
            // the shell prints "forget done N" after it: an arithmetic expansion, so the typed line never matches
            `cd ${JSON.stringify(process.cwd())} && ${cliCommand.join(" ")} forget ${idOf(n)} --no-reindex; echo "forget done $((${n} + 0))"`,
          );
        forget(5);
        await terminal.waitForText("holds 5 copies you pushed; delete them too? [y/N]");
        terminal.run("n");
        await terminal.waitForText("forget done 5");
        expect(await alicesCopies(5)).toBe(5);
        terminal.run("clear");
        await terminal.waitFor((screen) => !screen.some((row) => row.includes("forget done 5")));
        forget(6);
        await terminal.waitForText("holds 5 copies you pushed; delete them too? [y/N]");
        terminal.run("y");
        await terminal.waitForText("forget done 6");
        expect(terminal.screen().join("")).toContain("deleted 5 session copies from the team archive");
        expect(await alicesCopies(6)).toBe(0);
      } catch (error) {
        throw new Error(`${error instanceof Error ? error.message : String(error)}\n${terminal.screen().join("\n")}`);
      } finally {
        terminal.close();
      }
    },
    60_000,
  );
});
