/**
 * Connecting to the team archive, a PostgreSQL database (issue 30), with node-postgres (`pg`): connection strings
 * follow libpq's rules (postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING), `sslmode` with libpq's
 * meaning (`uselibpqcompat=true` of pg-connection-string: `verify-full` checks the CA and the host name, `require`
 * encrypts without checking unless `sslrootcert` is given), PGHOST/PGPORT/PGUSER/PGDATABASE/PGPASSWORD from the
 * environment, and the password from the URL, PGPASSWORD or ~/.pgpass (PGPASSFILE; pg reads it through its `pgpass`
 * module, which ignores a file readable by group or others, as libpq does). recall never takes a password as a flag
 * (`ps` would show it) and never writes one to its settings file.
 * Every failure becomes one ArchiveError line naming the server (never the password). Every connection pins its
 * search_path to pg_catalog (issue 37, {@link pinnedSearchPath}).
 */
import { accessSync, constants, statSync } from "node:fs";
import pg from "pg";
import { ArchiveError, UsageError } from "../errors.ts";
import { maskPassword } from "./password-mask.ts";

/** A parsed archive URL: what to connect with, and how to name it in messages and settings. */
export interface ArchiveUrl {
  /** The URL to connect with, `uselibpqcompat=true` added (the password, if the URL had one, kept). */
  connectionString: string;
  /** `postgresql://user@host:port/db?…` without the password: safe to print and to save. */
  display: string;
  /** True when the URL held a password. */
  hasPassword: boolean;
}

const urlHint = "give it as postgresql://user@host:5432/database (the password in PGPASSWORD or ~/.pgpass)";

/** Query parameters that carry a secret in libpq's URI form (`password`, and `sslpassword` for the client key). */
const secretParameters = ["password", "sslpassword"];

/**
 * Read an archive URL: `postgres://` or `postgresql://` (libpq's URI form); a libpq `key=value` string is refused with
 * the URI form as the hint. A password may be in the URL (`user:password@`, or `?password=`): it is kept for the
 * connection and left out of `display`. Messages never show it, even for a URL that does not parse
 * ({@link maskPassword}).
 * @throws UsageError for anything else: a URL that does not parse, has no `//host` part, or holds a `%` not followed
 *         by two hex digits in the user, password or database (pg decodes them with decodeURIComponent)
 */
export function parseArchiveUrl(text: string): ArchiveUrl {
  const trimmed = text.trim();
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  // without `//`, WHATWG's URL reads `postgresql:user:password@host` as an opaque path with no user and no password
  if (url === undefined || !/^postgres(?:ql)?:\/\//i.test(trimmed))
    throw new UsageError(`not a PostgreSQL URL: ${maskPassword(trimmed)}`, urlHint);
  for (const part of [url.username, url.password, url.pathname])
    try {
      decodeURIComponent(part);
    } catch {
      throw new UsageError(
        `the archive URL has a % that is not followed by two hex digits: ${maskPassword(trimmed)}`,
        "write a % in the user, password or database as %25, or put the password in PGPASSWORD or ~/.pgpass",
      );
    }
  const hasPassword = url.password !== "" || secretParameters.some((name) => url.searchParams.has(name));
  const connect = new URL(url);
  if (!connect.searchParams.has("uselibpqcompat")) connect.searchParams.set("uselibpqcompat", "true");
  const display = new URL(url);
  display.password = "";
  for (const name of secretParameters) display.searchParams.delete(name);
  return { connectionString: connect.toString(), display: display.toString(), hasPassword };
}

/** An open connection to the archive. */
export interface ArchiveConnection {
  readonly client: pg.Client;
  readonly url: ArchiveUrl;
  /** Run `sql` with `params`; PostgreSQL errors become ArchiveErrors naming the server. */
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Run `fn` in one transaction (BEGIN … COMMIT; ROLLBACK when it throws). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** How long a connection attempt may take before the server counts as unreachable (ms). */
export const connectTimeoutMs = 10_000;

/**
 * Connect to the archive. pg reads PGPASSWORD, PGPASSFILE and the other PG* variables from process.env.
 * @param options.applicationName shown in pg_stat_activity (default `recall`)
 * @throws ArchiveError ARCHIVE_UNREACHABLE (refused, unknown host, timeout, TLS), ARCHIVE_AUTH (password, role, or no
 *         pg_hba.conf entry), ARCHIVE_FAILED (anything else)
 */
export async function openArchive(
  url: ArchiveUrl,
  options: { applicationName?: string } = {},
): Promise<ArchiveConnection> {
  let client: pg.Client;
  try {
    // pg reads sslrootcert, sslcert and sslkey here, so a missing file throws here
    client = new pg.Client({
      connectionString: url.connectionString,
      connectionTimeoutMillis: connectTimeoutMs,
      application_name: options.applicationName ?? "recall",
    });
  } catch (error) {
    throw unreadableFile(url) ?? archiveErrorOf(error, url);
  }
  client.on("error", () => {}); // a dropped connection surfaces as the failing query's error
  try {
    await client.connect();
    // recall's statements call functions such as unnest(text[]) and cardinality(integer[]) by their short names: with
    // the default path (`"$user", public`), a member who may CREATE in `public` could define a closer match that this
    // connection would run with its role's rights (issue 37). Every recall table is named with its schema.
    await client.query(`SET search_path = ${pinnedSearchPath}`);
  } catch (error) {
    await client.end().catch(() => {});
    throw archiveErrorOf(error, url);
  }
  const connection: ArchiveConnection = {
    client,
    url,
    async query<Row extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
      try {
        return (await client.query<Row>(sql, params)).rows;
      } catch (error) {
        throw archiveErrorOf(error, url);
      }
    },
    async transaction<T>(fn: () => Promise<T>) {
      await connection.query("BEGIN");
      try {
        const result = await fn();
        await connection.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    },
    close: () => client.end().catch(() => {}),
  };
  return connection;
}

/**
 * The search path of every recall function (schema.ts) and of every connection recall opens: pg_catalog first and
 * pg_temp last, so no schema a member may create in comes before the catalog (PostgreSQL docs, "Writing SECURITY
 * DEFINER Functions Safely"). pg_temp is never searched for functions or operators, and listed last it cannot shadow a
 * relation either.
 */
export const pinnedSearchPath = "pg_catalog, pg_temp";

/** SQLSTATEs of a refused login (PostgreSQL Appendix A, class 28) and of a refused action (42501, and RLS's 42501). */
const authStates = new Set(["28P01", "28000"]);

/**
 * One ArchiveError for whatever pg or the network threw, naming the server (without the password).
 * An ArchiveError passes through unchanged.
 */
export function archiveErrorOf(error: unknown, url: ArchiveUrl): ArchiveError {
  if (error instanceof ArchiveError) return error;
  const where = url.display;
  const code = (error as { code?: unknown }).code;
  const message = maskPassword(error instanceof Error ? error.message : String(error)).split("\n")[0]!;
  // pg's SCRAM client says this when it has no password to answer the server's challenge (pg 8, sasl.js)
  if (/^SASL: .*password must be a string/.test(message)) {
    return new ArchiveError("ARCHIVE_AUTH", `the archive at ${where} asks for a password, and none was given`, {
      hint: "put it in PGPASSWORD, or in ~/.pgpass (mode 0600; PGPASSFILE names another file) as host:port:database:user:password",
      cause: error,
    });
  }
  if ((typeof code === "string" && authStates.has(code)) || /^SASL: /.test(message)) {
    return new ArchiveError("ARCHIVE_AUTH", `the archive at ${where} refused the login: ${message}`, {
      hint: /no encryption/.test(message)
        ? "it takes only encrypted connections from here: add ?sslmode=verify-full&sslrootcert=<the server's CA file> to the URL"
        : /no pg_hba\.conf entry/.test(message)
          ? "ask the archive's admin to allow this host, user and database in pg_hba.conf"
          : "check the user, and the password in PGPASSWORD or ~/.pgpass (mode 0600); an admin may need to add the role",
      cause: error,
    });
  }
  if (code === "42501") {
    return new ArchiveError("ARCHIVE_REFUSED", `the archive at ${where} refused this role: ${message}`, {
      hint: "ask an archive admin to grant your role a team (GRANT recall_team_<team> TO <role>)",
      cause: error,
    });
  }
  if (code === "3F000" || (code === "42P01" && /recall\./.test(message))) {
    return new ArchiveError("ARCHIVE_NOT_INITIALIZED", `the archive at ${where} has no recall schema`, {
      hint: "run `recall archive init <url>` as the database owner first",
      cause: error,
    });
  }
  if (code === "3D000") {
    return new ArchiveError("ARCHIVE_UNREACHABLE", `the archive at ${where} has no such database: ${message}`, {
      hint: "create the database (createdb) or fix its name in the URL",
      cause: error,
    });
  }
  const network = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ECONNRESET"]);
  const tls = typeof code === "string" && (/CERT|SSL|TLS/.test(code) || code === "DEPTH_ZERO_SELF_SIGNED_CERT");
  if (
    (typeof code === "string" && network.has(code)) ||
    tls ||
    /timeout|terminated|does not support SSL|connect/i.test(message)
  ) {
    return new ArchiveError("ARCHIVE_UNREACHABLE", `cannot reach the archive at ${where}: ${message || String(code)}`, {
      hint: tls
        ? "check sslmode and sslrootcert in the URL (verify-full needs the server's CA)"
        : /does not support SSL/.test(message)
          ? "the server offers no TLS: ask its admin to turn ssl on (leave sslmode out only on a network you trust)"
          : "check the host and port, and that the server runs and accepts TCP connections",
      cause: error,
    });
  }
  return new ArchiveError("ARCHIVE_FAILED", `the archive at ${where} failed: ${message}`, { cause: error });
}

/** The URL's settings that name a file pg reads when the client is made (libpq's names), in the order pg reads them. */
const fileSettings = ["sslcert", "sslkey", "sslrootcert"];

/**
 * An ArchiveError naming the setting and the path of the first file the URL names (sslcert, sslkey, sslrootcert) that
 * cannot be read: missing, a folder, or not readable; undefined when every one can be.
 */
function unreadableFile(url: ArchiveUrl): ArchiveError | undefined {
  const parameters = new URL(url.connectionString).searchParams;
  for (const setting of fileSettings) {
    const path = parameters.get(setting);
    if (!path) continue;
    let why: string | undefined;
    try {
      if (statSync(path).isDirectory()) why = "it is a folder";
      else accessSync(path, constants.R_OK);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : String(code);
    }
    if (why === undefined) continue;
    return new ArchiveError("ARCHIVE_UNREACHABLE", `cannot read ${setting} ${path} of the archive URL: ${why}`, {
      hint:
        setting === "sslrootcert"
          ? "give sslrootcert the path of the server's CA certificate (PEM), or leave it out for a server whose certificate a public CA signed"
          : `fix the path in ${setting}, or the file's permissions`,
    });
  }
  return undefined;
}
