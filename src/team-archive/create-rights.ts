/**
 * Who may create objects where the archive's users resolve names (issue 37). A role that may CREATE in schema `public`
 * (granted to PUBLIC by default before PostgreSQL 15, and kept by a cluster upgraded from one) or in the database (a
 * schema of its own, named like another user, is first on that user's default search_path `"$user", public`) can
 * define a function or operator that another user's unqualified call picks, and run it with that user's rights.
 * recall's own functions pin their search path (schema.ts version 5), but other SQL run in this database (psql,
 * other applications, recall's own statements) may not: `archive init` and `doctor` warn, and say what to revoke.
 * Read-only: the catalogs and has_*_privilege are open to any role.
 */
import type { ArchiveConnection } from "./connection.ts";

/** One right to CREATE that a member could use against the other users of the archive's database. */
export interface CreateRight {
  /** `PUBLIC`, `recall_member`, or a team's role `recall_team_<name>` */
  grantee: string;
  /** what it may create in: the archive's database, or schema `public` or `recall` of it */
  kind: "database" | "schema";
  /** the database's or the schema's name */
  name: string;
  /** the statement that takes the right back (run as the object's owner or a superuser) */
  revoke: string;
}

/** `name` as an SQL identifier: as it is when lower-case letters, digits and `_`, else double-quoted. */
function quoteIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** The objects checked: the current database, and its schemas `public` and `recall` where they exist. */
const objects = `
  SELECT 'database' AS kind, d.datname::text AS name, coalesce(d.datacl, pg_catalog.acldefault('d', d.datdba)) AS acl
  FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
  UNION ALL
  SELECT 'schema', n.nspname::text, coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))
  FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) ANY (ARRAY['public', 'recall']::name[])`;

/**
 * The rights to CREATE on the archive's database and on its schemas `public` and `recall` held by PUBLIC, by
 * `recall_member` or by a team's role (directly or through a role they are granted). A right PUBLIC holds is listed
 * once, for PUBLIC; one recall_member holds, once for it (every team's role is granted recall_member).
 * @returns the rights, ordered by object (database first) then grantee; [] when none
 * @throws ArchiveError for a failed query
 */
export async function findCreateRights(connection: ArchiveConnection): Promise<CreateRight[]> {
  const rows = await connection.query<{ grantee: string; kind: "database" | "schema"; name: string }>(
    `WITH objects AS (${objects})
     SELECT 'PUBLIC' AS grantee, o.kind, o.name FROM objects o
     WHERE EXISTS (SELECT 1 FROM pg_catalog.aclexplode(o.acl) a
       WHERE a.grantee OPERATOR(pg_catalog.=) 0::oid AND a.privilege_type OPERATOR(pg_catalog.=) 'CREATE')
     UNION ALL
     SELECT r.rolname::text, o.kind, o.name FROM objects o CROSS JOIN pg_catalog.pg_roles r
     WHERE (r.rolname OPERATOR(pg_catalog.=) 'recall_member' OR r.rolname OPERATOR(pg_catalog.~~) 'recall\\_team\\_%')
       AND CASE o.kind WHEN 'database' THEN pg_catalog.has_database_privilege(r.oid, o.name, 'CREATE')
         ELSE pg_catalog.has_schema_privilege(r.oid, o.name, 'CREATE') END
     ORDER BY 2, 3, 1`,
  );
  const holds = (grantee: string, row: { kind: string; name: string }) =>
    rows.some((other) => other.grantee === grantee && other.kind === row.kind && other.name === row.name);
  return rows
    .filter((row) => row.grantee === "PUBLIC" || !holds("PUBLIC", row))
    .filter((row) => row.grantee === "PUBLIC" || row.grantee === "recall_member" || !holds("recall_member", row))
    .map((row) => ({
      ...row,
      revoke: `REVOKE CREATE ON ${row.kind === "database" ? "DATABASE" : "SCHEMA"} ${quoteIdentifier(row.name)} FROM ${
        row.grantee === "PUBLIC" ? "PUBLIC" : quoteIdentifier(row.grantee)
      };`,
    }));
}

/**
 * One line saying who may create where and why it matters, and the statements that fix it; undefined for no rights.
 * Example: `PUBLIC may CREATE in schema public: a member could define functions or operators that run with the
 * rights of other users of this database` and `REVOKE CREATE ON SCHEMA public FROM PUBLIC;`.
 */
export function describeCreateRights(rights: readonly CreateRight[]): { message: string; fix: string } | undefined {
  if (rights.length === 0) return undefined;
  const who = rights.map((right) => `${right.grantee} may CREATE in ${right.kind} ${right.name}`).join(", ");
  return {
    message: `${who}: a member could define functions or operators that run with the rights of other users of this database`,
    fix: `as the owner run: ${rights.map((right) => right.revoke).join(" ")}`,
  };
}
