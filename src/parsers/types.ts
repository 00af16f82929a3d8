/**
 * The normalized model every parser produces (`Session`, `Turn`, `ToolCall`) and the `Parser`
 * contract each source implements. Nothing after the parsers knows which tool wrote a session
 * except to print `source`. Times are epoch milliseconds UTC everywhere past this point.
 * Lifecycle (docs/style.md §4, after ccusage's adapter contract):
 *   scan (stats only) → listUnits (cheap listing) → parse (one session, optionally resumed).
 */

/** Source ids, in display order. Adding a tool = adding one id here and one parser file. */
export const sourceIds = [
  "claude-code",
  "opencode",
  "codex",
  "gemini-cli",
  "cursor",
  "aider",
  "copilot-cli",
  "qwen-code",
  "kimi-cli",
  "cline",
  "roo-code",
  "kilo-code",
  "pi",
  "droid",
  "goose",
  "crush",
  "continue",
  "cursor-agent",
  "copilot-chat",
  "zed",
  "openclaw",
  "mistral-vibe",
  "grok-cli",
  "codebuff",
] as const;

/** One of {@link sourceIds}. */
export type SourceId = (typeof sourceIds)[number];

/** Folders to read per source; a source left out has no folders (nothing of it is scanned this run). */
export type SourceRootMap = Partial<Record<SourceId, string[]>>;

/**
 * One tool invocation inside a turn, in one vocabulary for every source
 * (`Bash`, `Read`, `Edit`, `Write`, `Grep`, `Glob`, `WebFetch`, `WebSearch`, `Task`, `TodoWrite`,
 * MCP tools as `mcp__<server>__<tool>`, anything else kept as the tool named it).
 */
export interface ToolCall {
  /** Normalized tool name, e.g. `Bash`. */
  name: string;
  /** Compact input for display and search: the file path, command, pattern, url or description; may be "". */
  input: string;
  /** The file this call read or wrote, when it is a file tool; absolute or as the tool gave it. */
  filePath?: string;
  /** True when the tool reported an error (Claude `is_error`, OpenCode `state.status == "error"`). */
  isError: boolean;
  /** Lines added / removed for edits and writes, when derivable from the input (for `[Edit] x (+12 −3)`). */
  linesAdded?: number;
  linesRemoved?: number;
  /** Full output text; present only when parsed with `withOutputs` (level 3). */
  output?: string;
  /**
   * The session id of the sub-agent this call started (a Claude Code Task/Agent call: `agent-<agentId>` of its agent
   * file, or `agent-<first line uuid>` of an inline sub-agent chain, issue 26), when the source links the two.
   */
  subagentSessionId?: string;
  /**
   * What an edit or write call changed, for drawing it as a diff (issue 29); present only when parsed with
   * `withOutputs` (level 3), never in the index. Filled by file-change.ts; see {@link FileChange} for the shapes.
   */
  change?: FileChange;
}

/**
 * The texts of one file change as the tool call carried them (issue 29), kept whole except that each text longer
 * than 200,000 characters is cut with a marker line (file-change.ts `fileChangeTextMaxChars`, `capChangeText`).
 * Shapes by `kind`, and the tool inputs they come from (seen in ../shared/corpus unless said otherwise):
 * - `edit`: `edits` = one or more replacements, `before` replaced by `after`, in the order the tool applied them.
 *   Claude Code `Edit {file_path, old_string, new_string, replace_all?}` and `MultiEdit {file_path,
 *   edits:[{old_string, new_string}]}` (claude-code corpus, e.g. LAF-US/IDAHO-VAULT 744827a2….jsonl,
 *   d-kimuson/claude-code-viewer fe5e1c67….jsonl); OpenCode `edit {filePath, oldString, newString}`
 *   (richardaiand opencode.db); Gemini CLI `replace {file_path, old_string, new_string, instruction?,
 *   allow_multiple?, modified_by_user?, ai_proposed_content?}` (LAF-US/IDAHO-VAULT xs82vp.json, fabien-lessirard
 *   session-2026-02-27…json). `before` is "" when the tool created the file from an empty old string.
 * - `write`: `content` = the whole new file. Claude Code `Write {file_path, content}` (LAF-US/IDAHO-VAULT
 *   744827a2….jsonl); OpenCode `write {filePath,
 *   content}` (richardaiand opencode.db); Gemini CLI `write_file {file_path, content, modified_by_user?,
 *   ai_proposed_content?}` (LAF-US/IDAHO-VAULT session-2026-04-14…json). With `modified_by_user` the texts are the
 *   ones the user approved (what was written), not `ai_proposed_content`.
 * - `patch`: `patch` = Codex CLI `apply_patch` text (`custom_tool_call.input`, the patch itself: `*** Begin Patch`
 *   … `*** End Patch`; 0h-n0/local-voice-assistant-codex and blubber/dotfiles rollouts; the same text run as a
 *   `shell` argv or an `apply_patch` heredoc is read the same way, a form not in the corpus). Codex lists one call per
 *   patched file, so each call's `patch` is that file's part, from its `*** Add|Update|Delete File:` line to the
 *   line before the next file header or `*** End Patch`, verbatim; a patch whose file headers do not parse is kept
 *   whole on its one `Patch` call, with `path` "".
 * `path` is the file as the call named it (Codex: the `*** Move to:` target of a renamed file).
 */
export interface FileChange {
  path: string;
  kind: "edit" | "write" | "patch";
  /** `kind` "edit": the replacements, in order (at least one). */
  edits?: Array<{ before: string; after: string }>;
  /** `kind` "write": the whole new content. */
  content?: string;
  /** `kind` "patch": the patch text for this file. */
  patch?: string;
}

/**
 * A human prompt plus everything the agent did until the next human prompt (DESIGN.md "Turn").
 * `number` is 1-based in conversation order; turn numbers are stable across re-parses of an
 * unchanged prefix, which the incremental indexer relies on. A negative number is a rewound turn (issue 26): a
 * prompt or answer on a branch the user rewound past (Claude Code checkpoint rewind, edited prompt), numbered -1, -2,
 * … in file order, kept searchable but out of the main turn list (`isRewound`); `Session.turnCount` counts main turns.
 */
export interface Turn {
  sessionId: string;
  number: number;
  /** Time of the prompt, epoch ms UTC (0 when the source has none). */
  timestamp: number;
  /** The human prompt text, whole (slash-command wrappers reduced to `/cmd args`). */
  prompt: string;
  /** Assistant prose of the turn (text blocks joined with blank lines; no thinking, no tool payloads). */
  response: string;
  toolCalls: ToolCall[];
  /** Files touched by file tools in this turn, unique, in first-touch order. */
  files: string[];
  /** True when the turn belongs to a sub-agent session. */
  isSubagent: boolean;
  /**
   * The models that answered in this turn and the tokens each used, as the agent recorded them (issue 38 item 14),
   * in first-answer order; absent when the source records no model or usage for the turn (Cursor, Aider, a prompt
   * from a history file). See {@link ModelUsage} for what each source gives.
   */
  usage?: ModelUsage[];
}

/**
 * One model's usage within a turn; every count is a number of tokens, null when the source did not record it (never
 * 0 for unknown). Sources (docs/formats.md):
 * - Claude Code §1.5: `message.usage` counted once per `message.id` (the last split line wins); `input` =
 *   `input_tokens`, `cacheRead` = `cache_read_input_tokens`, `cacheWrite` = `cache_creation_input_tokens`, `output`
 *   = `output_tokens` (thinking included by the API); synthetic `<synthetic>` error lines are left out. No cost.
 * - Codex §3.2–3.3: `token_count` events, whose `total_token_usage` is cumulative: a turn gets the growth of the
 *   total over its events (a repeated event adds nothing); `input` = `input_tokens` − `cached_input_tokens`,
 *   `cacheRead` = `cached_input_tokens`, `output` = `output_tokens` (reasoning included: `reasoning_output_tokens`
 *   is a part of it), `cacheWrite` null (not recorded). Model from the last `turn_context.model`. No cost.
 * - OpenCode §2: assistant message `tokens{input, output, reasoning, cache{read, write}}` and `cost` (USD, the one
 *   source that records a cost); `output` = `output` + `reasoning` (recorded apart, billed as output).
 * - Gemini CLI §4.2: `gemini` message `tokens{input, output, cached, thoughts, tool}`: `input` = `input` − `cached`
 *   + `tool`, `cacheRead` = `cached`, `output` = `output` + `thoughts`, `cacheWrite` null. No cost.
 */
export interface ModelUsage {
  /** The model id as the agent wrote it, e.g. `claude-sonnet-4-5-20250929`, `gpt-5-codex`, `gemini-2.5-pro`. */
  model: string;
  /** Input tokens not read from the cache. */
  input: number | null;
  /** Output tokens, reasoning included. */
  output: number | null;
  /** Input tokens read from the prompt cache. */
  cacheRead: number | null;
  /** Input tokens written to the prompt cache. */
  cacheWrite: number | null;
  /** Cost in USD as the agent recorded it (OpenCode only); null when it recorded none. */
  costUsd: number | null;
}

/** True for a rewound turn (a negative `Turn.number`, issue 26). */
export function isRewound(turn: { number: number }): boolean {
  return turn.number < 0;
}

/**
 * How a turn is written for people: `5` for main turn 5, `r2` for rewound turn -2 (`recall show <id>:r2`).
 * Inverse: {@link parseTurnLabel}.
 */
export function turnLabel(number: number): string {
  return number < 0 ? `r${-number}` : String(number);
}

/** The turn number of a label: `"5"` → 5, `"r2"` → -2; undefined for anything else. Inverse of {@link turnLabel}. */
export function parseTurnLabel(label: string): number | undefined {
  const match = /^(r)?([1-9]\d{0,8})$/.exec(label.trim());
  if (!match) return undefined;
  const number = Number(match[2]);
  return match[1] ? -number : number;
}

/**
 * Where a part of a session's abstract came from (issue 41), as `abstract[].source` in JSON:
 * * `compaction`: the summary an agent wrote when it compacted its context (Claude Code `isCompactSummary` lines and
 *   `agent-acompact-*` runs, OpenCode `summary: true` replies, Codex `compacted` records, and the like);
 * * `recap`: a recap shown to a returning user (Claude Code `away_summary`);
 * * `agent_summary`: a summary body the agent wrote of a message or the session (OpenCode `summary.body`);
 * * `agent_title`: a title the agent wrote other than the one shown as the session's title (Claude Code `summary` and
 *   `ai-title` records, Gemini CLI `summary`, OpenCode `summary.title`).
 * * `summary`: a summary `recall summarize` made with a model the user chose (never written by a parser).
 */
export type AbstractSource = "compaction" | "recap" | "agent_summary" | "agent_title" | "summary";

/** One part of a session's abstract: what the agent (or `recall summarize`) wrote about the session. */
export interface AbstractPart {
  source: AbstractSource;
  /** The text, trimmed, without the agent's boilerplate around it (e.g. "This session is being continued…"). */
  text: string;
  /** When it was written, epoch ms UTC; 0 when the record has no time. */
  at: number;
}

/** One session as the tool knows it. */
export interface Session {
  /** The tool's own session id, unchanged (so `claude -r <id>` / `opencode -s <id>` work). */
  id: string;
  source: SourceId;
  /** Absolute project path from the records (Claude `cwd`, OpenCode `directory`/worktree), "" when unknown. */
  projectPath: string;
  /** Short project name: the last path component of `projectPath` (or "" when unknown). */
  projectName: string;
  /** Git branch when recorded ("" and "HEAD" are reported as null). */
  gitBranch: string | null;
  /** First and last record time, epoch ms UTC (0 when unknown). */
  startedAt: number;
  endedAt: number;
  /** Title from the tool (Claude ai-title/summary/slug, OpenCode title), or null. */
  title: string | null;
  /**
   * What the agent wrote about the session besides its title (issue 41), in the order of
   * `parsers/shared/abstract.ts` `orderAbstract` (newest compaction first, deduplicated, never the title again).
   * Absent or empty = none. A resumed parse returns the whole abstract, not only what the appended records added.
   */
  abstract?: AbstractPart[];
  turnCount: number;
  /** For sub-agent sessions: the parent session's id; otherwise null. */
  parentSessionId: string | null;
  isSubagent: boolean;
  /** Where it lives on disk: the JSONL file, or the database / storage folder. */
  location: string;
  /**
   * True for a session known only from the tool's prompt history (`history.jsonl`, `logs.json`): its turns hold the
   * typed prompts and no answers, because the transcript is not on this machine (shared/prompt-history.ts).
   * Absent = false.
   */
  promptOnly?: boolean;
}

/**
 * What a parse read but could not place in the session (issue 26): counted, grouped by reason (shared/skips.ts).
 * JSON-serializable: resume states and parse workers carry it.
 */
export interface SkipReport {
  /** Lines or records skipped, over every reason. */
  count: number;
  /** First offending place with its reason, e.g. `/x/y.jsonl:17: not JSON`; undefined when count is 0. */
  first?: string;
  /**
   * Per reason (one lower-case phrase such as `not JSON`): how many, and the first place (`<path>:<line>`, or
   * `<path>: message <id>`). Absent when nothing was skipped.
   */
  reasons?: Record<string, { count: number; first: string }>;
}

/**
 * A container is the unit of change detection by file stats alone: one Claude JSONL file, one
 * OpenCode database (with its WAL), one OpenCode JSON storage folder.
 */
export interface SourceContainer {
  source: SourceId;
  /** Absolute path of the file or folder; unique across all containers. */
  path: string;
  /** Stats-only fingerprint (sizes, mtimes, ctimes, inodes: file-stats.ts); equal fingerprints mean "unchanged". */
  fingerprint: string;
  /** Size in bytes of the main file (0 for folders). */
  sizeBytes: number;
  /**
   * Modification time of the file, epoch ms, for the scans that list single files (the tree walks); the quick
   * freshness check re-stats only containers modified recently (src/index/plan/freshness.ts). A prompt history, which must
   * be re-stat'ed by every check, carries the time of the scan instead. Absent for databases and folders.
   */
  mtimeMs?: number;
}

/**
 * A path a tree walk looked at and what it looked like, so a later check can tell that nothing was added, removed
 * or renamed below it without walking again: creating, deleting or renaming an entry changes its folder's mtime and
 * ctime on Linux and macOS, appending to a file does not (src/index/plan/freshness.ts).
 */
export interface WatchedPath {
  /** Absolute path: a folder the walk read, a root, or a side file it looked for by name. */
  path: string;
  /** `statFingerprint` of the path, `-` when it did not exist, `?` when its mtime was too recent to trust (see TreeWalk). */
  fingerprint: string;
  /**
   * The container (a transcript path) whose session owns this folder, such as a Claude Code session's `subagents/`:
   * only re-checked while that container was modified recently. Absent: re-checked every time.
   */
  owner?: string;
}

/** One session to parse, inside a container. */
export interface SourceUnit {
  source: SourceId;
  /** Unique, stable key of this unit across runs, e.g. the JSONL path or `<db path>#<session id>`. */
  key: string;
  /** The session id this unit will produce. */
  sessionId: string;
  /** Path of the container it belongs to. */
  containerPath: string;
  /**
   * Cheap change key that moves with any change a full parse would see (Claude: the file's fingerprint, plus
   * the parent transcript's for copy agents; OpenCode: counts and newest times of the session's messages and parts).
   */
  changeKey: string;
  /**
   * True for a unit read from a prompt-history file. The index never lets such a unit replace a stored transcript
   * session of the same id (src/index/plan/plan.ts); a transcript unit does replace a stored prompt-only session. Absent = false.
   */
  promptOnly?: boolean;
  /** Parser-specific locator data (JSON-serializable), opaque to the index. */
  locator?: Record<string, string | number | boolean | null>;
}

/** Options of {@link Parser.parse}. */
export interface ParseOptions {
  /** Keep full tool outputs in `ToolCall.output` (level 3 `show`); default false. */
  withOutputs?: boolean;
  /** Resume state returned by an earlier parse of the same unit; the parser may ignore it. */
  resume?: ResumeState;
}

/** Opaque, JSON-serializable state that lets a parser continue where the last parse stopped. */
export type ResumeState = { kind: string } & Record<string, unknown>;

/** What {@link Parser.parse} returns. */
export interface ParseResult {
  session: Session;
  /**
   * Turns numbered `fromTurn..session.turnCount`, in order. A full parse has `fromTurn` 1; a resumed
   * parse returns only the turns that changed or are new, and the caller replaces turns >= fromTurn.
   */
  turns: Turn[];
  fromTurn: number;
  /** State for the next resumed parse, or undefined when this unit cannot be resumed. */
  resume?: ResumeState;
  /**
   * Bytes read from disk and decoded for this parse (lets tests prove an append decodes only new bytes).
   * Bytes read only to prove that an already-parsed prefix is unchanged are in `bytesVerified`.
   */
  bytesRead: number;
  /** Bytes read only to hash the already-parsed prefix of a resumed parse (Claude Code); absent or 0 otherwise. */
  bytesVerified?: number;
  skipped: SkipReport;
}

/** Optional callbacks; parsers never print. */
export interface ParserHooks {
  /** A container or record that was skipped, as one line (e.g. `opencode.db: database disk image is malformed`). */
  onWarning?(message: string): void;
  /**
   * A container that exists but cannot be read right now (locked or zero-byte database, missing tables,
   * EACCES): "unavailable", never "empty" (DESIGN.md "Decisions"). The index keeps every session stored
   * for that container untouched and retries it on the next run. Called from `listUnits`.
   */
  onUnavailable?(containerPath: string, reason: string): void;
  /**
   * A file that can be read but holds no session recall can build (no header line, no session id, not the tool's
   * format; issue 26): its text is not indexed, and the index records it with the reason (one lower-case phrase) for
   * `recall index --json`, `status` and `doctor` (index/write/not-kept.ts). Called from `listUnits`, once per file;
   * `path` is the file, at or below one of the listed containers.
   */
  onRejected?(path: string, reason: string): void;
}

/** A file or folder below a root that exists but could not be read during a scan. */
export interface UnavailablePath {
  /** Absolute path; sessions whose container is this path or lies below it are kept as they are. */
  path: string;
  /** One lower-case phrase, e.g. "permission denied". */
  reason: string;
}

/** Where a parser looks: resolved roots for its source. */
export interface ScanResult {
  containers: SourceContainer[];
  /** Roots that were given but do not exist (reported, not fatal; their sessions stay in the archive). */
  missingRoots: string[];
  /**
   * Roots, folders or files that exist but could not be read now (EACCES, ELOOP, I/O error). Sessions
   * stored for containers at or below these paths are neither re-parsed nor marked deleted in this run.
   */
  unavailable: UnavailablePath[];
  /**
   * Every folder the walk read and every root or side file it probed, with their stats (tree walks only). Present
   * only for parsers whose {@link Parser.scansContainerPaths} is true: it lets the freshness check skip the walk.
   */
  watched?: WatchedPath[];
}

/**
 * How the tool that wrote a session resumes it: the program and its arguments (`argv[0]` looked up on PATH), run in
 * `cwd` (the session's project folder; undefined when the tool needs no particular folder, or none was recorded).
 * `recall pick` runs it directly (no shell); search/reading/hydrate.ts `shellCommandOf` prints it as one shell line.
 */
export interface ResumeInvocation {
  cwd: string | undefined;
  argv: string[];
}

/**
 * What the watcher (index/watch/targets.ts) watches below one root of a source, by the shape of its files:
 *   `claude-projects`: a Claude Code projects tree (session folders watched only once active);
 *   `opencode-data`: OpenCode data folders, JSON storage and the legacy project tree;
 *   `tree`: any other agent's data folder as one tree of folders `depth` levels deep (0: the folder alone), whose
 *     files named as `isSessionFile` says start an index cycle; `missingRootPending` false for a root that, once gone,
 *     stays gone (an Aider project folder) instead of being waited for.
 */
export type WatchLayout =
  | { kind: "claude-projects" }
  | { kind: "opencode-data" }
  | { kind: "tree"; depth: number; isSessionFile(name: string): boolean; missingRootPending: boolean };

/**
 * The contract of one source. Implementations must never throw on broken content (count and skip
 * instead); they throw `SourceError` only when a whole container is structurally unreadable.
 * Everything recall knows of an agent lives behind it and its source.ts (issue 39: name, options, default folders):
 * adding a source means its folder and one registry line in parsers/index.ts and in parsers/sources.ts.
 */
export interface Parser {
  readonly id: SourceId;
  /** What the watcher watches below each root of this source. */
  readonly watch: WatchLayout;
  /**
   * The command that reopens a session in the agent, from its documented command line.
   * @param projectPath the session's project folder, "" when none was recorded
   */
  resumeInvocation(sessionId: string, projectPath: string): ResumeInvocation;
  /**
   * The version of what `parse` makes of the same input: raised when a change keeps, drops or numbers anything
   * differently. The index re-parses every session of the source once when the version it stored differs
   * (index/write/indexer.ts), so an upgrade reaches sessions already indexed, not only files that change. 1 before
   * issue 26; issue 26 raised it to 2 for every source whose parser kept more text.
   */
  readonly version: number;
  /** Stats only, no content reads: every container below the given roots with its fingerprint. */
  scan(roots: string[]): ScanResult;
  /**
   * True when `scan([container.path])` lists exactly that container with the fingerprint the whole walk gave it, and
   * `scan` reports `watched` paths: then the quick freshness check (src/index/plan/freshness.ts) re-stats recent containers
   * one by one instead of walking every root. Absent = false (the source is always scanned whole; it must be cheap).
   */
  readonly scansContainerPaths?: boolean;
  /**
   * The records `scan(paths)` would give containers stored under these paths, taken without walking (a stat or two
   * each): what the quick freshness check re-stats recent containers with, when present. Undefined when one of them is
   * gone, unreadable, no longer a container or the same file as another path (only a whole scan can tell then).
   * Absent: the check calls `scan(paths)`.
   * @returns one container per path, any order
   */
  restatContainers?(paths: readonly string[]): SourceContainer[] | undefined;
  /**
   * Walk again only the given folders of the last whole walk of `roots` (watched paths whose stats changed: an entry
   * was added, removed or renamed there), each as that walk entered it, and list every container below them (issue
   * 42: a new session found without walking the whole history). Exact means: the containers and watched paths below
   * those folders are those a whole walk would give, or more (a link to a folder walked elsewhere, which the plan
   * notices as a session stored twice). Undefined when it cannot be exact (a folder is a root or below two roots): the
   * source is walked whole. Absent: always walked whole.
   * @param folders the changed watched rows as stored (an `owner` marks a folder owned by one session)
   */
  rescanFolders?(roots: readonly string[], folders: readonly WatchedPath[]): ScanResult | undefined;
  /**
   * The file name of the history the agent keeps at the root of the project it ran in, when it has no home folder
   * (Aider's `.aider.chat.history.md`): the index also reads that file in every project folder the other agents'
   * sessions name (src/index/plan/known-projects.ts). Absent for an agent with its own folders.
   */
  readonly projectHistoryFile?: string;
  /**
   * Path prefix of the containers whose units depend on `containerPath` and must be listed again when it changes
   * (Claude Code: the copy agents under `<session>/subagents/`, whose change key holds their parent's stats), or
   * null. Absent = none.
   */
  dependentsPrefix?(containerPath: string): string | null;
  /**
   * For a prompt-history container that grew (`history.jsonl`): the session ids of the prompts appended since it was
   * `fromByte` bytes long, so the freshness check re-stats their transcripts even when they had been quiet (a session
   * resumed weeks later). Undefined when `container` is not such a file or cannot be read now. Absent = never.
   */
  sessionsTypedSince?(container: SourceContainer, fromByte: number): string[] | undefined;
  /**
   * The sessions inside ALL containers of this source (called only when at least one fingerprint
   * changed). Deduplicates sessions that exist in two containers (e.g. OpenCode db + JSON storage).
   */
  listUnits(containers: SourceContainer[], hooks?: ParserHooks): SourceUnit[];
  /** Parse one session. Broken lines/records are skipped and counted in `skipped`. */
  parse(unit: SourceUnit, options?: ParseOptions): ParseResult;
}
