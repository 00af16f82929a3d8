/**
 * Inline sub-agents of Claude Code ≤ 2.0.27 (docs/formats.md §1.8, generation 1; issues 26 and 37): before agent
 * files existed, a Task sub-agent wrote its lines into the parent's JSONL with `"isSidechain": true`, one chain per Task
 * call, each starting with the task's prompt at `parentUuid: null` (405 of 438 lines of one real 1.0.98 session).
 * Each chain is a sub-agent session of its own, like a 2.x agent file: unit key `<file>#sidechain-<first uuid>`,
 * session id `agent-<first uuid>`, parent the file's session, title the Task call's description; the Task call links
 * to it by its prompt (records.ts `promptKey`).
 * Finding the chains costs a read of the head of every main file (16 KiB), and a read of the whole file only for one
 * written before 2.0.28 (or of unknown version) whose head or body holds sidechain lines.
 */
import { readFileSync } from "node:fs";
import { readHead } from "../shared/read-head.ts";

/** Bytes read from the start of a main transcript to find the Claude Code version that wrote it. */
const headBytes = 16 * 1024;

/** The marker between a transcript path and its chain in a sidechain unit key. */
const keyMarker = "#sidechain-";

/** A sidechain unit key: `<transcript path>#sidechain-<first uuid>`. */
export function sidechainUnitKey(path: string, rootUuid: string): string {
  return `${path}${keyMarker}${rootUuid}`;
}

/** The session id of an inline sub-agent chain: `agent-<first uuid>`. */
export function sidechainSessionId(rootUuid: string): string {
  return `agent-${rootUuid}`;
}

/**
 * The transcript path and chain of a unit key: `{path, rootUuid}` for a sidechain key, `{path: key, rootUuid: null}`
 * for any other.
 */
export function splitUnitKey(key: string): { path: string; rootUuid: string | null } {
  const at = key.lastIndexOf(keyMarker);
  if (at < 0 || !key.endsWith(".jsonl", at)) return { path: key, rootUuid: null };
  return { path: key.slice(0, at), rootUuid: key.slice(at + keyMarker.length) };
}

/**
 * The first Claude Code version that wrote sub-agents to files of their own (`agent-<8 hex>.jsonl`, formats.md §1.8:
 * seen from 2.0.28; d-kimuson/claude-code-viewer issue 76 dates the inline "old spec" to "~v2.0.27"). Earlier versions,
 * 2.0.0–2.0.27 included, wrote inline chains (issue 37: the 2.0.x ones got no session).
 */
const firstAgentFileVersion = [2, 0, 28] as const;

/**
 * True when the first `"version"` field in `text` is older than {@link firstAgentFileVersion}; undefined when `text`
 * has none. Examples: `"version":"1.0.98"` → true; `"version":"2.0.14"` → true; `"version":"2.1.3"` → false.
 */
function predatesAgentFiles(text: string): boolean | undefined {
  const match = /"version"\s*:\s*"(\d+)\.(\d+)\.(\d+)/.exec(text);
  if (!match) return undefined;
  const version = [Number(match[1]), Number(match[2]), Number(match[3])];
  for (const [index, part] of version.entries()) {
    const bound = firstAgentFileVersion[index] as number;
    if (part !== bound) return part < bound;
  }
  return false;
}

const sidechainMarker = /"isSidechain"\s*:\s*true/;

/**
 * The first uuids of the inline sub-agent chains of a main transcript, in file order: user/assistant lines with
 * `isSidechain: true` and `parentUuid: null`. None when the file was written by Claude Code 2.0.28 or later (agent
 * files), holds no sidechain line, or holds nothing but sidechain lines (then the whole file is one sub-agent
 * transcript, parse.ts). Never throws: an unreadable file has no chains here (its parse reports why).
 */
export function inlineSidechainRoots(path: string): string[] {
  let text: string;
  try {
    const head = readHead(path, headBytes);
    if (predatesAgentFiles(head.text) === false) return [];
    text = head.whole ? head.text : readFileSync(path, "utf8");
  } catch {
    return [];
  }
  if (!sidechainMarker.test(text)) return [];
  const roots: string[] = [];
  let mainLines = 0;
  for (const line of text.split("\n")) {
    if (!line.includes('"user"') && !line.includes('"assistant"')) continue;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (value === null || typeof value !== "object" || (value.type !== "user" && value.type !== "assistant")) continue;
    if (value.isSidechain !== true) mainLines++;
    else if (value.parentUuid === null && typeof value.uuid === "string") roots.push(value.uuid);
  }
  return mainLines > 0 ? roots : [];
}
