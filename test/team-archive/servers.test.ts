/**
 * The servers the team archive's tests stand on (issue 30): a real PostgreSQL from Debian's package, started by the
 * test file as its own (test/helpers/postgres.ts), and PGlite with pgvector over the wire protocol
 * (test/helpers/pglite-server.ts). Both are reached with plain `pg` clients, as recall reaches a team archive.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { type PgliteServer, startPgliteServer } from "../helpers/pglite-server";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres";

const skipReason = postgresSkipReason();
if (skipReason !== undefined) console.warn(`PostgreSQL server tests skipped: ${skipReason}`);

/** True when nothing accepts a TCP connection on 127.0.0.1:`port` (connection refused). */
function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** Poll `refuses(port)` every 50 ms for up to `ms`; true once it refuses. */
async function refusesWithin(port: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await refuses(port)) return true;
    await Bun.sleep(50);
  }
  return refuses(port);
}

/** Connect a pg client to `url`, run `sql`, close; the rows. */
async function query(url: string, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The SQLSTATE (or Node error code) `promise` rejects with; undefined when it resolves. */
async function failureCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe.skipIf(skipReason !== undefined)(
  "a PostgreSQL server of the test's own, from Debian's package (issue 30)",
  () => {
    let server: PostgresServer;

    beforeAll(async () => {
      server = await startPostgres();
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
    });

    test("the admin logs in through url(), whose password has URL-reserved characters, on 127.0.0.1", async () => {
      expect(server.adminPassword).toMatch(/[@:/%#?&]/);
      const [row] = await query(
        server.url(),
        "SELECT version() AS version, current_user AS who, host(inet_server_addr()) AS address",
      );
      expect(row?.version).toMatch(/^PostgreSQL \d+/);
      expect(row?.who).toBe(server.adminUser);
      expect(row?.address).toBe("127.0.0.1");
    });

    test("the server is set up for tests: durability off, at least 50 connections, UTF-8, UTC", async () => {
      const [row] = (await server.admin(
        `SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync,
              current_setting('full_page_writes') AS fpw, current_setting('max_connections')::int AS max,
              current_setting('server_encoding') AS encoding, current_setting('TimeZone') AS zone`,
      )) as Record<string, unknown>[];
      expect(row).toEqual({
        fsync: "off",
        sync: "off",
        fpw: "off",
        max: expect.any(Number),
        encoding: "UTF8",
        zone: "UTC",
      });
      expect(row?.max as number).toBeGreaterThanOrEqual(50);
    });

    test("a wrong password is refused with SQLSTATE 28P01", async () => {
      expect(await failureCode(query(server.url({ password: "wrong" }), "SELECT 1"))).toBe("28P01");
    });

    test("a role created by admin() logs in with its password to its database, and not with another password", async () => {
      await server.admin(`CREATE ROLE "archive writer" LOGIN PASSWORD 'pa ss@w:rd/1'`);
      await server.admin(`CREATE DATABASE "team archive" OWNER "archive writer"`);
      const as = { user: "archive writer", database: "team archive" };
      const [row] = await query(
        server.url({ ...as, password: "pa ss@w:rd/1" }),
        "SELECT current_user AS who, current_database() AS db, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS super",
      );
      expect(row).toEqual({ who: "archive writer", db: "team archive", super: false });
      expect(await failureCode(query(server.url({ ...as, password: "pa ss@w:rd/2" }), "SELECT 1"))).toBe("28P01");
    });

    test("pgvector is unavailable on Debian's server (or, where a real pgvector is installed, it can be created)", async () => {
      const [row] = (await server.admin(
        "SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'",
      )) as { n: number }[];
      if (row?.n === 0) {
        // 0A000 feature_not_supported: "extension "vector" is not available"
        expect(await failureCode(server.admin("CREATE EXTENSION vector"))).toBe("0A000");
      } else {
        await server.admin("CREATE EXTENSION vector");
        const [distance] = (await server.admin("SELECT '[1,0,0]'::vector <=> '[0,1,0]'::vector AS d")) as {
          d: number;
        }[];
        expect(distance?.d).toBeCloseTo(1, 6);
      }
    });

    // Last in this describe: the tests above use the server.
    test("stop() closes the port and removes the server's folder; a second stop() does nothing", async () => {
      const { port, directory } = server;
      expect(await refuses(port)).toBe(false);
      await server.stop();
      expect(await refuses(port)).toBe(true);
      expect(existsSync(directory)).toBe(false);
      await server.stop();
    });
  },
);

describe.skipIf(skipReason !== undefined)(
  "no PostgreSQL server outlives the process that started it (issue 30)",
  () => {
    /** Run a bun process that starts a server, prints {port, directory} as JSON, then ends as `ending` says. */
    async function startedThenEnded(ending: string): Promise<{ port: number; directory: string; exitCode: number }> {
      const helper = join(import.meta.dir, "..", "helpers", "postgres.ts");
      const script = `const { startPostgres } = await import(${JSON.stringify(helper)});
const server = await startPostgres();
console.log(JSON.stringify({ port: server.port, directory: server.directory }));
${ending}`;
      const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
      const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      const line = stdout.trim().split("\n").at(-1) ?? "";
      if (!line.startsWith("{"))
        throw new Error(`the child printed no port: ${await new Response(child.stderr).text()}`);
      return { ...(JSON.parse(line) as { port: number; directory: string }), exitCode };
    }

    test("an uncaught error (stop() never called): the exit hook stops the server and removes its folder", async () => {
      const { port, directory, exitCode } = await startedThenEnded(`throw new Error("a test file that throws");`);
      expect(exitCode).not.toBe(0);
      expect(await refusesWithin(port, 5_000)).toBe(true);
      expect(existsSync(directory)).toBe(false);
    }, 60_000);

    test.skipIf(process.platform !== "linux")(
      "SIGKILL of the starting process (no exit hook runs): the server still shuts down, by its parent-death signal",
      async () => {
        const { port, directory } = await startedThenEnded(`process.kill(process.pid, "SIGKILL");`);
        try {
          expect(await refusesWithin(port, 5_000)).toBe(true);
        } finally {
          rmSync(directory, { recursive: true, force: true }); // nothing could remove it: the process was killed
        }
      },
      60_000,
    );
  },
);

describe("PGlite with pgvector over the wire protocol (issue 30)", () => {
  let server: PgliteServer;

  beforeAll(async () => {
    server = await startPgliteServer({ vector: true });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  test("a pg client creates pgvector and orders rows by cosine distance to [1,0,0]", async () => {
    const client = new pg.Client({ connectionString: server.url() });
    await client.connect();
    try {
      await client.query("CREATE EXTENSION IF NOT EXISTS vector");
      await client.query("CREATE TABLE turns (id text PRIMARY KEY, embedding vector(3) NOT NULL)");
      // Inserted far first, so the order below is the distance's, not the insertion's.
      await client.query("INSERT INTO turns VALUES ($1, $2::vector), ($3, $4::vector)", [
        "far",
        "[0,1,0]",
        "near",
        "[1,0.1,0]",
      ]);
      const { rows } = await client.query<{ id: string; distance: number }>(
        "SELECT id, embedding <=> $1::vector AS distance FROM turns ORDER BY embedding <=> $1::vector",
        ["[1,0,0]"],
      );
      expect(rows.map((row) => row.id)).toEqual(["near", "far"]);
      expect(rows[0]?.distance).toBeCloseTo(1 - 1 / Math.sqrt(1.01), 6);
      expect(rows[1]?.distance).toBeCloseTo(1, 6);
    } finally {
      await client.end();
    }
  });

  test("it ignores the password, and takes one connection at a time: a second is dropped, the next after a close works", async () => {
    const first = new pg.Client({ connectionString: server.url({ password: "anything" }) });
    await first.connect();
    const second = new pg.Client({ connectionString: server.url() });
    second.on("error", () => {});
    try {
      // pg says "Connection terminated unexpectedly" or "EPIPE: broken pipe", depending on which side closes first.
      await expect(second.connect()).rejects.toThrow();
    } finally {
      await first.end();
    }
    const [row] = await query(
      server.url({ user: "someone", database: "elsewhere" }),
      "SELECT current_user AS who, current_database() AS db",
    );
    expect(row).toEqual({ who: "postgres", db: "postgres" });
  });

  test("stop() closes the port; a second stop() does nothing", async () => {
    expect(await refuses(server.port)).toBe(false);
    await server.stop();
    expect(await refuses(server.port)).toBe(true);
    await server.stop();
  });
});
