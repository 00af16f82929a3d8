/**
 * One batch of `recall archive push` (issue 30): read from the local index and tokenized here ({@link prepareBatch},
 * synchronous, so the next batch is prepared while the archive writes the previous one), then written in the caller's
 * transaction ({@link sendBatch}): the session rows with their new content hash and abstract (schema.ts version 6),
 * their turns and documents (with their abstract column) replaced (the archive's trigger marks the replaced documents'
 * places removed in their batches), a batch row with the documents' count and tokens, the documents, their posting
 * lists (schema.ts version 4) and their chunk vectors.
 */
import type { Database } from "bun:sqlite";
import { type DocumentText, loadDocumentTexts } from "../index/write/documents.ts";
import type { PreparedTurn } from "../index/write/writer.ts";
import { sessionAbstract } from "../search/listing/sessions.ts";
import type { ArchiveConnection } from "./connection.ts";
import { type DocumentTerms, documentTerms } from "../index/postings/document-terms.ts";
import { insertPostingLists, type PostingEntries } from "./posting-lists.ts";
import {
  type BatchVector,
  readBatchVectors,
  type VectorSide,
  type VectorTarget,
  writeBatchVectors,
} from "./push-vectors.ts";

/**
 * A local session row as pushed (sessions table, with the title the listing shows, and what its abstract is made of:
 * the JSON of `sessions.abstract` and the `summaries` row's text and time, epoch ms; null when there is none).
 */
export interface LocalSession {
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
  abstract: string | null;
  summary: string | null;
  summary_made_at: number | null;
}

/**
 * The abstract a session is archived with (schema.ts version 6), as the local listing has it but whole
 * (search/listing/sessions.ts sessionAbstract: the summary first, then the agent's parts): its JSON, or null when the
 * session has neither a summary nor an abstract.
 */
export function archivedAbstract(
  session: Pick<LocalSession, "abstract" | "summary" | "summary_made_at">,
): string | null {
  const parts = sessionAbstract(session.abstract, session.summary, session.summary_made_at);
  return parts.length > 0 ? JSON.stringify(parts) : null;
}

/** A local turn row as pushed. */
type LocalTurn = { session_rowid: number } & Pick<
  PreparedTurn,
  "number" | "timestamp" | "prompt" | "response" | "tools" | "files"
>;

/** A local document as pushed: its row, its searched text, and its BM25 inputs. */
interface LocalDocument {
  id: number;
  session_rowid: number;
  level: string;
  turn_number: number;
  text: DocumentText;
  terms: DocumentTerms;
}

/** Everything one batch sends, read and tokenized. */
export interface PreparedBatch {
  sessions: readonly LocalSession[];
  turns: LocalTurn[];
  documents: LocalDocument[];
  /** Chunk vectors, their `document` an index in `documents`. */
  vectors: BatchVector[];
}

/** What one batch wrote. */
export interface BatchCounts {
  turns: number;
  documents: number;
  vectors: number;
}

/**
 * Read one batch of sessions from the local index: their turns, their documents' texts (rebuilt as the index built
 * them), each document's FTS5 tokens, and their chunk vectors when `vectorSide` is given.
 */
export function prepareBatch(
  db: Database,
  sessions: readonly LocalSession[],
  vectorSide: VectorSide | undefined,
): PreparedBatch {
  const rowids = sessions.map((s) => s.rowid);
  const marks = rowids.map(() => "?").join(",");
  const turns = db
    .query<LocalTurn, number[]>(
      `SELECT session_rowid, number, timestamp, prompt, response, tools, files FROM turns WHERE session_rowid IN (${marks}) ORDER BY session_rowid, number`,
    )
    .all(...rowids);
  const rows = db
    .query<{ id: number; session_rowid: number; level: string; turn_number: number }, number[]>(
      `SELECT id, session_rowid, level, turn_number FROM documents WHERE session_rowid IN (${marks}) ORDER BY id`,
    )
    .all(...rowids);
  const texts = loadDocumentTexts(
    db,
    rows.map((d) => d.id),
  );
  const kept = rows.filter((d) => texts.has(d.id));
  const documents = kept.map((d) => ({ ...d, text: texts.get(d.id)!, terms: documentTerms(texts.get(d.id)!) }));
  const vectors = vectorSide ? readBatchVectors(db, vectorSide, documents) : [];
  return { sessions, turns, documents, vectors };
}

/**
 * Write a prepared batch, inside the caller's transaction.
 * @param hashes content hash of each session, by local rowid
 * @throws ArchiveError from the connection
 */
export async function sendBatch(
  connection: ArchiveConnection,
  team: string,
  origin: { machine: string; osUser: string },
  batch: PreparedBatch,
  hashes: ReadonlyMap<number, string>,
  vectorTarget: VectorTarget | undefined,
): Promise<BatchCounts> {
  const { sessions } = batch;
  const ids = await connection.query<{ id: string; source: string; session_id: string }>(
    `INSERT INTO recall.sessions (team, machine, os_user, source, session_id, parent_session_id, is_subagent, project_path,
       project_name, git_branch, title, started_at, ended_at, turn_count, files, source_status, content_hash, abstract)
     SELECT $1, $2, $3, s.* FROM unnest($4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[], $9::text[], $10::text[],
       $11::text[], $12::bigint[], $13::bigint[], $14::integer[], $15::jsonb[], $16::text[], $17::text[], $18::jsonb[]) AS s
     ON CONFLICT (team, machine, source, session_id) DO UPDATE SET os_user = excluded.os_user,
       parent_session_id = excluded.parent_session_id, is_subagent = excluded.is_subagent, project_path = excluded.project_path,
       project_name = excluded.project_name, git_branch = excluded.git_branch, title = excluded.title,
       abstract = excluded.abstract, started_at = excluded.started_at, ended_at = excluded.ended_at, turn_count = excluded.turn_count,
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
      sessions.map(archivedAbstract),
    ],
  );
  const archiveIdOfKey = new Map(ids.map((row) => [`${row.source}\u0000${row.session_id}`, row.id]));
  const archiveIds = sessions.map((s) => archiveIdOfKey.get(`${s.source}\u0000${s.session_id}`)!);
  const archiveIdOf = new Map(sessions.map((s, i) => [s.rowid, archiveIds[i]!]));
  await connection.query("DELETE FROM recall.turns WHERE session = ANY($1::bigint[])", [archiveIds]);
  await connection.query("DELETE FROM recall.documents WHERE session = ANY($1::bigint[])", [archiveIds]);
  if (batch.turns.length > 0)
    await connection.query(
      `INSERT INTO recall.turns (session, team, number, timestamp, prompt, response, tools, files)
       SELECT t.session, $1, t.number, t.timestamp, t.prompt, t.response, t.tools, t.files
       FROM unnest($2::bigint[], $3::integer[], $4::bigint[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[])
         AS t(session, number, timestamp, prompt, response, tools, files)`,
      [
        team,
        batch.turns.map((t) => archiveIdOf.get(t.session_rowid)),
        batch.turns.map((t) => t.number),
        batch.turns.map((t) => t.timestamp),
        batch.turns.map((t) => t.prompt),
        batch.turns.map((t) => t.response),
        batch.turns.map((t) => t.tools),
        batch.turns.map((t) => t.files),
      ],
    );
  const { documents } = batch;
  if (documents.length === 0) return { turns: batch.turns.length, documents: 0, vectors: 0 };
  const [batchRow] = await connection.query<{ id: string }>(
    "INSERT INTO recall.batches (team, documents, tokens, positions) VALUES ($1, $2, $3, $2) RETURNING id",
    [team, documents.length, documents.reduce((sum, d) => sum + d.terms.length, 0)],
  );
  const inserted = await connection.query<{ id: string; session: string; level: string; turn_number: number }>(
    `INSERT INTO recall.documents (session, team, level, turn_number, heading, body, extra, abstract, batch, position,
         length)
       SELECT d.session, $1, d.level, d.turn_number, d.heading, d.body, d.extra, d.abstract, $2, d.position, d.length
       FROM json_to_recordset($3::json) AS d(session bigint, level text, turn_number integer, heading text, body text,
         extra text, abstract text, position integer, length integer)
       ORDER BY d.position
       RETURNING id, session, level, turn_number`,
    [
      team,
      batchRow!.id,
      JSON.stringify(
        documents.map((d, position) => ({
          session: archiveIdOf.get(d.session_rowid),
          level: d.level,
          turn_number: d.turn_number,
          heading: d.text.heading,
          body: d.text.body,
          extra: d.text.extra,
          abstract: d.text.abstract,
          position,
          length: d.terms.length,
        })),
      ),
    ],
  );
  await writePostings(connection, team, batchRow!.id, documents);
  // a document is (session, level, turn) in both stores: the archive id of each document, in the batch's order
  const archiveDocument = new Map(inserted.map((row) => [`${row.session}:${row.level}:${row.turn_number}`, row.id]));
  const documentIds = documents.map(
    (d) => archiveDocument.get(`${archiveIdOf.get(d.session_rowid)}:${d.level}:${d.turn_number}`)!,
  );
  const vectors =
    vectorTarget === undefined
      ? 0
      : await writeBatchVectors(connection, team, vectorTarget, batch.vectors, documentIds);
  return { turns: batch.turns.length, documents: documents.length, vectors };
}

/**
 * The posting lists of one batch of documents (a document's position in the batch is its index in `documents`): one
 * row per term, its documents' positions with their column-weighted frequencies and lengths (posting-lists.ts).
 * Grouped here (grouping the 77k (term, document) pairs of 100 generated sessions in the server took 3x longer).
 */
function writePostings(
  connection: ArchiveConnection,
  team: string,
  batch: string,
  documents: ReadonlyArray<{ terms: DocumentTerms }>,
): Promise<void> {
  const lists = new Map<string, PostingEntries>();
  for (const [position, { terms }] of documents.entries())
    for (const [term, frequency] of terms.frequencies) {
      let list = lists.get(term);
      if (!list) lists.set(term, (list = { positions: [], frequencies: [], lengths: [] }));
      list.positions.push(position);
      list.frequencies.push(frequency);
      list.lengths.push(terms.length);
    }
  return insertPostingLists(connection, team, batch, lists);
}
