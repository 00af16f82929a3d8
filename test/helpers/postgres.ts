/**
 * A real PostgreSQL server for the team archive's tests (issue 30), from Debian's `postgresql` package (.ci/run
 * installs it): `initdb` into a fresh temp folder, then the server on 127.0.0.1 and a free port, its socket in that
 * folder, so it never meets the system's cluster (Debian's own service on 5432, started or not) or another test's.
 * Host logins use scram-sha-256, so a wrong password really fails (SQLSTATE 28P01). Durability is off (fsync,
 * synchronous_commit, full_page_writes): a test server is thrown away.
 *
 * Root: initdb, postgres and pg_ctl refuse to run as root, and the suite runs as root here and in CI. Then every one
 * of them runs as the `postgres` user Debian's package creates, through `setpriv` (util-linux), and the temp folder
 * is chowned to that user first.
 *
 * No server outlives the test run: a test file starts one in beforeAll and MUST call `stop()` in afterAll. As
 * fallbacks, every server still running when the process exits is stopped then (`pg_ctl stop -m immediate`), and on
 * Linux the server gets SIGQUIT (PostgreSQL's immediate shutdown) when the process that started it dies, even by
 * SIGKILL (`setpriv --pdeathsig`): the server is this process's own child, not a daemon that `pg_ctl start` detaches.
 * (Linux sends that signal when the spawning thread ends: start servers from the test's own thread, never a Worker.)
 */
import { randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";

/** A running PostgreSQL server of the test's own. */
export interface PostgresServer {
  /** The TCP port it listens on, on 127.0.0.1 only. */
  port: number;
  host: "127.0.0.1";
  /** The superuser initdb made (`recall_admin`, not `postgres`: code must not assume the name). */
  adminUser: string;
  /**
   * The superuser's password: random, and with URL-reserved characters (`@:/%#?&`) on purpose, so code that puts a
   * password in a URL without percent-encoding it fails in tests rather than for a user.
   */
  adminPassword: string;
  /**
   * `postgres://user:password@127.0.0.1:port/database`, user, password and database percent-encoded.
   * @param options.user default the admin user; `options.password` default the admin password when `user` is left
   *        out, else none (the URL then has no password); `options.database` default `postgres`
   */
  url(options?: { user?: string; password?: string; database?: string }): string;
  /**
   * Run `sql` with `params` ($1, $2, …) as the superuser on database `postgres`, over a connection of its own.
   * @returns the rows, as pg returns them
   * @throws pg's DatabaseError (with `.code`, the SQLSTATE) when the statement fails
   */
  admin(sql: string, params?: unknown[]): Promise<unknown[]>;
  /** Its temp folder: `data/` (the cluster), `server.log` (its log), its Unix socket; removed by stop(). */
  directory: string;
  /** Stop the server (immediate shutdown: nothing is kept) and remove its folder; a second call does nothing. */
  stop(): Promise<void>;
}

const debianRoot = "/usr/lib/postgresql";
const adminUser = "recall_admin";
/** How long the server may take to accept connections (ms) before startPostgres gives up. */
const startTimeoutMs = 30_000;

/**
 * The folder holding `initdb`, `postgres` and `pg_ctl`: the highest Debian `/usr/lib/postgresql/<major>/bin`, else
 * the folder `pg_ctl` on PATH lives in (symlinks followed, so /usr/local/bin/pg_ctl → the real folder).
 * @returns undefined when neither has all three
 */
export function postgresBinDir(): string | undefined {
  const complete = (dir: string) => ["initdb", "postgres", "pg_ctl"].every((name) => existsSync(join(dir, name)));
  const majors = existsSync(debianRoot)
    ? readdirSync(debianRoot)
        .filter((name) => /^\d+(\.\d+)?$/.test(name))
        .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    : [];
  for (const major of majors) {
    const dir = join(debianRoot, major, "bin");
    if (complete(dir)) return dir;
  }
  const pgCtl = Bun.which("pg_ctl");
  if (pgCtl === null) return undefined;
  const dir = dirname(realpathSync(pgCtl));
  return complete(dir) ? dir : undefined;
}

/** The uid and gid of the `postgres` user from /etc/passwd, or undefined when there is none. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (!existsSync("/etc/passwd")) return undefined;
  for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
    const [name, , uid, gid] = line.split(":");
    if (name === "postgres" && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

const asRoot = process.getuid?.() === 0;
const hasSetpriv = process.platform === "linux" && Bun.which("setpriv") !== null;

/**
 * Why PostgreSQL tests cannot run here, or undefined when they can: for `describe.skipIf(postgresSkipReason() !==
 * undefined)`, printing the reason.
 */
export function postgresSkipReason(): string | undefined {
  if (postgresBinDir() === undefined) return "PostgreSQL is not installed (apt-get install postgresql)";
  if (asRoot && postgresUser() === undefined)
    return "running as root, and there is no postgres user to run PostgreSQL as (apt-get install postgresql makes one)";
  if (asRoot && !hasSetpriv)
    return "running as root, and setpriv (util-linux) is missing to run PostgreSQL as postgres";
  return undefined;
}

/**
 * The words that run a command as the server's user: `setpriv` to user postgres when root; with `deathSignal`, the
 * command also gets SIGQUIT when this process dies (Linux only).
 */
function asServerUser(deathSignal: boolean): string[] {
  const words: string[] = [];
  if (hasSetpriv && (asRoot || deathSignal)) words.push("setpriv");
  if (asRoot) {
    const user = postgresUser() as { uid: number; gid: number };
    words.push(`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups");
  }
  if (hasSetpriv && deathSignal) words.push("--pdeathsig=SIGQUIT");
  return words;
}

/** The environment of initdb and the server: UTC, so the server's `timezone` setting is the same on every machine. */
function serverEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", TZ: "UTC" };
}

/** A TCP port nothing listened on a moment ago (bind port 0 on 127.0.0.1, read it, close). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The servers started and not yet stopped, stopped synchronously when the process exits. */
const running = new Map<string, () => void>();
let exitHookInstalled = false;

function lastLines(path: string, count: number): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-count).join("\n");
  } catch {
    return "(no server log)";
  }
}

/**
 * Start a PostgreSQL server of the test's own (the highest installed version); it accepts connections when this
 * resolves. Measured here (2 cores, busy): ~1.1 s to start, most of it initdb; ~0.14 s to stop.
 * @throws Error naming the step (initdb, start) with the tail of its output or of the server log, when PostgreSQL is
 *         missing (see postgresSkipReason), initdb fails, or the server does not accept connections within 30 s
 */
export async function startPostgres(): Promise<PostgresServer> {
  const skip = postgresSkipReason();
  if (skip !== undefined) throw new Error(`cannot start PostgreSQL: ${skip}`);
  const bin = postgresBinDir() as string;
  const root = mkdtempSync(join(tmpdir(), "recall-pg-"));
  const data = join(root, "data");
  const log = join(root, "server.log");
  const password = `${randomBytes(12).toString("base64url")}@:/%#?&`;
  writeFileSync(join(root, "password"), `${password}\n`, { mode: 0o600 });
  if (asRoot) {
    const user = postgresUser() as { uid: number; gid: number };
    chownSync(root, user.uid, user.gid);
    chownSync(join(root, "password"), user.uid, user.gid);
  }
  const removeRoot = () => rmSync(root, { recursive: true, force: true });

  const initdb = Bun.spawnSync(
    [
      ...asServerUser(false),
      join(bin, "initdb"),
      `--pgdata=${data}`,
      `--username=${adminUser}`,
      `--pwfile=${join(root, "password")}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      `--locale=${process.platform === "linux" ? "C.UTF-8" : "C"}`,
      "--no-sync",
    ],
    { env: serverEnv(), stdout: "pipe", stderr: "pipe" },
  );
  rmSync(join(root, "password"));
  if (initdb.exitCode !== 0) {
    removeRoot();
    const output = `${initdb.stdout.toString()}${initdb.stderr.toString()}`.trim().split("\n").slice(-15).join("\n");
    throw new Error(`initdb failed (exit ${initdb.exitCode}):\n${output}`);
  }

  // The port may be taken between freePort and the server's bind: then the server exits, and we try another.
  let lastFailure = "";
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const server = Bun.spawn(
      [
        ...asServerUser(true),
        join(bin, "postgres"),
        "-D",
        data,
        "-p",
        String(port),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        `unix_socket_directories=${root}`,
        "-c",
        "max_connections=100",
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
      ],
      { env: serverEnv(), stdin: "ignore", stdout: "ignore", stderr: Bun.file(log) },
    );
    const stopSync = () => {
      Bun.spawnSync([...asServerUser(false), join(bin, "pg_ctl"), "stop", "-D", data, "-m", "immediate", "-w", "-s"], {
        env: serverEnv(),
        stdout: "ignore",
        stderr: "ignore",
      });
      removeRoot();
    };
    running.set(root, stopSync);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on("exit", () => {
        for (const stop of running.values()) stop();
      });
    }
    const adminConfig = { host: "127.0.0.1", port, user: adminUser, password, database: "postgres" };
    let outcome: Awaited<ReturnType<typeof waitUntilReady>>;
    try {
      outcome = await waitUntilReady(server, adminConfig);
    } catch (error) {
      running.delete(root);
      stopSync();
      throw error;
    }
    if (outcome === "ready") {
      let stopped = false;
      return {
        port,
        host: "127.0.0.1",
        adminUser,
        adminPassword: password,
        directory: root,
        url(options = {}) {
          const user = options.user ?? adminUser;
          const secret = options.password ?? (options.user === undefined ? password : undefined);
          const auth =
            secret === undefined
              ? encodeURIComponent(user)
              : `${encodeURIComponent(user)}:${encodeURIComponent(secret)}`;
          return `postgres://${auth}@127.0.0.1:${port}/${encodeURIComponent(options.database ?? "postgres")}`;
        },
        async admin(sql, params = []) {
          const client = new pg.Client(adminConfig);
          await client.connect();
          try {
            return (await client.query(sql, params)).rows;
          } finally {
            await client.end();
          }
        },
        async stop() {
          if (stopped) return;
          stopped = true;
          running.delete(root);
          const pgCtl = Bun.spawn(
            [...asServerUser(false), join(bin, "pg_ctl"), "stop", "-D", data, "-m", "immediate", "-w", "-s"],
            { env: serverEnv(), stdout: "ignore", stderr: "ignore" },
          );
          if ((await pgCtl.exited) !== 0) server.kill("SIGKILL");
          await server.exited;
          removeRoot();
        },
      };
    }
    running.delete(root);
    server.kill("SIGKILL");
    await server.exited;
    lastFailure = lastLines(log, 15);
    if (outcome === "timeout" || !/could not bind|could not create any TCP\/IP sockets/.test(lastFailure)) {
      removeRoot();
      throw new Error(
        outcome === "timeout"
          ? `PostgreSQL did not accept connections within ${startTimeoutMs / 1000} s; the end of its log:\n${lastFailure}`
          : `PostgreSQL exited while starting; the end of its log:\n${lastFailure}`,
      );
    }
  }
  removeRoot();
  throw new Error(`PostgreSQL could not bind a free port in 3 tries; the end of its log:\n${lastFailure}`);
}

/**
 * Connect as the admin until the server accepts (retrying while it refuses or says it is starting up, 57P03).
 * @returns "ready", "exited" when the server process ended first, or "timeout" after startTimeoutMs
 * @throws pg's error for any other failure (a wrong password would be a bug here)
 */
async function waitUntilReady(
  server: Bun.Subprocess,
  config: pg.ClientConfig,
): Promise<"ready" | "exited" | "timeout"> {
  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) return "exited";
    const client = new pg.Client({ ...config, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.end();
      return "ready";
    } catch (error) {
      await client.end().catch(() => {});
      const code = (error as { code?: string }).code;
      if (code !== "ECONNREFUSED" && code !== "57P03" && code !== "ECONNRESET") throw error;
    }
    await Bun.sleep(25);
  }
  return "timeout";
}
