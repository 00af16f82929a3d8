/**
 * PGlite (PostgreSQL 18 compiled to WebAssembly, in this process) served over PostgreSQL's wire protocol on
 * 127.0.0.1 by `@electric-sql/pglite-socket`, for the team archive's tests that need pgvector (issue 30): Debian
 * bookworm packages no pgvector for its PostgreSQL 15, and `@electric-sql/pglite-pgvector` does for PGlite. Plain
 * `pg` clients connect to it as to any server.
 *
 * What differs from a real server (measured with pg 8.23.1 against pglite 0.5.14 and pglite-socket 0.2.17):
 * - No authentication: the user, password and database a client sends are ignored; every connection is user
 *   `postgres` on database `postgres` (`CREATE ROLE` works, but logging in as that role still gives `postgres`). A
 *   test of wrong passwords or of a role's rights needs the real server (./postgres.ts).
 * - One session: PGlite is a single backend, so all connections share its session state (SET, prepared statements,
 *   temporary tables), and a transaction of one connection holds back every other connection's statements until it
 *   ends (a real server would run them).
 * - One connection at a time by default: a second connection while one is open is dropped before its startup
 *   completes (pg: "Connection terminated unexpectedly", or "EPIPE: broken pipe"). Closing a connection and opening the next always works
 *   (30 cycles back to back in the measurement). `maxConnections` above 1 turns on the socket server's multiplexer,
 *   which is only safe when the connections never have queries in flight at the same moment: it interleaves the
 *   Parse/Bind/Execute/Sync messages of concurrent parameterized queries, so they fail with "unnamed prepared
 *   statement does not exist" or bind each other's statements, and after such a failure its queue stops answering
 *   anyone (upstream issue electric-sql/pglite#1046, open). Concurrency tests belong on the real server.
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/** A running PGlite socket server of the test's own. */
export interface PgliteServer {
  /** The TCP port it listens on, on 127.0.0.1 only. */
  port: number;
  host: "127.0.0.1";
  /**
   * `postgres://user[:password]@127.0.0.1:port/database`, percent-encoded, the same shape as PostgresServer's so a
   * test can run against either; PGlite ignores all three (see the module doc).
   * @param options.user default `postgres`; `options.password` default none; `options.database` default `postgres`
   */
  url(options?: { user?: string; password?: string; database?: string }): string;
  /** Close the listening socket and every connection, then the database (it was in memory); a second call does nothing. */
  stop(): Promise<void>;
}

/**
 * Start an in-memory PGlite and serve it on 127.0.0.1 and a port the system picks. Measured here (2 cores, busy): ~3 s
 * for the first in a process (loading the WebAssembly), then 1–1.6 s each, with or without pgvector.
 * @param options.vector load pgvector, so `CREATE EXTENSION vector` works (default false)
 * @param options.maxConnections how many connections may be open at once (default 1; see the module doc before raising it)
 * @throws Error when PGlite fails to start or the socket server cannot listen
 */
export async function startPgliteServer(
  options: { vector?: boolean; maxConnections?: number } = {},
): Promise<PgliteServer> {
  const db = await PGlite.create(options.vector ? { extensions: { vector } } : {});
  const server = new PGLiteSocketServer({
    db,
    host: "127.0.0.1",
    port: 0,
    maxConnections: options.maxConnections ?? 1,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  // getServerConn() is "127.0.0.1:<port>" once listening on port 0.
  const port = Number(server.getServerConn().split(":").at(-1));
  let stopped = false;
  return {
    port,
    host: "127.0.0.1",
    url(urlOptions = {}) {
      const user = encodeURIComponent(urlOptions.user ?? "postgres");
      const auth = urlOptions.password === undefined ? user : `${user}:${encodeURIComponent(urlOptions.password)}`;
      return `postgres://${auth}@127.0.0.1:${port}/${encodeURIComponent(urlOptions.database ?? "postgres")}`;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
    },
  };
}
