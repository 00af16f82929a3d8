/**
 * Parsing one Zed agent thread into a `Session` and its `Turn`s (docs/formats/zed.md). The row's data is `DbThread`
 * version `0.3.0` (zed-industries/zed crates/agent/src/db.rs @3991ce85, thread.rs), serde JSON with externally tagged
 * enums: `{version, title, updated_at, messages, initial_project_snapshot?: {worktree_snapshots: [{worktree_path,
 * git_state: {current_branch, …}}], timestamp}, request_token_usage: {<user message id>: {input_tokens,
 * output_tokens, cache_creation_input_tokens, cache_read_input_tokens}}, model?: {provider, model}, …}`. Messages:
 * - `{User: {id, content: [{Text: s} | {Mention: {uri, content}} | {Image: …}]}}`: the text parts are the prompt and
 *   open a turn; a mention's attached content is counted in `skipped` (`attached context (mention)`);
 * - `{Agent: {content: [{Text: s} | {Thinking: …} | {RedactedThinking: …} | {ToolUse: {id, name, input}}],
 *   tool_results: {<id>: {is_error, content: {Text: s}, output}}}}`: reply text (thinking left out, as for every
 *   source), calls (tools.ts) and their outputs;
 * - `"Resume"`: Zed's "continue where you left off" request, bookkeeping.
 * Threads of the first agent (`version` 0.2.0 and before: `messages` of `{role, segments, tool_uses}`) are not read:
 * one count in `skipped` says so. No per-message times: turns take the thread's start (the project snapshot's
 * `timestamp`, else `updated_at`); the session ends at `updated_at`. Tokens per turn from `request_token_usage`, under the
 * thread's `model.model`.
 */
import { SourceError } from "../../errors.ts";
import { asObject, projectNameOf } from "../shared/fields.ts";
import { describeSqliteError } from "../shared/readonly-sqlite.ts";
import { noteSkip } from "../shared/skips.ts";
import { filesTouched } from "../tool-calls.ts";
import { withAbstract } from "../shared/abstract.ts";
import type { ParseOptions, ParseResult, Session, SkipReport, SourceUnit, ToolCall, Turn } from "../types.ts";
import { addModelUsage, countOf } from "../usage.ts";
import { openThreadsDatabase, readThreadJson } from "./database.ts";
import { zedToolCall } from "./tools.ts";

/** The thread format this parser reads (`DbThread::VERSION`). */
export const threadVersion = "0.3.0";

/** The model name usage is recorded under when the thread names none. */
const unknownModel = "unknown";

const timeOf = (value: unknown): number => {
  const t = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isFinite(t) ? t : 0;
};

/**
 * Parse one thread (always a full parse).
 * @throws SourceError when the database cannot be read now, the thread is gone, or its data is not JSON
 */
export function parseZedUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.containerPath;
  const threadId = typeof unit.locator?.threadId === "string" ? unit.locator.threadId : unit.sessionId;
  const fail = (reason: string, cause?: unknown): never => {
    throw new SourceError(`cannot read zed thread ${threadId} in ${path}: ${reason}`, path, { cause });
  };
  let stored: ReturnType<typeof readThreadJson> = null;
  try {
    stored = readThreadJson(openThreadsDatabase(path), threadId);
  } catch (error) {
    fail(describeSqliteError(error), error);
  }
  if (!stored) return fail("the thread is gone");
  let thread: Record<string, unknown> | undefined;
  try {
    thread = asObject(JSON.parse(stored.text));
  } catch (error) {
    fail("data is not JSON", error);
  }
  if (!thread) return fail("data is not a thread object");
  const skipped: SkipReport = { count: 0 };
  const place = `${path}#${threadId}`;
  const snapshot = asObject(thread.initial_project_snapshot);
  const worktree = asObject(Array.isArray(snapshot?.worktree_snapshots) ? snapshot.worktree_snapshots[0] : undefined);
  const projectPath = typeof worktree?.worktree_path === "string" ? worktree.worktree_path : "";
  const branch = asObject(worktree?.git_state)?.current_branch;
  const endedAt = timeOf(thread.updated_at);
  const startedAt = timeOf(snapshot?.timestamp) || endedAt;
  const model = asObject(thread.model)?.model;
  const context: Context = {
    skipped,
    place,
    sessionId: unit.sessionId,
    startedAt,
    withOutputs: options.withOutputs === true,
    usage: asObject(thread.request_token_usage) ?? {},
    model: typeof model === "string" && model ? model : unknownModel,
    turns: [],
  };
  if (thread.version === threadVersion)
    for (const message of Array.isArray(thread.messages) ? thread.messages : []) readMessage(context, message);
  else
    noteSkip(
      skipped,
      place,
      `thread in the first agent's format (version ${String(thread.version ?? "none")}), not read`,
    );
  const turns = context.turns.map((turn) => {
    turn.files = filesTouched(turn.toolCalls);
    return turn;
  });
  const title = typeof thread.title === "string" && thread.title.trim() ? thread.title.trim() : null;
  const session: Session = {
    id: unit.sessionId,
    source: "zed",
    projectPath,
    projectName: projectNameOf(projectPath),
    gitBranch: typeof branch === "string" && branch && branch !== "HEAD" ? branch : null,
    startedAt,
    endedAt: Math.max(startedAt, endedAt),
    title,
    turnCount: turns.length,
    parentSessionId: null,
    isSubagent: false,
    location: path,
  };
  // `detailed_summary`: the summary Zed's agent writes of the whole thread (issue 41); the thread records no time for it.
  const summary = thread.detailed_summary;
  return {
    session: withAbstract(
      session,
      typeof summary === "string" ? [{ source: "agent_summary", text: summary, at: 0 }] : [],
    ),
    turns,
    fromTurn: 1,
    bytesRead: stored.bytes,
    skipped,
  };
}

/** Per-parse state. */
interface Context {
  skipped: SkipReport;
  place: string;
  sessionId: string;
  startedAt: number;
  withOutputs: boolean;
  usage: Record<string, unknown>;
  model: string;
  turns: Turn[];
}

function openTurn(context: Context, prompt: string): Turn {
  const turn: Turn = {
    sessionId: context.sessionId,
    number: context.turns.length + 1,
    timestamp: context.startedAt,
    prompt,
    response: "",
    toolCalls: [],
    files: [],
    isSubagent: false,
  };
  context.turns.push(turn);
  return turn;
}

/** The value of a one-key object `{Tag: value}` (serde's externally tagged enum), as `[tag, value]`. */
function tagged(value: unknown): [string, unknown] {
  if (typeof value === "string") return [value, undefined];
  const object = asObject(value);
  const key = object ? Object.keys(object)[0] : undefined;
  return key && object ? [key, object[key]] : ["", undefined];
}

function readMessage(context: Context, message: unknown): void {
  const [kind, body] = tagged(message);
  const object = asObject(body);
  if (kind === "Resume") return;
  if (kind === "User" && object) {
    const texts: string[] = [];
    for (const part of Array.isArray(object.content) ? object.content : []) {
      const [partKind, value] = tagged(part);
      if (partKind === "Text" && typeof value === "string") texts.push(value);
      else if (partKind === "Mention" && typeof asObject(value)?.content === "string" && asObject(value)?.content)
        noteSkip(context.skipped, context.place, "attached context (mention)");
    }
    const turn = openTurn(context, texts.join("").trim());
    const counts = asObject(context.usage[typeof object.id === "string" ? object.id : ""]);
    if (counts) {
      turn.usage = [];
      addModelUsage(turn.usage, context.model, {
        input: countOf(counts.input_tokens),
        output: countOf(counts.output_tokens),
        cacheRead: countOf(counts.cache_read_input_tokens),
        cacheWrite: countOf(counts.cache_creation_input_tokens),
      });
    }
    return;
  }
  if (kind === "Agent" && object) {
    const turn = context.turns.at(-1) ?? openTurn(context, "");
    const calls = new Map<string, ToolCall>();
    const replies: string[] = [];
    for (const part of Array.isArray(object.content) ? object.content : []) {
      const [partKind, value] = tagged(part);
      if (partKind === "Text" && typeof value === "string" && value.trim()) replies.push(value.trim());
      else if (partKind === "ToolUse") {
        const use = asObject(value);
        if (typeof use?.name !== "string" || !use.name) {
          noteSkip(context.skipped, context.place, "tool use without a name");
          continue;
        }
        const call = zedToolCall(use.name, use.input, context.withOutputs);
        if (typeof use.id === "string") calls.set(use.id, call);
        turn.toolCalls.push(call);
      }
    }
    for (const [id, value] of Object.entries(asObject(object.tool_results) ?? {})) {
      const result = asObject(value);
      const call = calls.get(id);
      if (!call || !result) {
        noteSkip(context.skipped, context.place, "tool result without its call");
        continue;
      }
      call.isError = result.is_error === true;
      if (context.withOutputs) {
        const [contentKind, content] = tagged(result.content);
        call.output =
          contentKind === "Text" && typeof content === "string"
            ? content
            : typeof result.content === "string"
              ? result.content
              : "";
      }
    }
    if (replies.length > 0) turn.response = [turn.response, ...replies].filter(Boolean).join("\n\n");
    return;
  }
  noteSkip(context.skipped, context.place, `message ${kind || "without a kind"}`);
}
