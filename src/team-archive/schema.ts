/**
 * The team archive's schema in PostgreSQL (issue 30), versioned like the local index's (index/schema.ts): each entry
 * of {@link archiveMigrations} runs once, in order, in one transaction under an advisory lock, and `recall.migrations`
 * records it. Everything lives in the `recall` schema.
 *
 * Tables: sessions (with their origin: team, pushed_by = the PostgreSQL role that pushed, machine, os_user, agent =
 * source, project), turns (the level-3 text and tool-call summaries), documents (the searched text of each turn and of
 * each session, as the local index builds it), and since version 3 the keyword index: batches and postings, written
 * by the pusher with FTS5's own tokens so that the archive ranks by the local index's BM25 (keyword-rank.ts). Versions
 * 1 and 2 had a generated `tsvector` with a GIN index instead; version 3 replaces it (see there why), and version 4
 * stores each posting list as bytes that the searching client ranks (see there why). Version 5 pins the search path
 * of every function (issue 37; see there why). Version 6 keeps each session's abstract and searches it (issue 41).
 *
 * Teams and row-level security: a team is a NOLOGIN role `recall_team_<name>` listed in recall.teams; a member is any
 * login role granted it. Every table has RLS: a role reads the rows of its teams, and inserts, updates or deletes only
 * rows of its teams that it pushed itself (pushed_by = current_user). Child rows carry their session's team and pusher
 * under a composite foreign key, so a row can never be filed under another team than its session's. The role that runs
 * init owns the tables (and, as owner, is not bound by RLS: keep it for administration).
 */
import { ArchiveError, UsageError } from "../errors.ts";
import { type ArchiveConnection, pinnedSearchPath } from "./connection.ts";
import { type CreateRight, findCreateRights } from "./create-rights.ts";

/** The schema version this build of recall writes and reads. */
export const archiveSchemaVersion = 6;

/** Role every team role is granted: the privileges on the recall schema (rows still filtered by RLS). */
export const memberRole = "recall_member";

/** The role of team `name`. */
export const teamRole = (name: string): string => `recall_team_${name}`;

/** Team names: lower-case letters, digits, `_` and `-`, 1–40 characters (they become part of a role name). */
export const teamNamePattern = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** Characters of a column fed to the tsvector (PostgreSQL's tsvector holds at most 1 MB and 16,383 positions). */
export const searchedCharacters = 200_000;

const searched = (column: string) =>
  `to_tsvector('recall.text', regexp_replace(left(${column}, ${searchedCharacters}), '[[:punct:]]+', ' ', 'g'))`;

/** Version 1. */
const version1 = `
CREATE SCHEMA IF NOT EXISTS recall;
CREATE TABLE IF NOT EXISTS recall.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
-- FTS5 keeps every word (no stop words) and stems with Porter: the closest here is the Snowball English stemmer
-- without a stop-word list.
CREATE TEXT SEARCH DICTIONARY recall.english_stem_all (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION recall.text (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION recall.text
  ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
  WITH recall.english_stem_all;

CREATE TABLE recall.teams (
  name text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,39}$'),
  role name NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE recall.sessions (
  id bigserial PRIMARY KEY,
  team text NOT NULL REFERENCES recall.teams(name),
  pushed_by name NOT NULL DEFAULT current_user,
  machine text NOT NULL,
  os_user text NOT NULL,
  source text NOT NULL,
  session_id text NOT NULL,
  parent_session_id text,
  is_subagent boolean NOT NULL,
  project_path text NOT NULL,
  project_name text NOT NULL,
  git_branch text,
  title text,
  started_at bigint NOT NULL,
  ended_at bigint NOT NULL,
  turn_count integer NOT NULL,
  files jsonb NOT NULL,
  source_status text NOT NULL,
  content_hash text NOT NULL,
  pushed_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (team, machine, source, session_id),
  UNIQUE (id, team, pushed_by)
);
CREATE INDEX sessions_recent ON recall.sessions (team, ended_at DESC);
CREATE INDEX sessions_session_id ON recall.sessions (session_id);

CREATE TABLE recall.turns (
  session bigint NOT NULL,
  team text NOT NULL,
  pushed_by name NOT NULL DEFAULT current_user,
  number integer NOT NULL,
  timestamp bigint NOT NULL,
  prompt text NOT NULL,
  response text NOT NULL,
  tools jsonb NOT NULL,
  files jsonb NOT NULL,
  PRIMARY KEY (session, number),
  FOREIGN KEY (session, team, pushed_by) REFERENCES recall.sessions (id, team, pushed_by) ON DELETE CASCADE
);

CREATE TABLE recall.documents (
  id bigserial PRIMARY KEY,
  session bigint NOT NULL,
  team text NOT NULL,
  pushed_by name NOT NULL DEFAULT current_user,
  level text NOT NULL CHECK (level IN ('session', 'turn')),
  turn_number integer NOT NULL,
  heading text NOT NULL,
  body text NOT NULL,
  extra text NOT NULL,
  search tsvector GENERATED ALWAYS AS (
    setweight(${searched("heading")}, 'A') || setweight(${searched("body")}, 'B') || setweight(${searched("extra")}, 'C')
  ) STORED,
  UNIQUE (session, level, turn_number),
  FOREIGN KEY (session, team, pushed_by) REFERENCES recall.sessions (id, team, pushed_by) ON DELETE CASCADE
);
CREATE INDEX documents_search ON recall.documents USING gin (search);

-- The teams of the current role, computed once per statement (an InitPlan when called as (SELECT recall.my_teams())).
CREATE FUNCTION recall.my_teams() RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(t.name), '{}') FROM recall.teams t WHERE pg_has_role(current_user, t.role, 'MEMBER')
$$;

ALTER TABLE recall.teams ENABLE ROW LEVEL SECURITY;
CREATE POLICY teams_read ON recall.teams FOR SELECT USING (pg_has_role(current_user, role, 'MEMBER'));
`;

/** Row-level security of one table with `team` and `pushed_by` columns (see the file comment). */
const rowPolicies = (table: string) => `
ALTER TABLE recall.${table} ENABLE ROW LEVEL SECURITY;
CREATE POLICY ${table}_read ON recall.${table} FOR SELECT USING (team = ANY ((SELECT recall.my_teams())::text[]));
CREATE POLICY ${table}_insert ON recall.${table} FOR INSERT
  WITH CHECK (team = ANY ((SELECT recall.my_teams())::text[]) AND pushed_by = current_user);
CREATE POLICY ${table}_update ON recall.${table} FOR UPDATE
  USING (team = ANY ((SELECT recall.my_teams())::text[]) AND pushed_by = current_user)
  WITH CHECK (team = ANY ((SELECT recall.my_teams())::text[]) AND pushed_by = current_user);
CREATE POLICY ${table}_delete ON recall.${table} FOR DELETE
  USING (team = ANY ((SELECT recall.my_teams())::text[]) AND pushed_by = current_user);
`;

/** Privileges of the member role (created when missing; roles are cluster-wide). */
const memberGrants = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${memberRole}') THEN CREATE ROLE ${memberRole} NOLOGIN; END IF;
END $$;
GRANT USAGE ON SCHEMA recall TO ${memberRole};
GRANT SELECT ON recall.teams, recall.migrations TO ${memberRole};
GRANT SELECT, INSERT, UPDATE, DELETE ON recall.sessions, recall.turns, recall.documents TO ${memberRole};
GRANT USAGE ON ALL SEQUENCES IN SCHEMA recall TO ${memberRole};
GRANT EXECUTE ON FUNCTION recall.my_teams() TO ${memberRole};
`;

/**
 * Version 2: full-text matching that can use the GIN index. Under row-level security PostgreSQL evaluates a
 * non-leakproof operator such as `@@` only after the policy, so a member's search read every tsvector of every team
 * (bench archive at 100k sessions: a seq scan of 629k rows, 1.8 s even for a word with no match; 0.08 ms with the
 * index as the owner). These functions run as the owner (SECURITY DEFINER, search_path pinned) and restrict
 * themselves to the teams of the session's login role (session_user: current_user is the owner inside them), so they
 * return the ids and ranks of the caller's teams' documents only; the texts are then read under row-level security.
 */
const version2 = `
CREATE FUNCTION recall.session_teams() RETURNS text[] LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = recall, pg_catalog AS $$
  SELECT coalesce(array_agg(t.name), '{}') FROM recall.teams t WHERE pg_has_role(session_user, t.role, 'MEMBER')
$$;
CREATE FUNCTION recall.match_documents(query tsquery, turns_only boolean, max_rows integer)
  RETURNS TABLE (id bigint, rank real) LANGUAGE sql STABLE SECURITY DEFINER SET search_path = recall, pg_catalog AS $$
  SELECT d.id, ts_rank('{0.1, 0.5, 0.5, 1.0}', d.search, query, 1) AS rank
  FROM recall.documents d
  WHERE d.search @@ query AND d.team = ANY ((SELECT recall.session_teams())::text[])
    AND (NOT turns_only OR d.level = 'turn')
  ORDER BY rank DESC, d.id LIMIT max_rows
$$;
CREATE FUNCTION recall.count_matches(query tsquery, cap integer) RETURNS integer LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = recall, pg_catalog AS $$
  SELECT count(*)::integer FROM (
    SELECT 1 FROM recall.documents d
    WHERE d.search @@ query AND d.team = ANY ((SELECT recall.session_teams())::text[]) LIMIT cap) AS m
$$;
CREATE INDEX documents_team ON recall.documents (team);
REVOKE ALL ON FUNCTION recall.session_teams(), recall.match_documents(tsquery, boolean, integer),
  recall.count_matches(tsquery, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recall.session_teams(), recall.match_documents(tsquery, boolean, integer),
  recall.count_matches(tsquery, integer) TO ${memberRole};
`;

/**
 * Version 3: keyword ranking by the local index's BM25, on the local index's own tokens. PostgreSQL's parser and
 * Snowball stemmer tokenize differently from FTS5, and ts_rank is not BM25 (it damps long documents far less): on the
 * labelled eval queries the archive's top 5 equalled local search's on 25% of them. Building the tsvector was also
 * 48 of the 56 s of SQL time per 20k pushed sessions. The generated tsvector, its GIN index and version 2's matching
 * functions are replaced by an inverted index that the pusher computes with FTS5's tokenizer (keyword-tokens.ts):
 *   batches   one row per pushed batch of documents: its team and pusher, and its documents' count and summed
 *             length in tokens (bm25's N and avgdl are sums over the batches a role sees);
 *   postings  per (term, batch): the batch's documents that hold the term, each with its column-weighted frequency
 *             and its length, as three parallel arrays, and their count (read without the arrays) (one row per term and batch, not per document: 15 million
 *             (term, document) pairs at 20k generated sessions become ~1 million rows);
 *   documents gain `batch` and `length`.
 * Text equality and ordering are leakproof, so under row-level security a member's lookup of a term uses the
 * primary key, and no owner function is needed. When documents are deleted (a changed session pushed again, or
 * forget), a statement trigger rewrites the posting lists of their batches without them and takes them off the
 * batch's counts, so the statistics stay exact; it locks those batches first, so two pushes that replace documents of
 * one batch rewrite it one after the other. Sessions pushed before version 3 have no postings: their content hash
 * is cleared, and the next push of each pusher sends them again.
 */
const version3 = `
DROP FUNCTION recall.match_documents(tsquery, boolean, integer);
DROP FUNCTION recall.count_matches(tsquery, integer);
ALTER TABLE recall.documents DROP COLUMN search;
CREATE TABLE recall.batches (
  id bigserial PRIMARY KEY,
  team text NOT NULL REFERENCES recall.teams(name),
  pushed_by name NOT NULL DEFAULT current_user,
  documents integer NOT NULL,
  tokens bigint NOT NULL,
  UNIQUE (id, team, pushed_by)
);
ALTER TABLE recall.documents ADD COLUMN batch bigint, ADD COLUMN length integer NOT NULL DEFAULT 0;
ALTER TABLE recall.documents ADD FOREIGN KEY (batch, team, pushed_by) REFERENCES recall.batches (id, team, pushed_by);
CREATE TABLE recall.postings (
  term text COLLATE "C" NOT NULL,
  batch bigint NOT NULL,
  team text NOT NULL,
  pushed_by name NOT NULL DEFAULT current_user,
  documents bigint[] NOT NULL,
  frequencies real[] NOT NULL,
  lengths integer[] NOT NULL,
  document_count integer NOT NULL GENERATED ALWAYS AS (cardinality(documents)) STORED,
  PRIMARY KEY (term, batch),
  FOREIGN KEY (batch, team, pushed_by) REFERENCES recall.batches (id, team, pushed_by) ON DELETE CASCADE
);
CREATE INDEX postings_batch ON recall.postings (batch);
-- posting lists stay uncompressed (still out of line): pglz cost a third of the time of unnesting them
ALTER TABLE recall.postings ALTER COLUMN documents SET STORAGE EXTERNAL, ALTER COLUMN frequencies SET STORAGE EXTERNAL,
  ALTER COLUMN lengths SET STORAGE EXTERNAL;
CREATE FUNCTION recall.documents_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- one rewriter of a batch at a time: a second one waits here, then reads the first one's rewrite (each statement
  -- below takes a new snapshot)
  PERFORM 1 FROM recall.batches b WHERE b.id IN (SELECT g.batch FROM gone g) ORDER BY b.id FOR UPDATE;
  WITH gone_batches AS (
    SELECT g.batch, array_agg(g.id) AS ids, count(*)::integer AS documents, sum(g.length)::bigint AS tokens
    FROM gone g WHERE g.batch IS NOT NULL GROUP BY g.batch
  ), old AS (
    DELETE FROM recall.postings p USING gone_batches r WHERE p.batch = r.batch
    RETURNING p.term, p.batch, p.team, p.pushed_by, p.documents, p.frequencies, p.lengths, r.ids
  ), kept AS (
    SELECT o.term, o.batch, o.team, o.pushed_by, u.document, u.frequency, u.length, u.position
    FROM old o CROSS JOIN LATERAL unnest(o.documents, o.frequencies, o.lengths) WITH ORDINALITY
      AS u(document, frequency, length, position)
    WHERE u.document <> ALL (o.ids)
  ), rewritten AS (
    INSERT INTO recall.postings (term, batch, team, pushed_by, documents, frequencies, lengths)
      SELECT term, batch, team, pushed_by, array_agg(document ORDER BY position),
        array_agg(frequency ORDER BY position), array_agg(length ORDER BY position)
      FROM kept GROUP BY term, batch, team, pushed_by
  )
  UPDATE recall.batches b SET documents = b.documents - r.documents, tokens = b.tokens - r.tokens
    FROM gone_batches r WHERE b.id = r.batch;
  DELETE FROM recall.batches b WHERE b.documents <= 0 AND b.id IN (SELECT g.batch FROM gone g);
  RETURN NULL;
END $$;
CREATE TRIGGER documents_deleted AFTER DELETE ON recall.documents REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION recall.documents_deleted();
-- Statistics for the tables foreign keys point at, refreshed by a pusher that found them small: a connection plans
-- each foreign-key check once, and a plan made while the table had a page or two scans it sequentially at every
-- checked row for the rest of the push (90 µs a document at 2,500 sessions, growing with the table). ANALYZE
-- invalidates those plans. It runs as the owner (members may not ANALYZE); it takes no arguments.
CREATE FUNCTION recall.refresh_statistics() RETURNS void LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = recall, pg_catalog AS $$
BEGIN
  ANALYZE recall.sessions, recall.batches, recall.documents;
END $$;
REVOKE ALL ON FUNCTION recall.refresh_statistics() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recall.refresh_statistics() TO ${memberRole};
${rowPolicies("batches")}${rowPolicies("postings")}
GRANT SELECT, INSERT, UPDATE, DELETE ON recall.batches, recall.postings TO ${memberRole};
GRANT USAGE ON ALL SEQUENCES IN SCHEMA recall TO ${memberRole};
UPDATE recall.sessions SET content_hash = '';
`;

/**
 * Version 4: posting lists as bytes, ranked in the client, and deletions as tombstones. Version 3's posting arrays were
 * unnested and aggregated by PostgreSQL, which cost ~1 µs a posting: a search of common words at 100k generated
 * sessions (860k postings) took 360 ms in that one statement. Now each (term, batch) row holds one bytea
 * (posting-lists.ts: each document's position gap, frequency and length as varints, ~4 bytes a posting) that a search
 * reads as it is and ranks in the client (keyword-rank.ts):
 *   documents gain `position`, their place in their batch (ascending with their id), indexed with the batch, so the
 *             best positions of a search are looked up as documents;
 *   batches   gain `positions` (places handed out) and `removed` (places whose documents were deleted);
 *   postings  hold `postings bytea` and `document_count` (the documents counted when written, deleted ones included).
 * When documents are deleted (a changed session pushed again, or forget), a statement trigger takes them off their
 * batches' counts and adds their positions to `removed`; it rewrites no posting list, so searches skip removed
 * positions, and a push merges batches that hold more removed places than documents (compact.ts). It locks the
 * batches first, in id order, so two deleting transactions take turns. Version 3's postings are dropped and its
 * documents leave their batches: content hashes are cleared, and the next push of each pusher sends its sessions
 * again.
 */
const version4 = `
DROP TRIGGER documents_deleted ON recall.documents;
DROP FUNCTION recall.documents_deleted();
DROP TABLE recall.postings;
ALTER TABLE recall.documents ADD COLUMN position integer;
UPDATE recall.documents SET batch = NULL WHERE batch IS NOT NULL;
DELETE FROM recall.batches;
ALTER TABLE recall.batches ADD COLUMN positions integer NOT NULL DEFAULT 0,
  ADD COLUMN removed integer[] NOT NULL DEFAULT '{}';
CREATE INDEX documents_batch_position ON recall.documents (batch, position);
CREATE TABLE recall.postings (
  term text COLLATE "C" NOT NULL,
  batch bigint NOT NULL,
  team text NOT NULL,
  pushed_by name NOT NULL DEFAULT current_user,
  document_count integer NOT NULL,
  postings bytea NOT NULL,
  PRIMARY KEY (term, batch),
  FOREIGN KEY (batch, team, pushed_by) REFERENCES recall.batches (id, team, pushed_by) ON DELETE CASCADE
);
CREATE INDEX postings_batch ON recall.postings (batch);
-- stored as they are (out of line, uncompressed): a search reads them whole, and pglz would cost it a decompression
ALTER TABLE recall.postings ALTER COLUMN postings SET STORAGE EXTERNAL;
CREATE FUNCTION recall.documents_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- one deleting transaction of a batch at a time, batches locked in id order (no deadlock between two of them)
  PERFORM 1 FROM recall.batches b WHERE b.id IN (SELECT g.batch FROM gone g) ORDER BY b.id FOR UPDATE;
  UPDATE recall.batches b SET documents = b.documents - r.documents, tokens = b.tokens - r.tokens,
      removed = b.removed || r.positions
    FROM (
      SELECT g.batch, count(*)::integer AS documents, sum(g.length)::bigint AS tokens,
        array_agg(g.position ORDER BY g.position) AS positions
      FROM gone g WHERE g.batch IS NOT NULL GROUP BY g.batch
    ) AS r
    WHERE b.id = r.batch;
  DELETE FROM recall.batches b WHERE b.documents <= 0 AND b.id IN (SELECT g.batch FROM gone g);
  RETURN NULL;
END $$;
CREATE TRIGGER documents_deleted AFTER DELETE ON recall.documents REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION recall.documents_deleted();
${rowPolicies("postings")}
GRANT SELECT, INSERT, UPDATE, DELETE ON recall.postings TO ${memberRole};
UPDATE recall.sessions SET content_hash = '';
`;

/**
 * Version 5 (issue 37): nothing a member can define runs inside recall's functions. A row-level security policy binds
 * its own operators and functions when it is created, but the functions it calls are parsed when they run, with the
 * caller's search_path: recall.my_teams() called `array_agg` and `pg_has_role` unqualified. Where a member may CREATE
 * in a schema on the path (`public` before PostgreSQL 15), an aggregate `public.array_agg(text)` matches a text
 * argument more closely than pg_catalog's `array_agg(anynonarray)`, so it was chosen: it claimed every team, and the
 * member read and wrote all of them; run by another member's search, it ran with that member's rights. The statement
 * trigger had the same hole (`array_agg(integer)`, `integer[] || integer[]`). Every function now pins its search_path
 * ({@link pinnedSearchPath}) and calls pg_catalog's functions by their qualified names; the policies are unchanged.
 */
const version5 = `
CREATE OR REPLACE FUNCTION recall.my_teams() RETURNS text[] LANGUAGE sql STABLE SET search_path = ${pinnedSearchPath} AS $$
  SELECT coalesce(pg_catalog.array_agg(t.name), '{}') FROM recall.teams t
  WHERE pg_catalog.pg_has_role(current_user, t.role, 'MEMBER')
$$;
CREATE OR REPLACE FUNCTION recall.session_teams() RETURNS text[] LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = ${pinnedSearchPath} AS $$
  SELECT coalesce(pg_catalog.array_agg(t.name), '{}') FROM recall.teams t
  WHERE pg_catalog.pg_has_role(session_user, t.role, 'MEMBER')
$$;
ALTER FUNCTION recall.refresh_statistics() SET search_path = ${pinnedSearchPath};
CREATE OR REPLACE FUNCTION recall.documents_deleted() RETURNS trigger LANGUAGE plpgsql
  SET search_path = ${pinnedSearchPath} AS $$
BEGIN
  -- one deleting transaction of a batch at a time, batches locked in id order (no deadlock between two of them)
  PERFORM 1 FROM recall.batches b WHERE b.id IN (SELECT g.batch FROM gone g) ORDER BY b.id FOR UPDATE;
  UPDATE recall.batches b SET documents = b.documents - r.documents, tokens = b.tokens - r.tokens,
      removed = pg_catalog.array_cat(b.removed, r.positions)
    FROM (
      SELECT g.batch, pg_catalog.count(*)::integer AS documents, pg_catalog.sum(g.length)::bigint AS tokens,
        pg_catalog.array_agg(g.position ORDER BY g.position) AS positions
      FROM gone g WHERE g.batch IS NOT NULL GROUP BY g.batch
    ) AS r
    WHERE b.id = r.batch;
  DELETE FROM recall.batches b WHERE b.documents <= 0 AND b.id IN (SELECT g.batch FROM gone g);
  RETURN NULL;
END $$;
`;

/**
 * Version 6 (issue 41): what was written about a session, searched as local search does. `sessions.abstract` holds it
 * as the local listing has it (search/listing/sessions.ts): a JSON array of `{source, text, at}` (parsers/types.ts
 * AbstractPart), the summary `recall summarize` made first, then the parts its agent wrote, each text whole (a listing
 * cuts them when it reads them); NULL when there is none. `documents.abstract` is the local keyword index's fourth
 * column (index/write/documents.ts: a session document's summary and abstract, "" for a turn document): the pusher
 * counts its tokens into the posting lists with its weight (keyword-tokens.ts), so the posting lists' format is
 * unchanged. Sessions pushed before have neither: their posting lists, and so their ranks, stay as they were, and a
 * session whose abstract or summary is not empty has a new content hash (push.ts), so the next push sends it again.
 */
const version6 = `
ALTER TABLE recall.sessions ADD COLUMN abstract jsonb;
ALTER TABLE recall.documents ADD COLUMN abstract text NOT NULL DEFAULT '';
`;

/** The migrations, in order: SQL run as the database owner. Append; never edit a released one. */
export const archiveMigrations: readonly string[] = [
  version1 + ["sessions", "turns", "documents"].map(rowPolicies).join("") + memberGrants,
  version2,
  version3,
  version4,
  version5,
  version6,
];

/** What {@link initArchive} did. */
export interface ArchiveInitReport {
  /** Schema versions applied by this call (empty when the archive was up to date). */
  applied: number[];
  version: number;
  /** Teams created by this call. */
  teamsCreated: string[];
  /** Whether the server has the `vector` extension (pgvector); without it the archive is keyword-only. */
  vectors: boolean;
  /** Rights to CREATE that members could use against each other (create-rights.ts); [] when none. */
  createRights: CreateRight[];
}

/**
 * Create or upgrade the archive's schema and create `teams` (their roles, granted the member role). Safe to run again.
 * Runs as a role that may create schemas and roles (the database owner with CREATEROLE, or a superuser).
 * @throws ArchiveError ARCHIVE_REFUSED when the role may not create the schema or roles; ARCHIVE_FAILED when the
 *         archive was written by a newer recall (its version is above {@link archiveSchemaVersion})
 * @throws UsageError (from {@link checkTeamName}) for a bad team name
 */
export async function initArchive(connection: ArchiveConnection, teams: readonly string[]): Promise<ArchiveInitReport> {
  for (const team of teams) checkTeamName(team);
  return connection.transaction(async () => {
    await connection.query("SELECT pg_advisory_xact_lock(hashtext('recall archive migrations'))");
    const current = await archiveVersion(connection);
    if (current > archiveSchemaVersion)
      throw new ArchiveError(
        "ARCHIVE_FAILED",
        `the archive at ${connection.url.display} has schema version ${current}, newer than this recall's ${archiveSchemaVersion}`,
        { hint: "upgrade recall" },
      );
    const applied: number[] = [];
    if (current === 0) await connection.query("CREATE SCHEMA IF NOT EXISTS recall");
    await connection.query(
      "CREATE TABLE IF NOT EXISTS recall.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    for (let version = current + 1; version <= archiveSchemaVersion; version++) {
      await connection.query(archiveMigrations[version - 1]!);
      await connection.query("INSERT INTO recall.migrations (version) VALUES ($1)", [version]);
      applied.push(version);
    }
    const teamsCreated: string[] = [];
    for (const team of teams) if (await createTeam(connection, team)) teamsCreated.push(team);
    const vectors = await hasVectorExtension(connection);
    if (vectors) await ensureVectorTables(connection);
    return {
      applied,
      version: archiveSchemaVersion,
      teamsCreated,
      vectors,
      createRights: await findCreateRights(connection),
    };
  });
}

/**
 * The archive's schema version: 0 when it has none yet.
 * @throws ArchiveError for a failed query
 */
export async function archiveVersion(connection: ArchiveConnection): Promise<number> {
  const [exists] = await connection.query<{ found: boolean }>(
    "SELECT to_regclass('recall.migrations') IS NOT NULL AS found",
  );
  if (!exists?.found) return 0;
  const [row] = await connection.query<{ version: number | null }>(
    "SELECT max(version) AS version FROM recall.migrations",
  );
  return row?.version ?? 0;
}

/**
 * Fail unless the archive has this recall's schema version.
 * @throws ArchiveError ARCHIVE_NOT_INITIALIZED (no schema, or an older one: init upgrades it), ARCHIVE_FAILED (newer)
 */
export async function assertArchiveReady(connection: ArchiveConnection): Promise<void> {
  const version = await archiveVersion(connection);
  if (version === archiveSchemaVersion) return;
  if (version > archiveSchemaVersion)
    throw new ArchiveError(
      "ARCHIVE_FAILED",
      `the archive at ${connection.url.display} has schema version ${version}, newer than this recall's ${archiveSchemaVersion}`,
      { hint: "upgrade recall" },
    );
  throw new ArchiveError(
    "ARCHIVE_NOT_INITIALIZED",
    version === 0
      ? `the archive at ${connection.url.display} has no recall schema`
      : `the archive at ${connection.url.display} has schema version ${version}; this recall needs ${archiveSchemaVersion}`,
    { hint: "run `recall archive init <url>` as the database owner" },
  );
}

/**
 * A usable team name, or a UsageError saying what is allowed.
 * @throws UsageError
 */
export function checkTeamName(name: string): string {
  if (!teamNamePattern.test(name))
    throw new UsageError(
      `not a team name: ${JSON.stringify(name)}`,
      "use 1–40 lower-case letters, digits, _ or - (it becomes part of a role name)",
    );
  return name;
}

/** Create team `name` and its role when missing; returns true when it was created. */
async function createTeam(connection: ArchiveConnection, name: string): Promise<boolean> {
  const role = teamRole(name);
  const [existing] = await connection.query("SELECT 1 FROM recall.teams WHERE name = $1", [name]);
  if (existing) return false;
  // Role names cannot be parameters; the name was checked against teamNamePattern.
  await connection.query(
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE "${role}" NOLOGIN; END IF; END $$`,
  );
  await connection.query(`GRANT ${memberRole} TO "${role}"`);
  await connection.query("INSERT INTO recall.teams (name, role) VALUES ($1, $2)", [name, role]);
  return true;
}

/**
 * The vector side, created by init when the server offers pgvector (idempotent, outside the versioned migrations:
 * an archive gains it when pgvector is installed later and init runs again). One table holds every model's chunk
 * vectors (`vector` without a fixed width), with row-level security; the owner's functions over it are
 * {@link ensureVectorMatching}'s.
 */
async function ensureVectorTables(connection: ArchiveConnection): Promise<void> {
  // pgvector's control file names no schema, and this connection's path holds none to create in (connection.ts)
  await connection.query("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public");
  const [schema] = await connection.query<{ name: string }>(
    "SELECT pg_catalog.quote_ident(n.nspname) AS name FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'",
  );
  const vectorSchema = schema?.name ?? "public";
  const [exists] = await connection.query<{ found: boolean }>(
    "SELECT to_regclass('recall.chunk_vectors') IS NOT NULL AS found",
  );
  if (exists?.found) return ensureVectorMatching(connection, vectorSchema);
  await connection.query(`
    ALTER TABLE recall.documents ADD CONSTRAINT documents_owner UNIQUE (id, team, pushed_by);
    CREATE TABLE recall.embedding_models (
      id serial PRIMARY KEY,
      fingerprint text NOT NULL UNIQUE,
      dimensions integer NOT NULL CHECK (dimensions BETWEEN 1 AND 2000)
    );
    CREATE TABLE recall.chunk_vectors (
      document bigint NOT NULL,
      team text NOT NULL,
      pushed_by name NOT NULL DEFAULT current_user,
      model integer NOT NULL REFERENCES recall.embedding_models(id),
      chunk integer NOT NULL,
      embedding ${vectorSchema}.vector NOT NULL,
      PRIMARY KEY (document, model, chunk),
      FOREIGN KEY (document, team, pushed_by) REFERENCES recall.documents (id, team, pushed_by) ON DELETE CASCADE
    );
    GRANT SELECT ON recall.embedding_models TO ${memberRole};
    GRANT SELECT, INSERT, UPDATE, DELETE ON recall.chunk_vectors TO ${memberRole};
    ${rowPolicies("chunk_vectors")}
  `);
  await ensureVectorMatching(connection, vectorSchema);
}

/**
 * The owner's functions of the vector side, replaced on every init, so an archive gains a fix when init runs again.
 * Both run as the owner (SECURITY DEFINER) with the search path pinned to pg_catalog ({@link pinnedSearchPath}, issue
 * 37: pgvector's schema is often `public`, where a member may create, so it is never on their path) and name
 * pgvector's type, operator class and `<=>` operator by their qualified names (`vectorSchema`, already quoted).
 *
 * recall.register_model(fingerprint, dimensions) records a model and creates its HNSW index (cosine) on
 * `embedding::vector(d)` for that model's rows; members may not create indexes. It takes only a text and an integer.
 *
 * recall.match_vectors(model, dimensions, query, turns_only, max_rows): the nearest chunks of one model by cosine
 * distance, through the model's HNSW index, among the documents of the teams of the session's login role. Like
 * match_documents (schema version 2), it runs as the owner because pgvector's `<=>` is not leakproof: under row-level
 * security the index would not be used. The model id and width are integers, formatted into the statement so the
 * distance expression is the index's.
 */
async function ensureVectorMatching(connection: ArchiveConnection, vectorSchema: string): Promise<void> {
  const vector = `${vectorSchema}.vector`;
  const distance = `OPERATOR(${vectorSchema}.<=>)`;
  await connection.query(`
    CREATE OR REPLACE FUNCTION recall.register_model(model_fingerprint text, model_dimensions integer) RETURNS integer
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = ${pinnedSearchPath} AS $$
    DECLARE model_id integer;
    BEGIN
      IF model_dimensions IS NULL OR model_dimensions < 1 OR model_dimensions > 2000 THEN
        RAISE EXCEPTION 'model dimensions must be 1-2000, got %', model_dimensions;
      END IF;
      INSERT INTO recall.embedding_models (fingerprint, dimensions) VALUES (model_fingerprint, model_dimensions)
        ON CONFLICT (fingerprint) DO NOTHING;
      SELECT m.id INTO model_id FROM recall.embedding_models m
        WHERE m.fingerprint = model_fingerprint AND m.dimensions = model_dimensions;
      IF model_id IS NULL THEN RAISE EXCEPTION 'model % is registered with other dimensions', model_fingerprint; END IF;
      EXECUTE pg_catalog.format('CREATE INDEX IF NOT EXISTS chunk_vectors_model_%s ON recall.chunk_vectors USING hnsw '
        '((embedding::${vector}(%s)) ${vectorSchema}.vector_cosine_ops) WHERE model = %s',
        model_id, model_dimensions, model_id);
      RETURN model_id;
    END $$;
    REVOKE ALL ON FUNCTION recall.register_model(text, integer) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION recall.register_model(text, integer) TO ${memberRole};
    CREATE OR REPLACE FUNCTION recall.match_vectors(model integer, dimensions integer, query ${vector},
        turns_only boolean, max_rows integer)
      RETURNS TABLE (document bigint, cosine double precision) LANGUAGE plpgsql STABLE SECURITY DEFINER
      SET search_path = ${pinnedSearchPath} AS $$
    BEGIN
      RETURN QUERY EXECUTE pg_catalog.format(
        'SELECT cv.document, 1 - (cv.embedding::${vector}(%s) ${distance} $1::${vector}(%s)) '
        'FROM recall.chunk_vectors cv JOIN recall.documents d ON d.id = cv.document '
        'WHERE cv.model = %s AND cv.team = ANY ($2) AND (NOT $3 OR d.level = ''turn'') '
        'ORDER BY cv.embedding::${vector}(%s) ${distance} $1::${vector}(%s) LIMIT $4',
        dimensions, dimensions, model, dimensions, dimensions)
      USING query, recall.session_teams(), turns_only, max_rows;
    END $$;
    REVOKE ALL ON FUNCTION recall.match_vectors(integer, integer, ${vectorSchema}.vector, boolean, integer) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION recall.match_vectors(integer, integer, ${vectorSchema}.vector, boolean, integer)
      TO ${memberRole};
  `);
}

/** Whether the server offers pgvector (`vector` in pg_available_extensions). */
export async function hasVectorExtension(connection: ArchiveConnection): Promise<boolean> {
  const rows = await connection.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  return rows.length > 0;
}

/**
 * The teams the connected role may push to and read (recall.my_teams()), sorted; [] for a role in no team.
 * @throws ArchiveError for a failed query
 */
export async function teamsOfRole(connection: ArchiveConnection): Promise<string[]> {
  const [row] = await connection.query<{ teams: string[] }>("SELECT recall.my_teams() AS teams");
  return [...(row?.teams ?? [])].sort();
}
