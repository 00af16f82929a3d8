/**
 * `recall archive push` (issue 30): send what the local index holds and the archive lacks. The texts are the local
 * index's, which were redacted before they were stored (index/write: the same redaction), with tool calls as their
 * stored summaries (name, input summary, files; no outputs).
 *
 * Incremental and idempotent: a session is keyed by (team, machine, source, session id) and carries a content hash (its
 * metadata, each document's text hash and each turn's time); only sessions whose hash differs are sent. Resumable: each
 * batch of sessions is one transaction (the session rows with their new hash, then their turns and documents replaced),
 * so a push killed or disconnected mid-way leaves whole sessions only, and the next push sends what is still missing.
 * Concurrent pushers of one session serialize on its row (INSERT … ON CONFLICT takes the row lock until commit).
 * Sessions forgotten locally stay in the archive (forget can delete them there, on purpose).
 */
import type { Database } from "bun:sqlite";
import { hostname, userInfo } from "node:os";
import { loadDocumentTexts } from "../index/write/documents.ts";
import type { PreparedTurn } from "../index/write/writer.ts";
import { chunkStatus, readMeta } from "../index/schema.ts";
import {
  dimsOfFingerprint,
  embedFingerprintKey,
  openLevelStore,
  type VectorLevelName,
  vectorLevels,
} from "../index/vectors/vector-files.ts";
import type { VectorStore } from "../native/vector-store.ts";
import { ArchiveError } from "../errors.ts";
import type { ArchiveConnection } from "./connection.ts";
import { type DocumentTerms, KeywordTokenizer } from "./keyword-tokens.ts";
import { assertArchiveReady, checkTeamName, teamsOfRole } from "./schema.ts";

/** Where pushed sessions come from: the machine and operating-system user (shown with archive results). */
export interface PushOrigin {
  machine: string;
  osUser: string;
}

/** This machine's origin: its host name and the login name (USER, LOGNAME, else the passwd entry; "unknown"). */
export function localOrigin(): PushOrigin {
  let osUser = process.env.USER || process.env.LOGNAME || "";
  if (!osUser) {
    try {
      osUser = userInfo().username;
    } catch {
      // no passwd entry (some containers)
    }
  }
  return { machine: hostname(), osUser: osUser || "unknown" };
}

/** Options of {@link pushToArchive}. */
export interface PushOptions {
  /** Team to push to; default the role's only team. */
  team?: string;
  origin?: PushOrigin;
  /** Sessions per transaction (default 100). */
  batchSessions?: number;
  /** Called after each committed batch: sessions sent so far and to send in all. */
  onProgress?: (sent: number, total: number) => void;
  /**
   * The local index's folder (RECALL_HOME): its vector files are read to push the chunks' vectors when the index has a
   * model and the archive has pgvector; without it the push is keyword-only.
   */
  recallHome?: string;
}

/** What a push did (the `--json` summary). */
export interface PushSummary {
  archive: string;
  team: string;
  machine: string;
  /** Sessions in the local index. */
  sessions: number;
  /** Sessions sent (new or changed). */
  sent: number;
  /** Sessions the archive already had with the same content. */
  unchanged: number;
  turns: number;
  documents: number;
  /** Chunk vectors sent (0 when the index has no model or the archive no pgvector). */
  vectors: number;
  /** The embedding model whose vectors were sent (its fingerprint), or null. */
  vectorModel: string | null;
  elapsedMs: number;
}

interface LocalSession {
  rowid: number;
  source: string;
  session_id: string;
  parent_session_id: string | null;
  is_subagent: number;
  project_path: string;
  project_name: string;
  git_branch: string | null;
  title: string | null;
  started_at: number;
  ended_at: number;
  turn_count: number;
  files: string;
  source_status: string;
}

/**
 * Push the local index to the archive.
 * @param db the local index (read-only is enough)
 * @throws ArchiveError ARCHIVE_NOT_INITIALIZED (no schema), ARCHIVE_REFUSED (the role is in no team, or not in
 *         `team`), ARCHIVE_UNREACHABLE (the connection dropped: the batches committed before stay), ARCHIVE_FAILED
 * @throws UsageError for a bad team name
 */
export async function pushToArchive(
  db: Database,
  connection: ArchiveConnection,
  options: PushOptions = {},
): Promise<PushSummary> {
  const started = performance.now();
  await assertArchiveReady(connection);
  const team = await chooseTeam(connection, options.team);
  const origin = options.origin ?? localOrigin();
  const local = localSessions(db);
  const archived = new Map(
    (
      await connection.query<{ source: string; session_id: string; content_hash: string }>(
        "SELECT source, session_id, content_hash FROM recall.sessions WHERE team = $1 AND machine = $2",
        [team, origin.machine],
      )
    ).map((row) => [`${row.source}\u0000${row.session_id}`, row.content_hash]),
  );
  const vectorSide = await openVectorSide(db, connection, options.recallHome);
  const tokenizer = new KeywordTokenizer();
  const hashes = contentHashes(db, local, vectorSide?.fingerprint);
  const toSend = local.filter(
    (session) => archived.get(`${session.source}\u0000${session.session_id}`) !== hashes.get(session.rowid),
  );
  const batch = Math.max(1, options.batchSessions ?? 100);
  let turns = 0;
  let documents = 0;
  let vectors = 0;
  let sent = 0;
  options.onProgress?.(0, toSend.length);
  try {
    for (let start = 0; start < toSend.length; start += batch) {
      const sessions = toSend.slice(start, start + batch);
      const written = await connection.transaction(() =>
        writeBatch(db, connection, team, origin, sessions, hashes, vectorSide, tokenizer),
      );
      turns += written.turns;
      documents += written.documents;
      vectors += written.vectors;
      sent += sessions.length;
      options.onProgress?.(sent, toSend.length);
    }
  } finally {
    vectorSide?.close();
    tokenizer.close();
  }
  return {
    archive: connection.url.display,
    team,
    machine: origin.machine,
    sessions: local.length,
    sent,
    unchanged: local.length - toSend.length,
    turns,
    documents,
    vectors,
    vectorModel: vectorSide?.fingerprint ?? null,
    elapsedMs: performance.now() - started,
  };
}

/**
 * The team to push to: `wanted` when the role is in it, else the role's only team.
 * @throws ArchiveError ARCHIVE_REFUSED (no team, not in `wanted`), ARCHIVE_FAILED with exit code 2 when the role is
 *         in several teams and none was named
 */
export async function chooseTeam(connection: ArchiveConnection, wanted: string | undefined): Promise<string> {
  if (wanted !== undefined) checkTeamName(wanted);
  const teams = await teamsOfRole(connection);
  const role = connection.client.user ?? "this role";
  if (wanted !== undefined) {
    if (teams.includes(wanted)) return wanted;
    throw new ArchiveError(
      "ARCHIVE_REFUSED",
      `${role} is not a member of team ${wanted} in ${connection.url.display}`,
      {
        hint:
          teams.length > 0 ? `its teams: ${teams.join(", ")}` : `ask an admin: GRANT recall_team_${wanted} TO ${role}`,
      },
    );
  }
  if (teams.length === 1) return teams[0]!;
  if (teams.length === 0)
    throw new ArchiveError("ARCHIVE_REFUSED", `${role} is in no recall team in ${connection.url.display}`, {
      hint: "ask an archive admin: recall archive init <url> --team <name>, then GRANT recall_team_<name> TO <role>",
    });
  throw new ArchiveError("ARCHIVE_FAILED", `${role} is in several teams (${teams.join(", ")}): say which one`, {
    hint: "add --team <name>",
    exitCode: 2,
  });
}

function localSessions(db: Database): LocalSession[] {
  return db
    .query<LocalSession, []>(
      `SELECT id AS rowid, source, session_id, parent_session_id, is_subagent, project_path, project_name, git_branch,
        coalesce(title, derived_title) AS title,
        started_at, ended_at, turn_count, files, source_status FROM sessions ORDER BY id`,
    )
    .all();
}

/**
 * Content hash of each session (wyhash, hex): its metadata, its documents' text hashes, its turns' times, and, when
 * vectors are pushed, the model and how many of its chunks are embedded (a session embedded after a push is sent again).
 */
function contentHashes(
  db: Database,
  sessions: readonly LocalSession[],
  vectorFingerprint: string | undefined,
): Map<number, string> {
  const parts = new Map<number, string[]>(sessions.map((session) => [session.rowid, [JSON.stringify(session)]]));
  if (vectorFingerprint !== undefined) {
    for (const session of sessions) parts.get(session.rowid)!.push(`model:${vectorFingerprint}`);
    for (const row of db
      .query<{ session_rowid: number; n: number }, [number]>(
        "SELECT d.session_rowid, count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.status = ? GROUP BY d.session_rowid",
      )
      .all(chunkStatus.embedded))
      parts.get(row.session_rowid)?.push(`vectors:${row.n}`);
  }
  for (const row of db
    .query<{ session_rowid: number; level: string; turn_number: number; text_hash: string }, []>(
      "SELECT session_rowid, level, turn_number, text_hash FROM documents ORDER BY session_rowid, level, turn_number",
    )
    .all())
    parts.get(row.session_rowid)?.push(`${row.level}:${row.turn_number}:${row.text_hash}`);
  for (const row of db
    .query<{ session_rowid: number; number: number; timestamp: number }, []>(
      "SELECT session_rowid, number, timestamp FROM turns ORDER BY session_rowid, number",
    )
    .all())
    parts.get(row.session_rowid)?.push(`t${row.number}:${row.timestamp}`);
  return new Map([...parts].map(([rowid, values]) => [rowid, Bun.hash(values.join("\n")).toString(16)]));
}

/**
 * Write one batch of sessions (inside a transaction): their rows, then their turns and documents, replaced (the
 * archive's trigger takes the replaced documents out of their batches' postings), then the new documents' batch row
 * and postings (schema.ts version 3).
 */
async function writeBatch(
  db: Database,
  connection: ArchiveConnection,
  team: string,
  origin: PushOrigin,
  sessions: readonly LocalSession[],
  hashes: Map<number, string>,
  vectorSide: VectorSide | undefined,
  tokenizer: KeywordTokenizer,
): Promise<{ turns: number; documents: number; vectors: number }> {
  const ids = await connection.query<{ id: string; source: string; session_id: string }>(
    `INSERT INTO recall.sessions (team, machine, os_user, source, session_id, parent_session_id, is_subagent, project_path,
       project_name, git_branch, title, started_at, ended_at, turn_count, files, source_status, content_hash)
     SELECT $1, $2, $3, s.* FROM unnest($4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[], $9::text[], $10::text[],
       $11::text[], $12::bigint[], $13::bigint[], $14::integer[], $15::jsonb[], $16::text[], $17::text[]) AS s
     ON CONFLICT (team, machine, source, session_id) DO UPDATE SET os_user = excluded.os_user,
       parent_session_id = excluded.parent_session_id, is_subagent = excluded.is_subagent, project_path = excluded.project_path,
       project_name = excluded.project_name, git_branch = excluded.git_branch, title = excluded.title,
       started_at = excluded.started_at, ended_at = excluded.ended_at, turn_count = excluded.turn_count,
       files = excluded.files, source_status = excluded.source_status, content_hash = excluded.content_hash,
       pushed_at = now()
     RETURNING id, source, session_id`,
    [
      team,
      origin.machine,
      origin.osUser,
      sessions.map((s) => s.source),
      sessions.map((s) => s.session_id),
      sessions.map((s) => s.parent_session_id),
      sessions.map((s) => s.is_subagent === 1),
      sessions.map((s) => s.project_path),
      sessions.map((s) => s.project_name),
      sessions.map((s) => s.git_branch),
      sessions.map((s) => s.title),
      sessions.map((s) => s.started_at),
      sessions.map((s) => s.ended_at),
      sessions.map((s) => s.turn_count),
      sessions.map((s) => s.files),
      sessions.map((s) => s.source_status),
      sessions.map((s) => hashes.get(s.rowid)!),
    ],
  );
  const archiveIdOf = new Map(ids.map((row) => [`${row.source}\u0000${row.session_id}`, row.id]));
  const archiveIds = sessions.map((s) => archiveIdOf.get(`${s.source}\u0000${s.session_id}`)!);
  await connection.query("DELETE FROM recall.turns WHERE session = ANY($1::bigint[])", [archiveIds]);
  await connection.query("DELETE FROM recall.documents WHERE session = ANY($1::bigint[])", [archiveIds]);
  const rowids = sessions.map((s) => s.rowid);
  const archiveIdOfRowid = new Map(sessions.map((s, i) => [s.rowid, archiveIds[i]!]));
  const marks = rowids.map(() => "?").join(",");
  const turnRows = db
    .query<
      { session_rowid: number } & Pick<
        PreparedTurn,
        "number" | "timestamp" | "prompt" | "response" | "tools" | "files"
      >,
      number[]
    >(
      `SELECT session_rowid, number, timestamp, prompt, response, tools, files FROM turns WHERE session_rowid IN (${marks}) ORDER BY session_rowid, number`,
    )
    .all(...rowids);
  if (turnRows.length > 0)
    await connection.query(
      `INSERT INTO recall.turns (session, team, number, timestamp, prompt, response, tools, files)
       SELECT t.session, $1, t.number, t.timestamp, t.prompt, t.response, t.tools, t.files
       FROM unnest($2::bigint[], $3::integer[], $4::bigint[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[])
         AS t(session, number, timestamp, prompt, response, tools, files)`,
      [
        team,
        turnRows.map((t) => archiveIdOfRowid.get(t.session_rowid)),
        turnRows.map((t) => t.number),
        turnRows.map((t) => t.timestamp),
        turnRows.map((t) => t.prompt),
        turnRows.map((t) => t.response),
        turnRows.map((t) => t.tools),
        turnRows.map((t) => t.files),
      ],
    );
  const documentRows = db
    .query<{ id: number; session_rowid: number; level: string; turn_number: number }, number[]>(
      `SELECT id, session_rowid, level, turn_number FROM documents WHERE session_rowid IN (${marks}) ORDER BY id`,
    )
    .all(...rowids);
  const texts = loadDocumentTexts(
    db,
    documentRows.map((d) => d.id),
  );
  const kept = documentRows.filter((d) => texts.has(d.id));
  if (kept.length === 0) return { turns: turnRows.length, documents: 0, vectors: 0 };
  tokenizer.learn(kept.flatMap((d) => [texts.get(d.id)!.heading, texts.get(d.id)!.body, texts.get(d.id)!.extra]));
  const terms = kept.map((d) => tokenizer.documentTerms(texts.get(d.id)!));
  const [batchRow] = await connection.query<{ id: string }>(
    "INSERT INTO recall.batches (team, documents, tokens) VALUES ($1, $2, $3) RETURNING id",
    [team, kept.length, terms.reduce((sum, document) => sum + document.length, 0)],
  );
  const inserted = await connection.query<{ id: string; session: string; level: string; turn_number: number }>(
    `INSERT INTO recall.documents (session, team, level, turn_number, heading, body, extra, batch, length)
       SELECT d.session, $1, d.level, d.turn_number, d.heading, d.body, d.extra, $2, d.length
       FROM unnest($3::bigint[], $4::text[], $5::integer[], $6::text[], $7::text[], $8::text[], $9::integer[])
         AS d(session, level, turn_number, heading, body, extra, length)
       RETURNING id, session, level, turn_number`,
    [
      team,
      batchRow!.id,
      kept.map((d) => archiveIdOfRowid.get(d.session_rowid)),
      kept.map((d) => d.level),
      kept.map((d) => d.turn_number),
      kept.map((d) => texts.get(d.id)!.heading),
      kept.map((d) => texts.get(d.id)!.body),
      kept.map((d) => texts.get(d.id)!.extra),
      terms.map((document) => document.length),
    ],
  );
  // a document is (session, level, turn) in both stores: the archive id of each kept local document, in kept's order
  const archiveDocument = new Map(inserted.map((row) => [`${row.session}:${row.level}:${row.turn_number}`, row.id]));
  const archiveIdsOfKept = kept.map(
    (d) => archiveDocument.get(`${archiveIdOfRowid.get(d.session_rowid)}:${d.level}:${d.turn_number}`)!,
  );
  await writePostings(connection, team, batchRow!.id, archiveIdsOfKept, terms);
  const vectors = vectorSide ? await writeVectors(db, connection, team, vectorSide, kept, archiveIdsOfKept) : 0;
  return { turns: turnRows.length, documents: kept.length, vectors };
}

/**
 * The postings of one batch of documents (archive ids `documents`, their terms in the same order): one row per term,
 * its documents in ascending id order with their column-weighted frequencies and lengths. Sent as flat arrays and
 * grouped by the server.
 */
async function writePostings(
  connection: ArchiveConnection,
  team: string,
  batch: string,
  documents: readonly string[],
  terms: readonly DocumentTerms[],
): Promise<void> {
  const termColumn: string[] = [];
  const documentColumn: string[] = [];
  const frequencyColumn: number[] = [];
  const lengthColumn: number[] = [];
  for (const [i, document] of terms.entries())
    for (const [term, frequency] of document.frequencies) {
      termColumn.push(term);
      documentColumn.push(documents[i]!);
      frequencyColumn.push(frequency);
      lengthColumn.push(document.length);
    }
  if (termColumn.length === 0) return;
  await connection.query(
    `INSERT INTO recall.postings (term, batch, team, documents, frequencies, lengths)
     SELECT p.term, $1, $2, array_agg(p.document ORDER BY p.document), array_agg(p.frequency ORDER BY p.document),
       array_agg(p.length ORDER BY p.document)
     FROM unnest($3::text[], $4::bigint[], $5::real[], $6::integer[]) AS p(term, document, frequency, length)
     GROUP BY p.term`,
    [batch, team, termColumn, documentColumn, frequencyColumn, lengthColumn],
  );
}

/** The local model's vectors, readable, and the archive's id for that model. */
interface VectorSide {
  fingerprint: string;
  modelId: number;
  stores: Record<VectorLevelName, VectorStore>;
  close(): void;
}

/**
 * The vector side of a push, when both ends have one: the local index has an embedding model (its fingerprint
 * and width in meta) and vector files, and the archive has pgvector (recall.chunk_vectors); the model is registered in
 * the archive (recall.register_model creates its index). Undefined otherwise: the push is keyword-only.
 */
async function openVectorSide(
  db: Database,
  connection: ArchiveConnection,
  recallHome: string | undefined,
): Promise<VectorSide | undefined> {
  if (recallHome === undefined) return undefined;
  const fingerprint = readMeta(db, embedFingerprintKey);
  const dims = fingerprint ? dimsOfFingerprint(fingerprint) : undefined;
  if (!fingerprint || dims === undefined) return undefined;
  const [table] = await connection.query<{ found: boolean }>(
    "SELECT to_regclass('recall.chunk_vectors') IS NOT NULL AS found",
  );
  if (!table?.found) return undefined;
  const [model] = await connection.query<{ id: number }>("SELECT recall.register_model($1, $2) AS id", [
    fingerprint,
    dims,
  ]);
  const stores = Object.fromEntries(
    vectorLevels.map((level) => [level, openLevelStore(recallHome, level, { dims, fingerprintKey: fingerprint })]),
  ) as Record<VectorLevelName, VectorStore>;
  return {
    fingerprint,
    modelId: model!.id,
    stores,
    close: () => {
      for (const store of Object.values(stores)) store.close();
    },
  };
}

/** Send the embedded chunks' vectors of documents `kept` (local rows) as archive documents `archiveIds` (same order). */
async function writeVectors(
  db: Database,
  connection: ArchiveConnection,
  team: string,
  side: VectorSide,
  kept: ReadonlyArray<{ id: number; level: string }>,
  archiveIds: readonly string[],
): Promise<number> {
  const archiveIdOf = new Map(kept.map((d, i) => [d.id, archiveIds[i]!]));
  const levelOf = new Map(kept.map((d) => [d.id, d.level as VectorLevelName]));
  const chunks = db
    .query<{ id: number; document_id: number; chunk_index: number }, number[]>(
      `SELECT id, document_id, chunk_index FROM chunks WHERE status = ${chunkStatus.embedded}
       AND document_id IN (${kept.map(() => "?").join(",")})`,
    )
    .all(...kept.map((d) => d.id));
  const rows: Array<{ document: string; chunk: number; vector: Float32Array }> = [];
  for (const level of vectorLevels) {
    const ofLevel = chunks.filter((chunk) => levelOf.get(chunk.document_id) === level);
    const vectors = side.stores[level].vectorsOf(ofLevel.map((chunk) => chunk.id));
    for (const chunk of ofLevel) {
      const vector = vectors.get(chunk.id);
      if (vector) rows.push({ document: archiveIdOf.get(chunk.document_id)!, chunk: chunk.chunk_index, vector });
    }
  }
  if (rows.length === 0) return 0;
  await connection.query(
    `INSERT INTO recall.chunk_vectors (document, team, model, chunk, embedding)
     SELECT v.document, $1, $2, v.chunk, v.embedding::vector FROM unnest($3::bigint[], $4::integer[], $5::text[])
       AS v(document, chunk, embedding)`,
    [
      team,
      side.modelId,
      rows.map((row) => row.document),
      rows.map((row) => row.chunk),
      rows.map((row) => `[${Array.from(row.vector).join(",")}]`),
    ],
  );
  return rows.length;
}
