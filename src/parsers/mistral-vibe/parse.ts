/**
 * Parsing one Mistral Vibe session folder into a `Session` and its `Turn`s (docs/formats/mistral-vibe.md).
 * `messages.jsonl` holds one `LLMMessage` per line, as pydantic dumps it without nulls (mistralai/mistral-vibe
 * `vibe/core/types.py` `LLMMessage` and `vibe/core/session/session_logger.py` `save_interaction`, commit ac8f1a09):
 * - `{role: "user", content, message_id, injected?}` starts a turn, unless `injected` (text Vibe added itself:
 *   middleware reminders, hook output), which is left out by design, or a compaction's context (issue 41: after a
 *   compaction Vibe goes on in a new session that starts with it, `vibe/core/compaction.py`
 *   `render_compaction_context`), whose `<compaction_summary>` is the session's abstract (`compaction`);
 * - `{role: "assistant", content, tool_calls?, reasoning_content?, message_id}` adds prose and calls (reasoning is left
 *   out, as thinking is for every source); `{role: "tool", content, name, tool_call_id}` ends a call;
 * - a line repeating a `message_id` already read is the same message logged twice and is not read again (peers saw
 *   it: Dicklesworthstone/coding_agent_session_search src/connectors/vibe.rs, commit aa7b8d60).
 * Messages carry no time: every turn gets the session's start. `meta.json` gives the times (`start_time`, `end_time`),
 * the project folder (`environment.working_directory`), `git_branch`, `title`, and token totals (`stats.
 * session_prompt_tokens`, `session_completion_tokens`, under `config.active_model`), recorded per session only: they
 * are put on the last turn, so a session's sum is right. Sub-agents (`task`) run in memory: their answer is the call's
 * result. A `parent_session_id` names the session this one continues after compaction or a fork, not a sub-agent's
 * parent. Any other role that carries text is counted in `skipped`.
 */
import { readFileSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { withAbstract } from "../shared/abstract.ts";
import { asObject, projectNameOf, timeOf } from "../shared/fields.ts";
import { decodeLines } from "../shared/jsonl-lines.ts";
import { noteSkip } from "../shared/skips.ts";
import { filesTouched } from "../tool-calls.ts";
import type { AbstractPart, ParseOptions, ParseResult, SkipReport, SourceUnit, ToolCall, Turn } from "../types.ts";
import { addModelUsage, countOf } from "../usage.ts";
import { readMeta } from "./scan.ts";
import { isToolError, vibeToolCall } from "./tools.ts";

/**
 * Parse one session folder from its `messages.jsonl` (`unit.key`) and the `meta.json` beside it.
 * @throws SourceError when either file cannot be read, e.g. `cannot read mistral-vibe session /x/messages.jsonl: permission denied`
 */
export function parseVibeUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.key;
  let bytes: Buffer;
  let meta: Record<string, unknown> | null;
  try {
    bytes = readFileSync(path);
    meta = readMeta(path);
  } catch (error) {
    throw new SourceError(`cannot read mistral-vibe session ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  const skipped: SkipReport = { count: 0 };
  const decoded = decodeLines(bytes, 1, path, skipped);
  const lines = decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines;
  const startedAt = timeOf(meta?.start_time);
  const withOutputs = options.withOutputs === true;
  const sessionId = unit.sessionId;
  const turns: Turn[] = [];
  const replies: string[][] = [];
  const calls = new Map<string, ToolCall>();
  const seen = new Set<string>();
  const abstract: AbstractPart[] = [];
  const current = (): number => {
    if (turns.length === 0) {
      turns.push(newTurn(sessionId, 1, startedAt, "")); // messages before the first prompt: a turn without one
      replies.push([]);
    }
    return turns.length - 1;
  };
  for (const { line: n, value } of lines) {
    const role = typeof value.role === "string" ? value.role : "";
    const content = textOf(value.content);
    const place = `${path}:${n}`;
    if (typeof value.message_id === "string") {
      if (seen.has(value.message_id)) continue;
      seen.add(value.message_id);
    }
    switch (role) {
      case "user": {
        const summary = compactionSummary(content);
        if (summary) abstract.push({ source: "compaction", text: summary, at: startedAt }); // messages carry no time
        if (summary !== null || value.injected === true || content.trim().length === 0) break;
        turns.push(newTurn(sessionId, turns.length + 1, startedAt, content));
        replies.push([]);
        break;
      }
      case "assistant": {
        const at = current();
        if (content.trim()) replies[at]!.push(content);
        for (const raw of Array.isArray(value.tool_calls) ? value.tool_calls : []) {
          const request = asObject(raw);
          const fn = asObject(request?.function);
          if (typeof fn?.name !== "string" || fn.name.length === 0) {
            noteSkip(skipped, place, "tool call without a name");
            continue;
          }
          const call = vibeToolCall(fn.name, fn.arguments, withOutputs);
          if (typeof request?.id === "string") calls.set(request.id, call);
          turns[at]!.toolCalls.push(call);
        }
        break;
      }
      case "tool": {
        const call = calls.get(typeof value.tool_call_id === "string" ? value.tool_call_id : "");
        if (!call) {
          if (content.trim()) noteSkip(skipped, place, "tool result without its call");
          break;
        }
        call.isError = isToolError(content);
        if (withOutputs) call.output = content;
        break;
      }
      case "system":
        break; // the system prompt (never logged by current versions)
      default:
        if (content.trim()) noteSkip(skipped, place, `message role ${role || "(none)"}`);
    }
  }
  turns.forEach((turn, i) => {
    turn.response = replies[i]!.join("\n\n");
    turn.files = filesTouched(turn.toolCalls);
  });
  addSessionUsage(turns.at(-1), meta);
  for (const turn of turns) if (turn.usage?.length === 0) delete turn.usage;
  const environment = asObject(meta?.environment);
  const projectPath = typeof environment?.working_directory === "string" ? environment.working_directory : "";
  const branch = typeof meta?.git_branch === "string" && meta.git_branch !== "HEAD" ? meta.git_branch : "";
  const title = typeof meta?.title === "string" && meta.title.trim() ? meta.title.trim() : null;
  return {
    session: withAbstract(
      {
        id: sessionId,
        source: "mistral-vibe",
        projectPath,
        projectName: projectNameOf(projectPath),
        gitBranch: branch || null,
        startedAt,
        endedAt: Math.max(timeOf(meta?.end_time), startedAt),
        title,
        turnCount: turns.length,
        parentSessionId: null,
        isSubagent: false,
        location: path,
      },
      abstract,
    ),
    turns,
    fromTurn: 1,
    bytesRead: bytes.length,
    skipped,
  };
}

/** The opening line of the message Vibe starts a session with after a compaction (`render_compaction_context`). */
const compactionOpening = "You are continuing a trajectory after a context compaction.";
const summaryOpen = "<compaction_summary>";
const summaryClose = "</compaction_summary>";

/**
 * The summary of a compaction context message (vibe/core/compaction.py `render_compaction_context`: the opening line,
 * the recent user messages, then `<compaction_summary>\n<summary>\n</compaction_summary>`), trimmed; "" for such a
 * message without one, null for any other text (a prompt that only quotes the tag is not one: it must open as Vibe's).
 * The last block is the summary: a user message quoted before it may hold the tags too (Vibe escapes only its
 * `previous_user_message` tags).
 * Examples: `"You are continuing…\n…<compaction_summary>\nFixed the tiles\n</compaction_summary>"` → `"Fixed the
 * tiles"`; `"what does <compaction_summary> mean?"` → null.
 */
export function compactionSummary(content: string): string | null {
  if (!content.startsWith(compactionOpening)) return null;
  const close = content.lastIndexOf(summaryClose);
  const open = close < 0 ? -1 : content.lastIndexOf(summaryOpen, close);
  return open < 0 ? "" : content.slice(open + summaryOpen.length, close).trim();
}

function newTurn(sessionId: string, number: number, timestamp: number, prompt: string): Turn {
  return { sessionId, number, timestamp, prompt, response: "", toolCalls: [], files: [], isSubagent: false, usage: [] };
}

/** The session's token totals (`meta.json` `stats`) under its active model, on `turn`. */
function addSessionUsage(turn: Turn | undefined, meta: Record<string, unknown> | null): void {
  const stats = asObject(meta?.stats);
  if (!turn || !stats) return;
  const input = countOf(stats.session_prompt_tokens);
  const output = countOf(stats.session_completion_tokens);
  if (!input && !output) return;
  const model = asObject(meta?.config)?.active_model;
  addModelUsage(turn.usage ?? [], typeof model === "string" && model ? model : "unknown", {
    input,
    output,
    cacheRead: null,
    cacheWrite: null,
  });
}

/** A message's text: a string as is, or the `text` of its parts joined by new lines (Vibe's own `_content_before`). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => asObject(part)?.text)
    .filter((text): text is string => typeof text === "string")
    .join("\n");
}
