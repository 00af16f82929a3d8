/**
 * From chat files (containers) to sessions (units), formats.md §4.1. A session can span several files:
 * a resumed session gets a new file with the same id, a resumed `.json` is copied whole into a `.jsonl`
 * twin (CLI ≥ 0.39), the hash → slug folder migration leaves copies. So a unit is a session id, not a
 * file (as OpenCode's `listUnits` lists sessions across db and JSON containers): `locator.files` lists
 * its files, `containerPath` is the newest file (the one being appended to; if it is unavailable the
 * stored session is kept), and the change key joins every file's fingerprint, so a change to any file
 * re-parses the session. Reads: the first 4 KiB of each file (header: `sessionId`, `projectHash`), each
 * `.project_root`, and for a project folder named by a hash, the `.gemini` folder's registry (projects.ts).
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { errorCode, fsReason, isMissingError } from "../file-stats.ts";
import { rejectFile } from "../shared/skips.ts";
import { readHead } from "../shared/read-head.ts";
import type { ParserHooks, SourceContainer, SourceUnit } from "../types.ts";
import { isProjectHash, ProjectHashIndex, recordedProjectPaths } from "./projects.ts";
import { isQwenCodeChat, qwenCodeReason } from "./qwen-code.ts";
import { geminiDirOf, projectDirOf, projectRootFileName } from "./scan.ts";

/** Bytes read from the start of each chat file to find its header (the header fields come first). */
export const headBytes = 4096;

/** What the head of a chat file says. */
interface FileHead {
  container: SourceContainer;
  sessionId: string;
  projectHash: string | null;
  /** `startTime`, epoch ms (0 when absent): orders a session's files. */
  startTime: number;
}

const sessionIdPattern = /"sessionId"\s*:\s*"((?:[^"\\]|\\.)+)"/;
const projectHashPattern = /"projectHash"\s*:\s*"([0-9A-Za-z_-]+)"/;
const startTimePattern = /"startTime"\s*:\s*"([^"]+)"/;

/**
 * The header of one chat file, from its head or, failing that, the whole file.
 * @returns null (after a rejection) when the file names no session or is a Qwen Code chat (qwen-code.ts, issue 37);
 *   "unavailable" when it cannot be read or is empty (a file being created: its session must not look deleted)
 */
function readFileHead(container: SourceContainer, hooks: ParserHooks | undefined): FileHead | null | "unavailable" {
  let text: string;
  try {
    text = readHead(container.path, headBytes).text;
    if (!sessionIdPattern.test(text) && container.sizeBytes > headBytes) text = readFileSync(container.path, "utf8");
  } catch (error) {
    if (isMissingError(error)) return null;
    report(hooks, container.path, fsReason(error));
    return "unavailable";
  }
  if (text.trim().length === 0) {
    report(hooks, container.path, "empty file");
    return "unavailable";
  }
  if (isQwenCodeChat(text)) {
    rejectFile(hooks, container.path, qwenCodeReason);
    return null;
  }
  const sessionId = sessionIdPattern.exec(text)?.[1];
  if (!sessionId) {
    rejectFile(hooks, container.path, "no sessionId");
    return null;
  }
  const start = Date.parse(startTimePattern.exec(text)?.[1] ?? "");
  return {
    container,
    sessionId: unescapeJsonString(sessionId),
    projectHash: projectHashPattern.exec(text)?.[1] ?? null,
    startTime: Number.isFinite(start) ? start : 0,
  };
}

/** The value of a JSON string body (`a\\"b` → `a"b`); the raw text when it does not decode. */
function unescapeJsonString(body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body;
  }
}

function report(hooks: ParserHooks | undefined, path: string, reason: string): void {
  if (hooks?.onUnavailable) hooks.onUnavailable(path, reason);
  else hooks?.onWarning?.(`${path}: ${reason}`);
}

/** Content of `<projectDir>/.project_root`, trimmed; null when absent, empty or unreadable. */
export function readProjectRoot(projectDir: string): string | null {
  try {
    const text = readFileSync(join(projectDir, projectRootFileName), "utf8").trim();
    return text.length > 0 ? text : null;
  } catch (error) {
    if (errorCode(error) === undefined) throw error;
    return null;
  }
}

/**
 * Project path per `projectHash`, learnt from project folders that have a `.project_root`: every
 * file in such a folder names the hash of that path (`projectHash` stays the SHA-256 in the slug
 * layout, §4.1), so a pre-0.29 hash folder holding the same hash gets the same path.
 */
function learnProjectPaths(heads: readonly FileHead[], roots: Map<string, string | null>): Map<string, string> {
  const byHash = new Map<string, string>();
  for (const head of heads) {
    const root = roots.get(projectDirOf(head.container.path));
    if (root && head.projectHash && !byHash.has(head.projectHash)) byHash.set(head.projectHash, root);
  }
  return byHash;
}

/**
 * Files of one session in merge order (startTime, then path), a `.json` right before its `.jsonl` twin: CLI ≥ 0.39
 * copies a resumed `.json` whole into the `.jsonl` and continues there (chatRecordingService.ts `initialize`), so the
 * twin is the newer file; the parse keeps only what the `.json` holds that the twin never did (parse.ts).
 */
function orderSessionFiles(heads: readonly FileHead[]): FileHead[] {
  const sorted = [...heads].sort(
    (a, b) =>
      a.startTime - b.startTime ||
      (a.container.path < b.container.path ? -1 : a.container.path > b.container.path ? 1 : 0),
  );
  const twinned = sorted.filter((head) => sorted.some((other) => other.container.path === `${head.container.path}l`));
  const ordered = sorted.filter((head) => !twinned.includes(head));
  for (const head of twinned) {
    ordered.splice(
      ordered.findIndex((other) => other.container.path === `${head.container.path}l`),
      0,
      head,
    );
  }
  return ordered;
}

/**
 * Sub-agent link of a chat file from its place: `chats/<folder>/<file>` is nested under `<folder>`,
 * the parent's full session id (chatRecordingService.ts `initialize`), except `skill-extraction-*`.
 * Examples: `…/chats/b1f3…-ac73/xs82vp.json` → nested, parent `b1f3…-ac73`; `…/chats/session-x.json` → not nested.
 */
export function nestingOf(path: string): { isNested: boolean; parentSessionId: string | null } {
  if (basename(dirname(dirname(path))) !== "chats") return { isNested: false, parentSessionId: null };
  const folder = basename(dirname(path));
  // `skill-extraction-<hex>` folders hold memory/skill extraction runs, not children of a session.
  return { isNested: true, parentSessionId: folder.startsWith("skill-extraction-") ? null : folder };
}

/**
 * The project path of a session whose folders have no `.project_root`, from the hashes it is known by (the names of
 * its hash folders, its files' `projectHash`): learnt from a folder with a `.project_root` holding files of the same
 * hash, else a path the `.gemini` folder records (registry, `.project_root` files, projects.ts) whose SHA-256 is one of
 * them; undefined when none matches. The `.gemini` folder is read, and its index built, once per listing.
 */
function pathOfHashes(
  files: readonly FileHead[],
  byHash: ReadonlyMap<string, string>,
  recorded: Map<string, ProjectHashIndex>,
): string | undefined {
  const hashes = [
    ...files.map((head) => basename(projectDirOf(head.container.path))),
    ...files.map((head) => head.projectHash ?? ""),
  ].filter(isProjectHash);
  for (const hash of hashes) {
    const learnt = byHash.get(hash);
    if (learnt) return learnt;
  }
  if (hashes.length === 0) return undefined;
  for (const head of files) {
    const projectDir = projectDirOf(head.container.path);
    const key = geminiDirOf(projectDir) ?? projectDir;
    let index = recorded.get(key);
    if (!index) {
      index = new ProjectHashIndex(recordedProjectPaths(projectDir));
      recorded.set(key, index);
    }
    const match = index.lookup(hashes);
    if (match) return match;
  }
  return undefined;
}

/**
 * Units of all containers, one per session id (merged across files, project folders and roots).
 * `key` = `gemini-cli:<sessionId>`; `containerPath` = the newest file; `changeKey` = every file's
 * fingerprint joined by `;` plus `|project:<resolved path>`; `locator` = `{files ("\n"-joined, merge
 * order), projectPath ("" = unknown), projectDir (name of tmp/<project-id>, the project name when the
 * path is unknown), isNested, parentSessionId}`. The project path: a folder's `.project_root`, else
 * {@link pathOfHashes}; the parse may still find it from the chat's `directories` (parse.ts).
 * Unreadable or empty files are reported through `hooks.onUnavailable`; files naming no session are
 * reported through `hooks.onRejected`. Never throws for file-system errors.
 */
export function listGeminiUnits(containers: readonly SourceContainer[], hooks?: ParserHooks): SourceUnit[] {
  const heads: FileHead[] = [];
  for (const container of containers) {
    if (container.source !== "gemini-cli") continue;
    const head = readFileHead(container, hooks);
    if (head && head !== "unavailable") heads.push(head);
  }
  const roots = new Map<string, string | null>();
  for (const head of heads) {
    const dir = projectDirOf(head.container.path);
    if (!roots.has(dir)) roots.set(dir, readProjectRoot(dir));
  }
  const byHash = learnProjectPaths(heads, roots);
  const bySession = new Map<string, FileHead[]>();
  for (const head of heads) {
    const group = bySession.get(head.sessionId);
    if (group) group.push(head);
    else bySession.set(head.sessionId, [head]);
  }
  const recorded = new Map<string, ProjectHashIndex>();
  const units: SourceUnit[] = [];
  for (const [sessionId, group] of bySession) {
    const files = orderSessionFiles(group);
    const newest = files.at(-1)!;
    const projectPath =
      files.map((head) => roots.get(projectDirOf(head.container.path))).find((root) => root) ??
      pathOfHashes(files, byHash, recorded) ??
      "";
    const nesting = files.map((head) => nestingOf(head.container.path)).find((entry) => entry.isNested) ?? {
      isNested: false,
      parentSessionId: null,
    };
    units.push({
      source: "gemini-cli",
      key: `gemini-cli:${sessionId}`,
      sessionId,
      containerPath: newest.container.path,
      changeKey: `${files.map((head) => head.container.fingerprint).join(";")}|project:${projectPath}`,
      locator: {
        files: files.map((head) => head.container.path).join("\n"),
        projectPath,
        projectDir: basename(projectDirOf(newest.container.path)),
        isNested: nesting.isNested,
        parentSessionId: nesting.parentSessionId,
      },
    });
  }
  return units.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
