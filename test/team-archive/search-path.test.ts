import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { type ArchiveConnection, openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { deleteArchivedCopies } from "../../src/team-archive/forget.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { archiveMigrations, archiveSchemaVersion, initArchive } from "../../src/team-archive/schema.ts";
import { searchArchive } from "../../src/team-archive/search.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";

// Issue 37, hole 3: row-level security must not trust anything a member can define. On a server where PUBLIC may
// CREATE in schema `public` (PostgreSQL 14 and older by default, or a cluster upgraded from one), a member of team
// beta shadows what the archive's functions call (an aggregate, a function, an operator in `public`) and tries to
// read and write team alpha's rows, and to have alpha's member run its code (a trojan: the victim's own rights).
const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the archive search_path tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-archive-search-path-"));
const home = join(work, "home");
const idOf = (n: number) => `${String(n).padStart(8, "0")}-cccc-4000-8000-000000000000`;
const sessions = 3;
let server: PostgresServer;
let db: Database;
const open: ArchiveConnection[] = [];

const connect = async (user: string, password: string) => {
  const connection = await openArchive(parseArchiveUrl(server.url({ user, password })));
  open.push(connection);
  return connection;
};

/** An attacker's own connection: plain pg with the server's default search_path (`"$user", public`), not recall's. */
async function connectRaw(user: string, password: string, database = "postgres") {
  const client = new pg.Client({ connectionString: server.url({ user, password, database }) });
  await client.connect();
  raw.push(client);
  return {
    query: async <Row extends pg.QueryResultRow>(sql: string) => (await client.query<Row>(sql)).rows,
  };
}
const raw: pg.Client[] = [];

/**
 * Bob's traps, each in `public` and each logging who ran it into public.ran (bob's table, open to inserts by anyone):
 * an aggregate array_agg(text) that claims every team (a closer match for text than pg_catalog's anynonarray one), a
 * pg_has_role(name, name, text) that says yes, an array_agg(integer), operators || on integer arrays and = on text and
 * bigint that log, and unnest(text[]) and unnest(bigint[]) (closer matches than pg_catalog's unnest(anyarray), which
 * recall's own statements call) and cardinality(integer[]) that log and return what pg_catalog's would.
 */
const traps = `
CREATE TABLE public.ran (who name NOT NULL, what text NOT NULL);
GRANT INSERT ON public.ran TO PUBLIC;
CREATE FUNCTION public.claim_every_team(state text[], value text) RETURNS text[] LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran VALUES (current_user, 'array_agg(text)'); RETURN ARRAY['alpha', 'beta']; END $$;
CREATE AGGREGATE public.array_agg(text) (SFUNC = public.claim_every_team, STYPE = text[], INITCOND = '{alpha,beta}');
CREATE FUNCTION public.pg_has_role(name, name, text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran VALUES (current_user, 'pg_has_role'); RETURN true; END $$;
CREATE FUNCTION public.gather(state integer[], value integer) RETURNS integer[] LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran VALUES (current_user, 'array_agg(integer)'); RETURN state || value; END $$;
CREATE AGGREGATE public.array_agg(integer) (SFUNC = public.gather, STYPE = integer[], INITCOND = '{}');
CREATE FUNCTION public.join_arrays(integer[], integer[]) RETURNS integer[] LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran VALUES (current_user, '||'); RETURN pg_catalog.array_cat($1, $2); END $$;
CREATE OPERATOR public.|| (LEFTARG = integer[], RIGHTARG = integer[], FUNCTION = public.join_arrays);
CREATE FUNCTION public.text_equal(text, text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran VALUES (current_user, '= text'); RETURN true; END $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.text_equal);
CREATE FUNCTION public.bigint_equal(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran VALUES (current_user, '= bigint'); RETURN true; END $$;
CREATE OPERATOR public.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.bigint_equal);
CREATE FUNCTION public.unnest(text[]) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran VALUES (current_user, 'unnest(text[])'); RETURN QUERY SELECT * FROM pg_catalog.unnest($1); END $$;
CREATE FUNCTION public.cardinality(integer[]) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran VALUES (current_user, 'cardinality(integer[])'); RETURN pg_catalog.cardinality($1); END $$;
CREATE FUNCTION public.unnest(bigint[]) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ran VALUES (current_user, 'unnest(bigint[])'); RETURN QUERY SELECT * FROM pg_catalog.unnest($1); END $$;
`;

/** A session row of team `team`, as a member would insert it by hand. */
const forgedSession = (team: string) =>
  `INSERT INTO recall.sessions (team, machine, os_user, source, session_id, is_subagent, project_path, project_name,
     started_at, ended_at, turn_count, files, source_status, content_hash)
   VALUES ('${team}', 'x', 'x', 'claude-code', 'forged-${team}', false, '/x', 'x', 0, 0, 0, '[]', 'present', 'x')`;

describe.skipIf(skipReason !== undefined)("the team archive under a writable public schema (issue 37)", () => {
  beforeAll(async () => {
    for (let n = 0; n < sessions; n++)
      writeClaudeSession(join(work, "claude", "projects", "-home-a-p", `${idOf(n)}.jsonl`), {
        sessionId: idOf(n),
        cwd: "/home/a/p",
        turns: [{ prompt: `the alpha secret number ${n} ${fillerText(n, 6)}`, response: fillerText(n + 1, 12) }],
      });
    const summary = await runIndex({
      recallHome: home,
      roots: { "claude-code": [join(work, "claude")], opencode: [] },
    });
    expect(summary.failedUnits).toBe(0);
    db = openIndex(databasePath(home), { readonly: true });
    server = await startPostgres();
    await server.admin("GRANT CREATE ON SCHEMA public TO PUBLIC"); // the default before PostgreSQL 15
    await initArchive(await connect(server.adminUser, server.adminPassword), ["alpha", "beta"]);
    for (const [role, team] of [
      ["alice", "alpha"],
      ["bob", "beta"],
    ] as const) {
      await server.admin(`CREATE ROLE ${role} LOGIN PASSWORD '${role}-secret'`);
      await server.admin(`GRANT recall_team_${team} TO ${role}`);
    }
    const alice = await connect("alice", "alice-secret");
    const pushed = await pushToArchive(db, alice, { origin: { machine: "laptop", osUser: "alice" } });
    expect(pushed.sent).toBe(sessions);
    const bob = await connectRaw("bob", "bob-secret");
    await bob.query(traps);
  }, 120_000);

  afterAll(async () => {
    for (const connection of open) await connection.close();
    for (const client of raw) await client.end();
    await server?.stop();
    db?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test("bob's public.array_agg(text) gets him none of alpha's rows, and no insert into alpha", async () => {
    const bob = await connectRaw("bob", "bob-secret");
    for (const table of ["sessions", "turns", "documents", "batches", "postings"]) {
      const [row] = await bob.query<{ n: number }>(`SELECT count(*)::int AS n FROM recall.${table}`);
      expect({ table, n: row!.n }).toEqual({ table, n: 0 });
    }
    await expect(bob.query(forgedSession("alpha"))).rejects.toMatchObject({ code: "42501" });
  });

  test("with public first on his own search_path, bob's pg_has_role and = get him nothing of alpha either", async () => {
    const bob = await connectRaw("bob", "bob-secret");
    await bob.query("SET search_path = public, pg_catalog");
    const [row] = await bob.query<{ n: number }>("SELECT count(*)::int AS n FROM recall.sessions");
    expect(row!.n).toBe(0);
    const [teams] = await bob.query<{ teams: string[] }>("SELECT recall.my_teams() AS teams");
    expect(teams!.teams).toEqual(["beta"]);
    await expect(bob.query(forgedSession("alpha"))).rejects.toMatchObject({ code: "42501" });
  });

  test("alice reading, pushing and forgetting runs none of bob's code (it would run with her rights)", async () => {
    const alice = await connect("alice", "alice-secret");
    const [row] = await alice.query<{ n: number }>("SELECT count(*)::int AS n FROM recall.sessions");
    expect(row!.n).toBe(sessions);
    // an id-like word is also searched as a prefix: unnest(text[]) of the prefixes
    const found = await searchArchive(alice, {
      query: "secret number 1 aaaa4000",
      level: "session",
      filters: {},
      limit: 5,
    });
    expect(found.results.length).toBeGreaterThan(0);
    // small batches: the push merges them (compact.ts reads cardinality(removed))
    const pushed = await pushToArchive(db, alice, { origin: { machine: "desk", osUser: "alice" }, batchSessions: 1 });
    expect(pushed.sent).toBe(sessions);
    // forget deletes documents: the statement trigger that keeps the batches' counts runs as alice
    expect(await deleteArchivedCopies(alice, [{ source: "claude-code", sessionId: idOf(0) }])).toBe(2);
    const [after] = await alice.query<{ n: number }>("SELECT count(*)::int AS n FROM recall.sessions");
    expect(after!.n).toBe(2 * sessions - 2);
    const ran = (await server.admin(
      "SELECT DISTINCT who, what FROM public.ran WHERE who <> 'bob' ORDER BY 1, 2",
    )) as Array<{
      who: string;
      what: string;
    }>;
    expect(ran).toEqual([]);
  });

  test("an archive of schema version 4 is open to the attack until init upgrades it", async () => {
    await server.admin("CREATE DATABASE older");
    const admin = await openArchive(parseArchiveUrl(server.url({ database: "older" })));
    open.push(admin);
    await admin.query("GRANT CREATE ON SCHEMA public TO PUBLIC");
    await admin.query("CREATE SCHEMA recall");
    await admin.query(
      "CREATE TABLE recall.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    for (const version of [1, 2, 3, 4]) {
      await admin.query(archiveMigrations[version - 1]!);
      await admin.query("INSERT INTO recall.migrations (version) VALUES ($1)", [version]);
    }
    await admin.query(
      "INSERT INTO recall.teams (name, role) VALUES ('alpha', 'recall_team_alpha'), ('beta', 'recall_team_beta')",
    );
    await admin.query(
      forgedSession("alpha")
        .replace("(team,", "(pushed_by, team,")
        .replace("VALUES ('alpha'", "VALUES ('alice', 'alpha'"),
    );
    const bob = await connectRaw("bob", "bob-secret", "older");
    await bob.query(traps);
    const alphaSeen = async () =>
      (await bob.query<{ n: number }>("SELECT count(*)::int AS n FROM recall.sessions WHERE team = 'alpha'"))[0]!.n;
    expect(await alphaSeen()).toBe(1); // the hole, on version 4
    expect(await initArchive(admin, [])).toMatchObject({ applied: [5, 6], version: archiveSchemaVersion });
    expect(await alphaSeen()).toBe(0);
    await expect(bob.query(forgedSession("alpha").replace("forged-alpha", "forged-again"))).rejects.toMatchObject({
      code: "42501",
    });
  });

  test("bob's traps ran for nobody but bob, and never changed what a policy decided", async () => {
    const rows = (await server.admin("SELECT DISTINCT who FROM public.ran")) as Array<{ who: string }>;
    expect(rows.map((row) => row.who).filter((who) => who !== "bob")).toEqual([]);
    const alphaRows = (await server.admin(
      "SELECT count(*)::int AS n FROM recall.sessions WHERE team = 'alpha' AND pushed_by <> 'alice'",
    )) as Array<{ n: number }>;
    expect(alphaRows[0]!.n).toBe(0);
  });
});
