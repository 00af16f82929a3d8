/**
 * `recall doctor`'s checks: sources, index, vectors, model, endpoint. Each returns one CheckResult
 * (OK / WARN / FAIL with the fix to run). Nothing here prints, writes the index or loads a model unless
 * asked (`loadModel`); the network is used only for a configured EMBEDDINGS_URL and never under RECALL_OFFLINE=1.
 * The cleanup-period check lives in cleanup-period.ts; the folder and snapshot checks in archive.ts.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { join } from "node:path";
import { calibrationFor, describeCalibration } from "../search/ranking/calibration.ts";
import type { Database } from "bun:sqlite";
import type { UnreadHistory } from "../parsers/unread-history.ts";
import { isRecallError, type RecallErrorCode } from "../errors.ts";
import {
  createLocalEmbedder,
  describeDefaultModel,
  isOffline,
  loadEnvWithDotEnv,
  modelNameOf,
  readGgufModelInfo,
  resolveEmbedConfig,
  type EmbedConfig,
} from "../embed/index.ts";
import {
  chunkStatus,
  checkStaleness,
  damageHint,
  databasePath,
  homeFiles,
  isDamagedIndexError,
  isSqliteDamage,
  openIndex,
  readNotKept,
  type RecallPaths,
} from "../index/index.ts";
import { loadDotKernels, openVectorStore, type VectorLevel } from "../native/index.ts";
import {
  parsers,
  sources,
  type SourceContainer,
  type SourceId,
  type SourceRootMap,
  type UnavailablePath,
} from "../parsers/index.ts";

/**
 * A count with its noun in the singular or plural, as render/format.ts `countOf` (which this layer cannot import).
 *   `plural(1, "session")` → `1 session`;  `plural(3, "warning")` → `3 warnings`
 */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** OK: nothing to do; WARN: works, but something is missing or at risk; FAIL: broken (doctor exits 1). */
export type CheckStatus = "ok" | "warn" | "fail";

/** One line of the doctor report. */
export interface CheckResult {
  /** short stable name: "sources", "folders", "index", "snapshot", "not-kept", "unread", "vectors", "model", "endpoint", "summaries", "tuning", "cleanup" */
  id: string;
  status: CheckStatus;
  /** one line, what was found */
  message: string;
  /** the command or change that fixes it (WARN/FAIL) */
  fix?: string;
  /** the error code the CLI exits with when this check fails */
  errorCode?: RecallErrorCode;
}

/**
 * Containers of every source, scanned once and shared by the checks (stats only, no parsing), with the paths that
 * exist but cannot be read (the index keeps their sessions as they are and retries them every run).
 */
export type ScannedSources = Record<
  SourceId,
  { containers: SourceContainer[]; missingRoots: string[]; roots: string[]; unavailable: UnavailablePath[] }
>;

/** Scans the roots of every source (the parsers' stats-only scan). */
export function scanSources(roots: SourceRootMap): ScannedSources {
  const out = {} as ScannedSources;
  for (const parser of parsers) {
    const sourceRoots = roots[parser.id] ?? [];
    const scan = parser.scan(sourceRoots);
    out[parser.id] = {
      containers: scan.containers,
      missingRoots: scan.missingRoots,
      roots: sourceRoots,
      unavailable: scan.unavailable,
    };
  }
  return out;
}

/**
 * Sources found and readable: WARN when a source has no sessions, FAIL when a found file or a folder below a root
 * cannot be read (named, with the reason: what `recall index` reports as unavailable, issue 26).
 */
export function checkSources(scanned: ScannedSources): CheckResult {
  const parts: string[] = [];
  const unreadable: string[] = [];
  for (const [source, scan] of Object.entries(scanned)) {
    parts.push(`${source}: ${scan.containers.length} file(s) in ${scan.roots.join(", ") || "(none)"}`);
    for (const entry of scan.unavailable) unreadable.push(`${entry.path} (${entry.reason})`);
    for (const container of scan.containers) {
      try {
        accessSync(container.path, constants.R_OK);
      } catch {
        unreadable.push(`${container.path} (permission denied)`);
      }
    }
  }
  const message = parts.join("; ");
  if (unreadable.length > 0) {
    return {
      id: "sources",
      status: "fail",
      message: `${unreadable.length === 1 ? "a path" : `${unreadable.length} paths`} below the history folders cannot be read: ${unreadable.slice(0, 3).join(", ")}${unreadable.length > 3 ? ", …" : ""}`,
      fix: "give your user read access (chmod u+rx for a folder, u+r for a file); until then recall keeps what it indexed from there as it is, and re-indexing alone does not change that",
      errorCode: "SOURCE_UNREADABLE",
    };
  }
  if (Object.values(scanned).every((scan) => scan.containers.length === 0)) {
    return {
      id: "sources",
      status: "warn",
      message: `no history found (${message})`,
      fix: `point recall at your history: ${sources.map((source) => `--${source.flag}`).join(", ")} DIR, or the matching RECALL_*_DIRS variables`,
    };
  }
  return { id: "sources", status: "ok", message };
}

/**
 * Index healthy: the database exists, `PRAGMA integrity_check` and the FTS5 'integrity-check' command pass,
 * and it is not stale. Returns the open database (read-write, for the FTS5 command) for the vector check, or
 * undefined when there is none to check. A damaged index FAILs with the snapshot restore (when there is a
 * snapshot) or the rebuild as the fix (src/index/store/damage.ts damageHint). Cost: integrity_check reads every page
 * (12 ms for the 3.4 MB real-corpus index, 2.8 s for a 676 MB one with 25k sessions).
 */
export function checkIndex(
  recallHome: string,
  roots: SourceRootMap,
  scanned?: ScannedSources,
): { result: CheckResult; db: Database | undefined } {
  const path = databasePath(recallHome);
  if (!existsSync(path))
    return {
      result: { id: "index", status: "warn", message: `no index yet at ${path}`, fix: "run `recall index`" },
      db: undefined,
    };
  let db: Database;
  try {
    db = openIndex(path, { create: false });
  } catch (error) {
    const fix = isDamagedIndexError(error)
      ? damageHint(path)
      : (isRecallError(error) && error.hint) || damageHint(path);
    const errorCode = isRecallError(error) ? error.code : "INDEX_CORRUPT";
    return {
      result: { id: "index", status: "fail", message: (error as Error).message, fix, errorCode },
      db: undefined,
    };
  }
  try {
    const rows = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    if (rows.length !== 1 || rows[0]!.integrity_check !== "ok")
      throw new Error(
        `integrity_check: ${rows
          .map((row) => row.integrity_check)
          .slice(0, 3)
          .join("; ")}`,
      );
    db.exec("INSERT INTO documents_fts(documents_fts) VALUES ('integrity-check')");
  } catch (error) {
    const detail =
      isDamagedIndexError(error) && isSqliteDamage(error.cause)
        ? (error.cause as Error).message
        : (error as Error).message;
    return {
      result: {
        id: "index",
        status: "fail",
        message: `the index at ${path} is damaged (${detail})`,
        fix: damageHint(path),
        errorCode: "INDEX_CORRUPT",
      },
      db,
    };
  }
  const sessions = db.query<{ n: number }, []>("SELECT count(*) AS n FROM sessions").get()?.n ?? 0;
  const staleness = checkStaleness(db, roots, {}, { scan: "whole" }); // every file, as status does
  const unreadableSources = staleness.staleSources.filter((source) => (scanned?.[source].unavailable.length ?? 0) > 0);
  if (staleness.stale && unreadableSources.length === staleness.staleSources.length) {
    // An index run cannot read these paths either: it keeps their sessions and marks the source for a retry, which
    // keeps it stale. Advising `recall index` would never help (issue 26); the sources check names the paths.
    const first = scanned?.[unreadableSources[0]!].unavailable[0];
    return {
      result: {
        id: "index",
        status: "warn",
        message: `${plural(sessions, "session")} indexed; ${unreadableSources.join(", ")} cannot be read whole (${first?.path}: ${first?.reason}), so the sessions indexed from there are kept as they are`,
        fix: `make ${first?.path} readable (see sources); re-indexing alone does not help`,
      },
      db,
    };
  }
  if (staleness.stale) {
    return {
      result: {
        id: "index",
        status: "warn",
        message: `${plural(sessions, "session")} indexed, but ${staleness.staleSources.join(", ")} changed since`,
        fix: "run `recall index` (search does it too unless --no-reindex)",
      },
      db,
    };
  }
  return {
    result: {
      id: "index",
      status: "ok",
      message: `${plural(sessions, "session")} indexed at ${path}; SQLite and FTS5 integrity checks pass`,
    },
    db,
  };
}

/**
 * History recall does not read (issue 40): OK when no agent recall knows of keeps sessions it cannot read at its
 * default place; WARN naming each folder, its file count and why (parsers/unread-history.ts).
 */
export function checkUnreadHistory(unread: readonly UnreadHistory[]): CheckResult {
  if (unread.length === 0)
    return { id: "unread", status: "ok", message: "no history of an agent recall does not read was found" };
  return {
    id: "unread",
    status: "warn",
    message: `history recall does not read: ${unread.map((entry) => `${entry.agent}, ${plural(entry.files, "file")} in ${entry.folder} (${entry.reason})`).join("; ")}`,
    fix: "nothing to do now: these sessions are not searchable until recall reads their format",
  };
}

/**
 * What the index could not keep (issue 26): OK when every file and record found a place; WARN naming the first
 * rejected files and unplaced records with their reasons. Nothing to re-run: the files are untouched on disk, and
 * `recall status --json` lists them all.
 */
export function checkNotKept(db: Database): CheckResult {
  const notKept = readNotKept(db, 3);
  if (notKept.rejectedFileCount === 0 && notKept.unplacedRecordCount === 0) {
    return { id: "not-kept", status: "ok", message: "every file and record read so far is in the index" };
  }
  const examples = [
    ...notKept.rejectedFiles.map((file) => `${file.path}: ${file.reason}`),
    ...notKept.unplacedRecords.map((row) => `${row.first}: ${row.reason}`),
  ].slice(0, 3);
  return {
    id: "not-kept",
    status: "warn",
    message: `${plural(notKept.rejectedFileCount, "file")} rejected whole, ${plural(notKept.unplacedRecordCount, "record")} not placed in their session (their text is not searchable), e.g. ${examples.join("; ")}`,
    fix: "`recall status --json` lists every one with its reason; the files themselves are untouched",
  };
}

/** Ids of chunks marked embedded in the database, per level. */
function embeddedChunkIds(db: Database, level: VectorLevel): Set<number> {
  const rows = db
    .query<{ id: number }, [string, number]>(
      "SELECT chunks.id AS id FROM chunks JOIN documents ON documents.id = chunks.document_id WHERE documents.level = ? AND chunks.status = ?",
    )
    .all(level, chunkStatus.embedded);
  return new Set(rows.map((row) => row.id));
}

/**
 * Vector files match the database: every chunk the database marks embedded has a row in the level's segment
 * files (src/native VectorStore.ids()); rows of deleted chunks are only counted (compaction drops them). Also
 * names the scan kernels (usearch's batch call, simsimd's pairwise one, or the TypeScript loop: WARN without the batch
 * kernel, which every release platform has).
 */
export function checkVectors(db: Database, recallHome: string): CheckResult {
  const dir = join(recallHome, homeFiles.vectors);
  const notes: string[] = [];
  let missingTotal = 0;
  for (const level of ["session", "turn"] as const) {
    const expected = embeddedChunkIds(db, level);
    // dims/fingerprint only matter for search; ids() reads any segment.
    const store = openVectorStore({ dir, level, dims: 1, fingerprint: "recall-doctor" });
    try {
      const stored = new Set(store.ids());
      let missing = 0;
      for (const id of expected) if (!stored.has(id)) missing++;
      let dead = 0;
      for (const id of stored) if (!expected.has(id)) dead++;
      missingTotal += missing;
      notes.push(
        `${level}: ${expected.size} embedded, ${stored.size} stored${missing ? `, ${missing} missing` : ""}${dead ? `, ${dead} unused (compacted later)` : ""}`,
      );
    } finally {
      store.close();
    }
  }
  let kernelNote = "";
  const kernels = loadDotKernels((message) => void (kernelNote = message));
  notes.push(`dot product: ${kernels.name}`);
  if (missingTotal > 0) {
    return {
      id: "vectors",
      status: "warn",
      message: `${missingTotal} embedded chunk(s) have no vector (${notes.join("; ")})`,
      fix: "run `recall index --full` to re-embed them",
    };
  }
  if (kernels.batch === undefined && process.env.RECALL_NO_SIMSIMD !== "1") {
    return {
      id: "vectors",
      status: "warn",
      message: `${notes.join("; ")}; ${kernelNote}`,
      fix: "vector search works but is 2-3x slower; reinstall recall (the usearch addon should be inside the binary; on Linux it needs glibc >= 2.34)",
    };
  }
  return { id: "vectors", status: "ok", message: notes.join("; ") };
}

/** Resolves the embedding config; a config error becomes a FAIL (bad value) or WARN (remote under offline). */
export function resolveConfigForDoctor(
  env: Record<string, string | undefined>,
  paths: RecallPaths,
  modelFlag: string | undefined,
): { config?: EmbedConfig; result?: CheckResult } {
  try {
    return { config: resolveEmbedConfig({ env, home: paths, modelFlag }) };
  } catch (error) {
    const hint = (error as { hint?: string }).hint;
    if ((error as { code?: string }).code === "ENDPOINT_UNREACHABLE") {
      return {
        result: {
          id: "endpoint",
          status: "warn",
          message: "EMBEDDINGS_URL is set but RECALL_OFFLINE=1: the endpoint is not checked and not used",
          fix: hint ?? "unset RECALL_OFFLINE to use it",
        },
      };
    }
    return {
      result: {
        id: "model",
        status: "fail",
        message: (error as Error).message,
        fix: hint ?? "fix RECALL_MODEL / EMBEDDINGS_URL",
        errorCode: "USAGE",
      },
    };
  }
}

/** ` (the default here: <reason>)` when `config` is the hardware default preset, else "" (embed/config.ts `describeDefaultModel`). */
function defaultNote(config: Extract<EmbedConfig, { kind: "local" }>): string {
  const choice = describeDefaultModel();
  return config.preset?.name === choice.name ? ` (the default here: ${choice.reason})` : "";
}

/**
 * Local model present (GGUF header readable: dims, pooling) and, with `load`, loadable: node-llama-cpp loads
 * it and embeds one probe text (slow: the import alone is ~150 ms, runtime-notes §1).
 */
export async function checkLocalModel(
  config: Extract<EmbedConfig, { kind: "local" }>,
  load: boolean,
): Promise<CheckResult> {
  if (!existsSync(config.modelPath)) {
    const fix = config.preset
      ? config.offline
        ? "download it while online (RECALL_OFFLINE=1 forbids it), or set EMBEDDINGS_URL"
        : "it is downloaded on the first `recall index`; or set EMBEDDINGS_URL to use a remote endpoint"
      : "check the path in --model / RECALL_MODEL";
    return {
      id: "model",
      status: config.preset ? "warn" : "fail",
      message: `model ${config.name}${defaultNote(config)} not found at ${config.modelPath}; search is keyword-only`,
      fix,
      errorCode: "MODEL_MISSING",
    };
  }
  let info: { dims: number; pooling: string };
  try {
    const header = readGgufModelInfo(config.modelPath);
    info = { dims: header.dims, pooling: header.pooling };
  } catch (error) {
    return {
      id: "model",
      status: "fail",
      message: `${config.modelPath} is not a readable GGUF model (${(error as Error).message})`,
      fix: "delete it and download it again",
      errorCode: "MODEL_MISSING",
    };
  }
  const described = `model ${config.name}${defaultNote(config)} (${info.dims} dims, ${info.pooling} pooling) at ${config.modelPath}`;
  if (!load) return { id: "model", status: "ok", message: `${described}; not loaded (use --check-model)` };
  const startedMs = performance.now();
  try {
    const embedder = await createLocalEmbedder(config);
    try {
      const vector = await embedder.embedQuery("recall doctor probe");
      return {
        id: "model",
        status: "ok",
        message: `${described}; loaded and embedded a probe (${vector.length} dims) in ${Math.round(performance.now() - startedMs)} ms`,
      };
    } finally {
      await embedder.dispose();
    }
  } catch (error) {
    return {
      id: "model",
      status: "fail",
      message: `${described} cannot be loaded: ${(error as Error).message.split("\n")[0]}`,
      fix: "download the model again, or set EMBEDDINGS_URL to embed remotely",
      errorCode: "EMBED_FAILED",
    };
  }
}

/**
 * Whether hybrid search has a calibration for the configured model (search/ranking/calibration.ts): OK for a fitted one or a
 * documented prior, WARN for a model without one (it gets the conservative default: the keyword leg leads and its
 * cosine adds no confidence).
 */
export function checkCalibration(config: EmbedConfig): CheckResult {
  const model = modelNameOf(config);
  const calibration = calibrationFor(model);
  const message = describeCalibration(model, calibration);
  return calibration.status === "default"
    ? {
        id: "calibration",
        status: "warn",
        message,
        fix: "hybrid search still works; its ranking is tuned less for this model",
      }
    : { id: "calibration", status: "ok", message };
}

/** The remote endpoint answers one embeddings request (5 s timeout by default) with a vector. */
export async function checkEndpoint(
  config: Extract<EmbedConfig, { kind: "remote" }>,
  timeoutMs = 5000,
): Promise<CheckResult> {
  const fix = "check EMBEDDINGS_URL (and EMBEDDINGS_API_KEY), or unset it to embed locally";
  try {
    const response = await fetch(config.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({ input: ["recall doctor probe"], model: config.model }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok)
      return {
        id: "endpoint",
        status: "fail",
        message: `${config.url} answered HTTP ${response.status}`,
        fix,
        errorCode: "ENDPOINT_UNREACHABLE",
      };
    const body = (await response.json()) as { data?: Array<{ embedding?: unknown }> };
    const vector = body.data?.[0]?.embedding;
    if (!Array.isArray(vector))
      return {
        id: "endpoint",
        status: "fail",
        message: `${config.url} answered without data[0].embedding`,
        fix,
        errorCode: "ENDPOINT_UNREACHABLE",
      };
    return {
      id: "endpoint",
      status: "ok",
      message: `${config.url} reachable (model ${config.model}, ${vector.length} dims)`,
    };
  } catch (error) {
    return {
      id: "endpoint",
      status: "fail",
      message: `${config.url} unreachable: ${(error as Error).message}`,
      fix,
      errorCode: "ENDPOINT_UNREACHABLE",
    };
  }
}

/** The environment the embedding checks see: `env` over the `.env` file in `paths.config` (as the index does). */
export function effectiveEnv(
  env: Record<string, string | undefined>,
  paths: RecallPaths,
): { env: Record<string, string | undefined>; offline: boolean } {
  const merged = loadEnvWithDotEnv(env, paths);
  return { env: merged, offline: isOffline(merged) };
}
