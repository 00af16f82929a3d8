import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { findCreateRights } from "../../src/team-archive/create-rights.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";
import { runCli } from "../helpers/cli.ts";

// Issue 37: `archive init` and `doctor` warn, in one line that says what to revoke, when PUBLIC or a team's role may
// CREATE in the archive's database or in its schema public (where a member's function could shadow the catalog's).
const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the archive CREATE-rights tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-archive-create-rights-"));
let server: PostgresServer;

/** Run the CLI from the source with a private home, the archive's password in PGPASSWORD. */
function recall(args: string[], env: Record<string, string> = {}) {
  return runCli(args, {
    ...process.env,
    HOME: work,
    RECALL_HOME: join(work, "home"),
    PGPASSWORD: "alice-secret",
    ...env,
  });
}

/** The "archive" line of `recall doctor --json` with RECALL_ARCHIVE_URL set to alice's URL. */
function doctorArchiveCheck() {
  const run = recall(["doctor", "--json"], { RECALL_ARCHIVE_URL: server.url({ user: "alice" }) });
  const report = JSON.parse(run.stdout) as {
    checks: Array<{ id: string; status: string; message: string; fix: string }>;
  };
  return report.checks.find((check) => check.id === "archive");
}

describe.skipIf(skipReason !== undefined)(
  "rights to CREATE that members could use against each other (issue 37)",
  () => {
    beforeAll(async () => {
      server = await startPostgres();
      const admin = await openArchive(parseArchiveUrl(server.url()));
      try {
        expect(await initArchive(admin, ["alpha"])).toMatchObject({ createRights: [] }); // PostgreSQL 15's defaults
      } finally {
        await admin.close();
      }
      await server.admin("CREATE ROLE alice LOGIN PASSWORD 'alice-secret'");
      await server.admin("GRANT recall_team_alpha TO alice");
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      rmSync(work, { recursive: true, force: true });
    });

    test("doctor says OK with the schema version and the role's teams when nobody may create", () => {
      expect(doctorArchiveCheck()).toMatchObject({
        status: "ok",
        message: expect.stringContaining("your teams: alpha"),
      });
    });

    test("init warns in one line and names the REVOKE when PUBLIC may CREATE in schema public", async () => {
      await server.admin("GRANT CREATE ON SCHEMA public TO PUBLIC"); // the default before PostgreSQL 15
      const run = recall(["archive", "init", "--no-save", server.url()]);
      expect(run.exitCode).toBe(0);
      const warnings = run.stderr.split("\n").filter((line) => line.includes("CREATE"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("PUBLIC may CREATE in schema public");
      expect(warnings[0]).toContain("REVOKE CREATE ON SCHEMA public FROM PUBLIC;");
      const json = recall(["archive", "init", "--no-save", "--json", server.url()]);
      expect(JSON.parse(json.stdout).createRights).toEqual([
        { grantee: "PUBLIC", kind: "schema", name: "public", revoke: "REVOKE CREATE ON SCHEMA public FROM PUBLIC;" },
      ]);
    });

    test("doctor warns with the same REVOKE as its fix", () => {
      const check = doctorArchiveCheck();
      expect(check).toMatchObject({
        status: "warn",
        message: expect.stringContaining("PUBLIC may CREATE in schema public"),
      });
      expect(check!.fix).toContain("REVOKE CREATE ON SCHEMA public FROM PUBLIC;");
    });

    test("a team's role or recall_member that may CREATE in the database is named, once, with its own REVOKE", async () => {
      await server.admin("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
      await server.admin("GRANT CREATE ON DATABASE postgres TO recall_team_alpha");
      const admin = await openArchive(parseArchiveUrl(server.url()));
      try {
        expect(await findCreateRights(admin)).toEqual([
          {
            grantee: "recall_team_alpha",
            kind: "database",
            name: "postgres",
            revoke: "REVOKE CREATE ON DATABASE postgres FROM recall_team_alpha;",
          },
        ]);
        await server.admin("GRANT CREATE ON SCHEMA recall TO recall_member");
        expect((await findCreateRights(admin)).map((right) => right.revoke)).toEqual([
          "REVOKE CREATE ON DATABASE postgres FROM recall_team_alpha;",
          "REVOKE CREATE ON SCHEMA recall FROM recall_member;",
        ]);
      } finally {
        await admin.close();
      }
      const check = doctorArchiveCheck();
      expect(check).toMatchObject({ status: "warn" });
      expect(check!.fix).toContain("REVOKE CREATE ON DATABASE postgres FROM recall_team_alpha;");
    });
  },
);
