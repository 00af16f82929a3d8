/**
 * `recall archive push` (issue 30): send what the local index holds and the archive lacks. The texts are the local
 * index's, which were redacted before they were stored (index/write: the same redaction), with tool calls as their
 * stored summaries (name, input summary, files; no outputs).
 *
 * Incremental and idempotent: a session is keyed by (team, machine, source, session id) and carries a content hash (its
 * metadata, its abstract, each document's text hash and each turn's time); only sessions whose hash differs are sent.
 * Resumable: each batch of sessions is one transaction (the session rows with their new hash, then their turns and
 * documents replaced), so a push killed or disconnected mid-way leaves whole sessions only, and the next push sends
 * what is still missing.
 * Concurrent pushers of one session serialize on its row (INSERT … ON CONFLICT takes the row lock until commit).
 * Sessions forgotten locally stay in the archive (forget can delete them there, on purpose).
 */
import type { Database } from "bun:sqlite";
import { hostname, userInfo } from "node:os";
import { chunkStatus } from "../index/schema.ts";
import { ArchiveError } from "../errors.ts";
import { type ArchiveConnection, openArchive } from "./connection.ts";
import { type CompactionLimits, compactBatches } from "./compact.ts";
import {
  archivedAbstract,
  type BatchCounts,
  type LocalSession,
  type PreparedBatch,
  prepareBatch,
  sendBatch,
} from "./push-batch.ts";
import { openVectorSide } from "./push-vectors.ts";
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

/** Sessions below which the archive counts as small at a push's start (its statistics are refreshed after a batch). */
const smallArchiveSessions = 10_000;

/** Options of {@link pushToArchive}. */
export interface PushOptions {
  /** Team to push to; default the role's only team. */
  team?: string;
  origin?: PushOrigin;
  /** Sessions per transaction (default 100). */
  batchSessions?: number;
  /**
   * Connections writing at once (default 2: one batch is written while the next is read and tokenized here); the
   * second is opened from the same URL after the first batch, and the push goes on with one if it cannot be.
   */
  connections?: number;
  /** Thresholds of the merge of small batches after the push (default compact.ts's). */
  compaction?: CompactionLimits;
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
  /** This role's small batches merged into bigger ones after the push (compact.ts), 0 when there were few. */
  compactedBatches: number;
  elapsedMs: number;
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
  const hashes = contentHashes(db, local, vectorSide?.fingerprint);
  const toSend = local.filter(
    (session) => archived.get(`${session.source}\u0000${session.session_id}`) !== hashes.get(session.rowid),
  );
  const batchSessions = Math.max(1, options.batchSessions ?? 100);
  const batches: LocalSession[][] = [];
  for (let start = 0; start < toSend.length; start += batchSessions)
    batches.push(toSend.slice(start, start + batchSessions));
  const totals: BatchCounts = { turns: 0, documents: 0, vectors: 0 };
  let sent = 0;
  options.onProgress?.(0, toSend.length);
  const send = async (on: ArchiveConnection, prepared: PreparedBatch) => {
    const written = await on.transaction(() => sendBatch(on, team, origin, prepared, hashes, vectorSide));
    totals.turns += written.turns;
    totals.documents += written.documents;
    totals.vectors += written.vectors;
    sent += prepared.sessions.length;
    options.onProgress?.(sent, toSend.length);
  };
  const lanes: ArchiveConnection[] = [connection];
  let compactedBatches = 0;
  try {
    // An archive that had few sessions gets statistics after the first batch (schema.ts: recall.refresh_statistics),
    // before a second connection plans its foreign-key checks.
    const [size] = await connection.query<{ sessions: number }>(
      "SELECT reltuples::float8 AS sessions FROM pg_class WHERE oid = 'recall.sessions'::regclass",
    );
    if (batches.length > 0) {
      await send(connection, prepareBatch(db, batches[0]!, vectorSide));
      if (Number(size?.sessions ?? -1) < smallArchiveSessions)
        await connection.query("SELECT recall.refresh_statistics()");
    }
    if (batches.length > 2 && (options.connections ?? 2) > 1) {
      // a second lane: the archive writes one batch while this process prepares the next (2 cores: both busy)
      const second = await openArchive(connection.url, { applicationName: "recall push" }).catch(() => undefined);
      if (second) lanes.push(second);
    }
    const inFlight = new Map<ArchiveConnection, Promise<void>>();
    let failure: unknown;
    for (const sessions of batches.slice(1)) {
      const prepared = prepareBatch(db, sessions, vectorSide);
      let lane = lanes.find((candidate) => !inFlight.has(candidate));
      if (!lane) {
        lane = await Promise.race([...inFlight].map(([on, done]) => done.then(() => on)));
        inFlight.delete(lane);
      }
      const on = lane;
      inFlight.set(
        on,
        send(on, prepared).catch((error) => {
          failure ??= error;
        }),
      );
      if (failure) break;
    }
    await Promise.all(inFlight.values());
    if (failure) throw failure;
    compactedBatches = await compactBatches(connection, team, options.compaction);
  } finally {
    for (const lane of lanes.slice(1)) await lane.close();
    vectorSide?.close();
  }
  return {
    archive: connection.url.display,
    team,
    machine: origin.machine,
    sessions: local.length,
    sent,
    unchanged: local.length - toSend.length,
    ...totals,
    vectorModel: vectorSide?.fingerprint ?? null,
    compactedBatches,
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
      `SELECT s.id AS rowid, s.source, s.session_id, s.parent_session_id, s.is_subagent, s.project_path, s.project_name,
        s.git_branch, coalesce(s.title, s.derived_title) AS title,
        s.started_at, s.ended_at, s.turn_count, s.files, s.source_status,
        s.abstract, m.text AS summary, m.made_at AS summary_made_at
       FROM sessions s LEFT JOIN summaries m ON m.session_rowid = s.id ORDER BY s.id`,
    )
    .all();
}

/**
 * Content hash of each session (wyhash, hex): its metadata, its abstract as archived (issue 41: the summary and the
 * agent's parts, with their times; left out when empty, so a session without one keeps the hash it had before
 * archive schema 6), its documents' text hashes, its turns' times, and, when vectors are pushed, the model and how many
 * of its chunks are embedded (a session embedded after a push is sent again).
 */
function contentHashes(
  db: Database,
  sessions: readonly LocalSession[],
  vectorFingerprint: string | undefined,
): Map<number, string> {
  const parts = new Map<number, string[]>(
    sessions.map((session) => {
      const { abstract: _abstract, summary: _summary, summary_made_at: _madeAt, ...row } = session;
      const abstract = archivedAbstract(session);
      return [session.rowid, [JSON.stringify(row), ...(abstract === null ? [] : [`abstract:${abstract}`])]];
    }),
  );
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
