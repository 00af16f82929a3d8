import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../../src/errors.ts";
import { parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { maskPassword } from "../../src/team-archive/password-mask.ts";
import { runCli } from "../helpers/cli.ts";

// Issue 37, hole 10: an archive URL's password never reaches a message, whatever it holds and however the URL is
// broken; and a password on the command line (visible in `ps`) draws one warning naming PGPASSWORD and ~/.pgpass.

/** Passwords with what cuts a naive mask short: a space, `@`, `%`, `:`, `/`, a quote. Each holds "hunter" and "xyzzy". */
const passwords = ["hunter xyzzy", "hunter@xyzzy", "hunter%xyzzy", "hunter:xyzzy", "hunter/xyzzy", "hunter'@ xyzzy"];

/** URLs that do not parse or are refused, each holding `password` as typed. */
const brokenUrls = (password: string) => [
  `postgresql://bob:${password}@ho st/db`, // a space in the host
  `postgresql://bob:${password}@host:99999/db`, // a port out of range
  `postgresql://bob:${password}@host:5432/db`, // fine but for what the password holds
  `postgresql:bob:${password}@host/db`, // no //
  // no @ and no host (with an @ in the password, what follows it is the host, as libpq reads it)
  ...(password.includes("@") ? [] : [`postgres://bob:${password}`]),
  `mysql://bob:${password}@host/db`, // another scheme
  `host=db user=bob password='${password}' dbname=db`, // libpq's key=value form
  `host=db password=${password.replaceAll(" ", "")} user=bob`,
  `postgresql://bob:${password}@host/db?sslmode=require&password=${password}`,
  `  postgresql://bob:${password}@[::1/db  `, // an unclosed IPv6 bracket
];

/** Everything a UsageError would print: message and hint. */
function printed(text: string): string | undefined {
  try {
    const url = parseArchiveUrl(text);
    return url.display;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return `${error.message}\n${error.hint ?? ""}`;
  }
}

describe("archive URLs never print their password (issue 37)", () => {
  for (const password of passwords)
    test(`a password ${JSON.stringify(password)} appears in no message nor display, for any broken URL`, () => {
      for (const url of brokenUrls(password)) {
        const shown = printed(url);
        expect({ url, shown: shown?.includes("hunter") || shown?.includes("xyzzy") }).toEqual({ url, shown: false });
      }
    });

  test("a URL that does not parse still shows its user, host and database", () => {
    expect(() => parseArchiveUrl("postgresql://bob:hunter xyzzy@ho st/db")).toThrow(
      "not a PostgreSQL URL: postgresql://bob:***@ho st/db",
    );
    expect(maskPassword("postgresql://bob@db.example:5432/recall?sslmode=verify-full")).toBe(
      "postgresql://bob@db.example:5432/recall?sslmode=verify-full",
    );
    expect(maskPassword("postgresql://db.example:5432/recall")).toBe("postgresql://db.example:5432/recall");
  });

  test("a password in ?password= counts as a password and is kept out of the display", () => {
    const url = parseArchiveUrl("postgresql://bob@host/db?sslmode=require&password=hunter%20xyzzy");
    expect(url.hasPassword).toBe(true);
    expect(url.display).toBe("postgresql://bob@host/db?sslmode=require");
    expect(url.connectionString).toContain("password=hunter");
  });

  test("a % not followed by two hex digits is a usage error that says to write %25", () => {
    let error: unknown;
    try {
      parseArchiveUrl("postgresql://bob:50%off@host/db");
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: "the archive URL has a % that is not followed by two hex digits: postgresql://bob:***@host/db",
    });
    expect((error as UsageError).hint).toContain("as %25");
  });
});

describe("a password on the command line (issue 37)", () => {
  const home = mkdtempSync(join(tmpdir(), "recall-archive-url-"));
  const recall = (args: string[]) => {
    const run = runCli(args, { ...process.env, HOME: home, RECALL_HOME: join(home, "recall"), PGCONNECT_TIMEOUT: "2" });
    rmSync(join(home, "recall"), { recursive: true, force: true });
    return { exitCode: run.exitCode, stderr: run.stderr };
  };
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const closed = "127.0.0.1:1/db"; // nothing listens on port 1: the command fails after parsing the URL

  test("draws one warning naming ps, PGPASSWORD and ~/.pgpass, and the password is never printed", () => {
    for (const args of [
      ["archive", "push", "--no-reindex", "--archive-url", `postgresql://bob:hunter%20xyzzy@${closed}`],
      ["archive", "init", "--no-save", `postgresql://bob:hunter%20xyzzy@${closed}`],
      ["search", "--archive", "--keyword-only", "--archive-url", `postgresql://bob@${closed}?password=hunter`, "x"],
    ]) {
      const run = recall(args);
      expect(run.exitCode).toBe(1);
      const warnings = run.stderr.split("\n").filter((line) => line.includes("`ps`"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("PGPASSWORD");
      expect(warnings[0]).toContain("~/.pgpass");
      expect(run.stderr).not.toContain("hunter");
    }
  });

  test("a URL given where no argument is taken is refused without its password (exit 2)", () => {
    for (const args of [
      ["archive", "push", `postgresql://bob:hunter xyzzy@${closed}`],
      ["archive", "push", "--json", `postgresql://bob:hunter@xyzzy@${closed}`],
      ["status", "postgres://bob:hunter/xyzzy@host/db"],
    ]) {
      const run = recall(args);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain("unknown arguments");
      expect(run.stderr).toContain("***");
      expect(run.stderr).not.toContain("hunter");
      expect(run.stderr).not.toContain("xyzzy");
    }
  });

  test("a URL without a password draws no such warning", () => {
    const run = recall(["archive", "push", "--no-reindex", "--archive-url", `postgresql://bob@${closed}`]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).not.toContain("`ps`");
  });
});
