/**
 * The error vocabulary of recall. Every failure a user can meet is a `RecallError` with a stable
 * `code`, a one-line lower-case `message` naming the offending value, an optional `hint` (the next
 * command to run) and the process `exitCode`. Only `src/cli.ts` catches and prints them
 * (`recall: <message>` + hint on stderr); library layers throw and never print.
 * Exit codes follow the grep/ripgrep convention (docs/style.md §4): 0 success, 1 failure, 2 usage.
 */

/** Stable machine-readable error codes; part of the `--json` error contract. */
export type RecallErrorCode =
  | "USAGE"
  | "INDEX_MISSING"
  | "INDEX_LOCKED"
  | "INDEX_BUILDING"
  | "INDEX_CORRUPT"
  | "HOME_UNUSABLE"
  | "INDEX_MODEL_MISMATCH"
  | "SOURCE_UNREADABLE"
  | "SESSION_NOT_FOUND"
  | "SESSION_AMBIGUOUS"
  | "TURN_NOT_FOUND"
  | "EMBEDDINGS_MISSING"
  | "MODEL_MISSING"
  | "MODEL_DOWNLOAD"
  | "EMBED_FAILED"
  | "ENDPOINT_UNREACHABLE"
  | "ENDPOINT_AUTH"
  | "ARCHIVE_UNREACHABLE"
  | "ARCHIVE_AUTH"
  | "ARCHIVE_REFUSED"
  | "ARCHIVE_NOT_INITIALIZED"
  | "ARCHIVE_FAILED"
  | "DISK_FULL"
  | "TOO_FEW_LABELS"
  | "INTERNAL";

/**
 * Base class of every expected failure.
 * @param code stable code, e.g. `INDEX_MISSING`
 * @param message one lower-case line naming the path or value involved
 * @param hint optional next step, e.g. "run `recall index` first"
 * @param exitCode 1 for failures (default), 2 for usage errors
 */
export class RecallError extends Error {
  readonly code: RecallErrorCode;
  readonly hint: string | undefined;
  readonly exitCode: 1 | 2;

  constructor(
    code: RecallErrorCode,
    message: string,
    options: { hint?: string; exitCode?: 1 | 2; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Bad flag, bad value, empty query: exit code 2. */
export class UsageError extends RecallError {
  constructor(message: string, hint?: string) {
    super("USAGE", message, { hint, exitCode: 2 });
  }
}

/** The index is missing, locked by another run, corrupt, or built with another model: exit code 1. */
export class IndexError extends RecallError {}

/** A source (file, database) cannot be read as a whole; carries the path and, when known, the 1-based line. */
export class SourceError extends RecallError {
  readonly path: string;
  readonly line: number | undefined;
  constructor(message: string, path: string, options: { line?: number; hint?: string; cause?: unknown } = {}) {
    super("SOURCE_UNREADABLE", message, { hint: options.hint, cause: options.cause });
    this.path = path;
    this.line = options.line;
  }
}

/** The embedding model file is missing or unloadable, or the remote endpoint failed: exit code 1. */
export class EmbedError extends RecallError {}

/**
 * The team archive (src/team-archive/) cannot be used: the server is unreachable (ARCHIVE_UNREACHABLE), refuses the
 * login (ARCHIVE_AUTH), refuses what the role asked (ARCHIVE_REFUSED: a permission or a row-level security policy), has
 * no recall schema yet (ARCHIVE_NOT_INITIALIZED), or failed otherwise (ARCHIVE_FAILED). Exit code 1.
 */
export class ArchiveError extends RecallError {}

/** A session id or prefix matched nothing, or more than one session. */
export class SessionLookupError extends RecallError {
  readonly candidates: string[];
  constructor(
    code: "SESSION_NOT_FOUND" | "SESSION_AMBIGUOUS",
    message: string,
    candidates: string[] = [],
    hint?: string,
  ) {
    super(code, message, { hint });
    this.candidates = candidates;
  }
}

/**
 * A turn number past the last turn of a session that exists (`recall show <id>:9` of a 4-turn session): a failure
 * like an unknown session, exit code 1, not a usage error (the reference is well formed).
 * @param message e.g. `session 2c5941bd-… has 4 turns; turn 9 does not exist`
 */
export class TurnNotFoundError extends RecallError {
  constructor(message: string, hint?: string) {
    super("TURN_NOT_FOUND", message, { hint });
  }
}

/** Narrowing helper: true when `error` is one of ours (and so safe to print without a stack). */
export function isRecallError(error: unknown): error is RecallError {
  return error instanceof RecallError;
}

/** Error codes of a full disk or an exhausted quota: SQLite's `SQLITE_FULL`, and errno `ENOSPC` / `EDQUOT` from node:fs. */
const diskFullCodes = new Set(["SQLITE_FULL", "ENOSPC", "EDQUOT"]);

/**
 * A full disk as a RecallError (code DISK_FULL, exit 1), or undefined for any other error. A write that meets a
 * full disk fails inside its transaction or before its rename (writes are atomic), so what earlier transactions
 * committed is kept and the index is not damaged: the message says so, and the hint says what to do.
 * @param error anything thrown; recognized by its `code` (bun:sqlite's SQLiteError, node:fs' SystemError)
 * @returns e.g. `the disk is full (writing /home/u/.local/share/recall/vectors/x.vec); the index is not damaged
 *   and keeps what was written before`, or undefined
 */
export function diskFullError(error: unknown): RecallError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !diskFullCodes.has(code)) return undefined;
  const path = (error as { path?: unknown }).path;
  const where = typeof path === "string" ? ` (writing ${path})` : "";
  return new RecallError(
    "DISK_FULL",
    `the disk is full${where}; the index is not damaged and keeps what was written before`,
    {
      hint: "free some space (or point RECALL_HOME at a disk with room) and run the command again",
      cause: error,
    },
  );
}
