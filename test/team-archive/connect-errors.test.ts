import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";
import { runCli } from "../helpers/cli.ts";

// Issue 37, hole 11 (archive part): every way a connection to the archive fails gives one `recall:` line that says
// what happened and one `hint:` line that says what to do, exit code 1: never "unexpected error", a raw SASL message
// or a stack. Run through the CLI (`archive init`, which connects first) against the server the test starts.
const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the archive connection error tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-archive-connect-errors-"));
let server: PostgresServer;

/** `recall archive init --no-save <url>` with no password anywhere unless `password` is given (PGPASSWORD). */
function init(url: string, password?: string) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: work,
    RECALL_HOME: join(work, "recall"),
    PGPASSFILE: join(work, "no-pgpass"),
    PGPASSWORD: password,
  };
  if (password === undefined) delete env.PGPASSWORD;
  const run = runCli(["archive", "init", "--no-save", url], env);
  // this empty home has no agent history: init's notice about it is not the failure
  const stderr = run.stderr.replace(/^recall: no agent history found.*\n/m, "");
  return { exitCode: run.exitCode, stderr, lines: stderr.trimEnd().split("\n") };
}

/** The failure's two lines: `recall: <what happened>` and `hint: <what to do>`, and exit code 1. */
function expectOneClearError(run: ReturnType<typeof init>, what: RegExp, todo: RegExp) {
  expect(run.exitCode).toBe(1);
  expect(run.lines).toHaveLength(2);
  expect(run.lines[0]).toMatch(/^recall: /);
  expect(run.lines[0]).toMatch(what);
  expect(run.lines[1]).toMatch(/^hint: /);
  expect(run.lines[1]).toMatch(todo);
  expect(run.stderr).not.toMatch(/unexpected|SASL|ENOENT|\n\s+at /);
}

describe.skipIf(skipReason !== undefined)("archive connection failures, each one clear line (issue 37)", () => {
  beforeAll(async () => {
    server = await startPostgres();
    await server.admin("CREATE ROLE alice LOGIN PASSWORD 'alice-secret'");
    await server.admin("CREATE ROLE tlsonly LOGIN PASSWORD 'tlsonly-secret'");
    // tlsonly may log in over TLS only (this server has none): pg_hba.conf's first matching line decides
    const hba = join(server.directory, "data", "pg_hba.conf");
    writeFileSync(hba, `hostnossl all tlsonly 127.0.0.1/32 reject\n${readFileSync(hba, "utf8")}`);
    await server.admin("SELECT pg_reload_conf()");
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test("no password at all names PGPASSWORD and ~/.pgpass", () => {
    expectOneClearError(
      init(server.url({ user: "alice" })),
      /asks for a password, and none was given/,
      /PGPASSWORD.*~\/\.pgpass/,
    );
  });

  test("a wrong password says the login was refused", () => {
    expectOneClearError(init(server.url({ user: "alice" }), "nope"), /refused the login/, /PGPASSWORD or ~\/\.pgpass/);
  });

  test("a missing sslrootcert names the setting and the path", () => {
    const missing = join(work, "no-such-ca.crt");
    const run = init(`${server.url({ user: "alice" })}?sslmode=verify-full&sslrootcert=${missing}`, "alice-secret");
    expectOneClearError(
      run,
      new RegExp(`cannot read sslrootcert ${missing} .*: no such file`),
      /server's CA certificate/,
    );
  });

  test("an unreadable sslcert names its setting", () => {
    const run = init(`${server.url({ user: "alice" })}?sslmode=require&sslcert=${work}&sslkey=${work}`, "alice-secret");
    expectOneClearError(run, new RegExp(`cannot read sslcert ${work} .*: it is a folder`), /fix the path in sslcert/);
  });

  test("a server that is down says to check the host and port", () => {
    expectOneClearError(
      init("postgresql://alice@127.0.0.1:1/postgres", "x"),
      /cannot reach the archive/,
      /host and port/,
    );
  });

  test("sslmode=require against a server without TLS says so", () => {
    const run = init(`${server.url({ user: "alice" })}?sslmode=require`, "alice-secret");
    expectOneClearError(run, /does not support SSL/, /turn ssl on/);
  });

  test("a server that takes only TLS from this host says which sslmode to add", () => {
    expectOneClearError(
      init(server.url({ user: "tlsonly" }), "tlsonly-secret"),
      /no encryption/,
      /sslmode=verify-full/,
    );
  });

  test("a database that does not exist says to create it or fix its name", () => {
    const run = init(server.url({ user: "alice", database: "nowhere" }), "alice-secret");
    expectOneClearError(run, /has no such database/, /createdb/);
  });
});
