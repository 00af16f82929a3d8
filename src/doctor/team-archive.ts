/**
 * `recall doctor`'s team archive check (issues 30 and 37), run when RECALL_ARCHIVE_URL is set: connects as the user
 * does (the password from PGPASSWORD or ~/.pgpass), reads the schema version and the teams of the role, and looks for
 * rights to CREATE that members could use against each other (team-archive/create-rights.ts). Prints nothing.
 */
import { isRecallError } from "../errors.ts";
import { openArchive, parseArchiveUrl } from "../team-archive/connection.ts";
import { describeCreateRights, findCreateRights } from "../team-archive/create-rights.ts";
import { archiveSchemaVersion, archiveVersion, teamsOfRole } from "../team-archive/schema.ts";
import type { CheckResult } from "./checks.ts";

/**
 * The "archive" line: OK with the schema version and the role's teams; WARN when the schema is older than this
 * recall's (init upgrades it) or when PUBLIC, recall_member or a team's role may CREATE in the database or in schema
 * `public` or `recall` (the fix is the REVOKE to run); FAIL when the URL is not usable, the server refuses or cannot be
 * reached, or the schema is newer than this recall's.
 * @param env the environment with the settings file merged (RECALL_ARCHIVE_URL; pg reads PG* from process.env)
 * @returns undefined when no archive is set up (RECALL_ARCHIVE_URL unset or empty)
 */
export async function checkTeamArchive(env: Record<string, string | undefined>): Promise<CheckResult | undefined> {
  const value = env.RECALL_ARCHIVE_URL;
  if (!value) return undefined;
  try {
    const url = parseArchiveUrl(value);
    const connection = await openArchive(url, { applicationName: "recall doctor" });
    try {
      const version = await archiveVersion(connection);
      if (version > archiveSchemaVersion)
        return {
          id: "archive",
          status: "fail",
          message: `${url.display} has schema version ${version}, newer than this recall's ${archiveSchemaVersion}`,
          fix: "upgrade recall",
          errorCode: "ARCHIVE_FAILED",
        };
      const teams = version === archiveSchemaVersion ? await teamsOfRole(connection) : [];
      const rights = describeCreateRights(await findCreateRights(connection));
      const state =
        version === archiveSchemaVersion
          ? `${url.display}: schema version ${version}; your teams: ${teams.length > 0 ? teams.join(", ") : "none"}`
          : `${url.display}: schema version ${version}, this recall needs ${archiveSchemaVersion}`;
      const fixes = [
        ...(version < archiveSchemaVersion ? [`run \`recall archive init ${url.display}\` as the database owner`] : []),
        ...(rights ? [rights.fix] : []),
      ];
      if (fixes.length === 0) return { id: "archive", status: "ok", message: state };
      return {
        id: "archive",
        status: "warn",
        message: rights ? `${state}; ${rights.message}` : state,
        fix: fixes.join("; then "),
      };
    } finally {
      await connection.close();
    }
  } catch (error) {
    if (!isRecallError(error)) throw error;
    return { id: "archive", status: "fail", message: error.message, fix: error.hint, errorCode: error.code };
  }
}
