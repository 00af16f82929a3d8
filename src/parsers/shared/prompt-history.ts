/**
 * Prompt-history files as sessions (issue 11): Claude Code `~/.claude/history.jsonl`, Codex CLI `~/.codex/history.jsonl`
 * and Gemini CLI `tmp/<project>/logs.json` (docs/formats.md §1.10, §3.1, §4.1) keep every prompt the user typed, with
 * its session id, long after the tool deleted the transcript (Claude Code after 30 days) or for sessions whose
 * transcript never was on this machine. Each session id of such a file becomes one prompt-only session: one turn per
 * typed prompt, no answers, no tool calls, `promptOnly: true`.
 *
 * Never a duplicate: a session whose transcript is listed in the same run is left out here, and the index
 * (src/index/plan/plan.ts) never lets a prompt-only unit replace a stored transcript session (present or deleted), while a
 * transcript that appears later replaces the prompt-only session of the same id.
 *
 * `withPromptHistory` wraps a source's parser: its scan lists the history file as one more container (recognized by
 * name), `listUnits` adds the history units after the transcript units, `parse` answers history units itself.
 */
import { statSync } from "node:fs";
import { basename } from "node:path";
import { fsReason, isMissingError } from "../file-stats.ts";
import type {
  ParseOptions,
  ParseResult,
  Parser,
  ParserHooks,
  Session,
  SkipReport,
  SourceContainer,
  SourceId,
  SourceUnit,
  Turn,
} from "../types.ts";
import { projectNameOf } from "./fields.ts";

/** One prompt as a history file recorded it. */
export interface HistoryPrompt {
  /** The tool's session id the prompt was typed in. */
  sessionId: string;
  /** When it was submitted, epoch ms UTC (0 when the file has no time). */
  timestamp: number;
  /** The prompt text, whole (pasted blocks expanded where the file holds them). */
  text: string;
  /** Absolute project path when the file records one, else "". */
  projectPath: string;
  /** Project name to show when `projectPath` is unknown (e.g. Gemini's `tmp/<project>` folder), else undefined. */
  projectName?: string;
}

/** What a reader returns for one history file. */
export interface PromptHistoryFile {
  /** Prompts in file order. */
  prompts: HistoryPrompt[];
  /** Bytes read from disk. */
  bytesRead: number;
  /** Lines or records that could not be read (not JSON, no session id, no text). */
  skipped: SkipReport;
}

/** Reads one history file. @throws the fs error when the file cannot be read (never for broken content) */
export type PromptHistoryReader = (path: string) => PromptHistoryFile;

/** How a source keeps its prompt history: the history file's name (containers so named are history files), and how to read one. */
export interface PromptHistorySpec {
  /** File name of the history, e.g. `history.jsonl`; the source's scan lists such files as containers. */
  fileName: string;
  read: PromptHistoryReader;
  /** The prompts appended since the file was `fromByte` bytes long (an append-only file); absent for files rewritten whole. */
  readFrom?: (path: string, fromByte: number) => PromptHistoryFile;
}

/** True when `path` names the source's history file (its last component is `spec.fileName`). */
export function isPromptHistoryFile(spec: PromptHistorySpec, path: string): boolean {
  return basename(path) === spec.fileName;
}

/**
 * True for a prompt that only drives the tool's interface: a slash command with at most one argument word
 * (`/usage`, `/status`, `/model set`, `/resume 3f2a…`, `/directory show`), or empty text. Such prompts say nothing
 * about the work (in ../shared/corpus 5,461 of 5,618 Claude Code history lines are `/usage` or `/status` probes), so
 * they are not indexed; a slash command with a longer argument (`/review the auth middleware`) is.
 */
export function isInterfaceCommand(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.length === 0 || /^\/\S*(\s+\S+)?$/.test(trimmed);
}

/** True when the unit was listed from a prompt-history file (its locator says so; kept across runs in the index). */
export function isPromptHistoryUnit(unit: Pick<SourceUnit, "locator">): boolean {
  return unit.locator?.promptHistory === true;
}

/** What a history file holds, ready for listing and parsing: its indexable prompts by session id. */
interface GroupedHistory {
  /** Indexable prompts ({@link isInterfaceCommand} left out) by session id, in order of first appearance, each in file order. */
  bySession: Map<string, HistoryPrompt[]>;
  /** Bytes read from disk for this answer (0 when it came from the cache). */
  bytesRead: number;
}

/** One read file, kept while its size, mtime and inode stay the same (listUnits and every parse share one read). */
interface CachedRead {
  stamp: string;
  bySession: Map<string, HistoryPrompt[]>;
}

const readCache = new Map<string, CachedRead>();
/** History files kept in the cache (one per source and root is typical; the corpus has 9). */
const readCacheEntries = 32;

/**
 * Read a history file and group its indexable prompts by session, through a small per-process cache keyed by path and
 * stats, so listing and parsing N sessions of one file reads, decodes and groups it once.
 * @throws the fs error when the file cannot be stated or read
 */
function readGrouped(path: string, read: PromptHistoryReader): GroupedHistory {
  const stats = statSync(path);
  const stamp = `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
  const cached = readCache.get(path);
  if (cached?.stamp === stamp) return { bySession: cached.bySession, bytesRead: 0 };
  const file = read(path);
  const bySession = new Map<string, HistoryPrompt[]>();
  for (const prompt of file.prompts) {
    if (isInterfaceCommand(prompt.text)) continue;
    const group = bySession.get(prompt.sessionId);
    if (group) group.push(prompt);
    else bySession.set(prompt.sessionId, [prompt]);
  }
  readCache.delete(path);
  readCache.set(path, { stamp, bySession });
  if (readCache.size > readCacheEntries) readCache.delete(readCache.keys().next().value as string);
  return { bySession, bytesRead: file.bytesRead };
}

/** Change key of one session's prompts: count, last time and a hash of the texts (any edit or append moves it). */
function changeKeyOf(prompts: readonly HistoryPrompt[]): string {
  const texts = prompts
    .map((prompt) => `${prompt.timestamp}\u0000${prompt.text}\u0000${prompt.projectPath}`)
    .join("\u0001");
  return `prompts:${prompts.length}:${prompts.at(-1)?.timestamp ?? 0}:${Bun.hash(texts).toString(16)}`;
}

/**
 * Units for the sessions of the given history files, one per session id: `key` = `<file>#<session id>`,
 * `containerPath` = the file, `promptOnly: true`, `locator` = `{promptHistory: true}`, `changeKey` from the session's
 * prompts (so an append to the file re-parses only the sessions it touched).
 * Left out: sessions in `transcriptSessionIds` (their transcript is listed in this run), sessions with nothing but
 * interface commands ({@link isInterfaceCommand}). A session found in two history files (overlapping roots, Gemini's
 * hash and slug folders) is listed once, from the file holding more of its prompts.
 * A file that exists but cannot be read is reported through `hooks.onUnavailable` (its stored sessions are kept).
 */
export function listPromptHistoryUnits(
  source: SourceId,
  containers: readonly SourceContainer[],
  transcriptSessionIds: ReadonlySet<string>,
  read: PromptHistoryReader,
  hooks: ParserHooks = {},
): SourceUnit[] {
  const best = new Map<string, { path: string; prompts: HistoryPrompt[] }>();
  for (const container of containers) {
    let history: GroupedHistory;
    try {
      history = readGrouped(container.path, read);
    } catch (error) {
      if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    for (const [sessionId, prompts] of history.bySession) {
      if (transcriptSessionIds.has(sessionId)) continue;
      const current = best.get(sessionId);
      if (!current || prompts.length > current.prompts.length) best.set(sessionId, { path: container.path, prompts });
    }
  }
  return [...best].map(([sessionId, { path, prompts }]) => ({
    source,
    key: `${path}#${sessionId}`,
    sessionId,
    containerPath: path,
    changeKey: changeKeyOf(prompts),
    promptOnly: true,
    locator: { promptHistory: true },
  }));
}

/**
 * Parse one prompt-only session: a turn per indexable prompt, in file order (appends keep earlier turn numbers), with
 * an empty response and no tool calls; times from the prompts; the project from the last prompt that names one; no
 * title (the display falls back to the first prompt); `location` = the history file. A session whose prompts are all
 * gone from the file parses to zero turns.
 * @throws the fs error when the file cannot be read (the index keeps the stored session and retries)
 */
export function parsePromptHistoryUnit(unit: SourceUnit, read: PromptHistoryReader): ParseResult {
  const history = readGrouped(unit.containerPath, read);
  const prompts = history.bySession.get(unit.sessionId) ?? [];
  const turns: Turn[] = prompts.map((prompt, index) => ({
    sessionId: unit.sessionId,
    number: index + 1,
    timestamp: prompt.timestamp,
    prompt: prompt.text,
    response: "",
    toolCalls: [],
    files: [],
    isSubagent: false,
  }));
  const named =
    prompts.findLast((prompt) => prompt.projectPath.length > 0) ?? prompts.findLast((prompt) => prompt.projectName);
  const projectPath = named?.projectPath ?? "";
  const times = prompts.map((prompt) => prompt.timestamp).filter((time) => time > 0);
  const session: Session = {
    id: unit.sessionId,
    source: unit.source,
    projectPath,
    projectName: projectPath ? projectNameOf(projectPath) : (named?.projectName ?? ""),
    gitBranch: null,
    startedAt: times.length > 0 ? Math.min(...times) : 0,
    endedAt: times.length > 0 ? Math.max(...times) : 0,
    title: null,
    turnCount: turns.length,
    parentSessionId: null,
    isSubagent: false,
    location: unit.containerPath,
    promptOnly: true,
  };
  return { session, turns, fromTurn: 1, bytesRead: history.bytesRead, skipped: { count: 0 } };
}

/**
 * A source's parser that also reads its prompt-history files: `listUnits` gives the transcript units of the other
 * containers first, then {@link listPromptHistoryUnits} for the history containers (minus those sessions);
 * `parse` answers history units with {@link parsePromptHistoryUnit}. The wrapped parser's `scan` must list the history
 * files as containers.
 */
export function withPromptHistory(parser: Parser, history: PromptHistorySpec): Parser {
  return {
    ...parser, // id, scan and the scan's capabilities (scansContainerPaths, dependentsPrefix) are the wrapped parser's
    listUnits(containers, hooks) {
      const historyFiles = containers.filter((container) => isPromptHistoryFile(history, container.path));
      const transcripts =
        historyFiles.length === 0
          ? containers
          : containers.filter((container) => !isPromptHistoryFile(history, container.path));
      const units = parser.listUnits(transcripts, hooks);
      if (historyFiles.length === 0) return units;
      return [
        ...units,
        ...listPromptHistoryUnits(
          parser.id,
          historyFiles,
          new Set(units.map((unit) => unit.sessionId)),
          history.read,
          hooks,
        ),
      ];
    },
    parse: (unit: SourceUnit, options?: ParseOptions) =>
      isPromptHistoryUnit(unit) ? parsePromptHistoryUnit(unit, history.read) : parser.parse(unit, options),
    sessionsTypedSince(container: SourceContainer, fromByte: number) {
      if (!history.readFrom || !isPromptHistoryFile(history, container.path)) return undefined;
      try {
        return [...new Set(history.readFrom(container.path, fromByte).prompts.map((prompt) => prompt.sessionId))];
      } catch {
        return undefined; // unreadable now: the index run reports it
      }
    },
  };
}
