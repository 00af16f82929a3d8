/**
 * Parsing one Grok CLI session into a `Session` and its `Turn`s (docs/formats/grok-cli.md). Each `messages` row holds
 * one AI SDK 6 `ModelMessage` (superagent-ai/grok-cli `src/storage/transcript.ts`, commit fb97af83):
 * - `{role: "user", content: string | [{type: "text", text} | {type: "image" | "file", …}]}` starts a turn;
 * - `{role: "assistant", content: string | [{type: "text", text} | {type: "reasoning", text} | {type: "tool-call",
 *   toolCallId, toolName, input}]}` adds prose and calls (reasoning is left out, as thinking is for every source);
 * - `{role: "tool", content: [{type: "tool-result", toolCallId, toolName, output}]}` ends its calls;
 * - `{role: "system", …}` is the system prompt: left out.
 * `usage_events` rows add their tokens and cost (micro-dollars) to the turn holding their `message_seq`. The session
 * row gives the title, the model and the project folder (`cwd_at_start`); no git branch is recorded. Compactions keep
 * every message in the table, so the whole history is read; their summaries are the session's abstract (issue 41). A `task` call's result holds its sub-agent's answer.
 * A message of another role, or a part of another type, that carries text is counted in `skipped`.
 */
import { SourceError } from "../../errors.ts";
import { asObject, projectNameOf, timeOf } from "../shared/fields.ts";
import { describeSqliteError } from "../shared/readonly-sqlite.ts";
import { noteSkip } from "../shared/skips.ts";
import { finishDraft, newTurnDraft, type TurnDraft } from "../shared/turn-builder.ts";
import { withAbstract } from "../shared/abstract.ts";
import type { ParseOptions, ParseResult, Session, SkipReport, SourceUnit, ToolCall } from "../types.ts";
import { addModelUsage, countOf } from "../usage.ts";
import { loadSession, type MessageRow, type UsageRow, withGrokDatabase } from "./database.ts";
import { grokToolCall, toolOutputOf } from "./tools.ts";

/**
 * Parse one session of the database `unit.containerPath`.
 * @throws SourceError when the database cannot be read now or no longer holds the session, e.g.
 *   `/home/u/.grok/grok.db: database is locked`
 */
export function parseGrokUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.containerPath;
  let loaded: ReturnType<typeof loadSession>;
  try {
    loaded = withGrokDatabase(path, (handle) => loadSession(handle, unit.sessionId));
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(`${path}: ${describeSqliteError(error)}`, path, { cause: error });
  }
  if (!loaded) throw new SourceError(`${path}: session ${unit.sessionId} is no longer in the database`, path);
  const { session, messages, usage, compactions } = loaded;
  const skipped: SkipReport = { count: 0 };
  const drafts: TurnDraft[] = [];
  const turnOfSeq = new Map<number, TurnDraft>();
  const calls = new Map<string, ToolCall>();
  const withOutputs = options.withOutputs === true;
  let bytes = 0;
  let endedAt = Math.max(timeOf(session.createdAt), timeOf(session.updatedAt));
  const current = (t: number): TurnDraft => {
    const last = drafts.at(-1);
    if (last) return last;
    const draft = newTurnDraft(session.id, 1, t, ""); // messages before the first prompt: a turn without one
    drafts.push(draft);
    return draft;
  };
  for (const row of messages) {
    bytes += row.messageJson.length;
    const place = `${path}: session ${session.id} message ${row.seq}`;
    let message: Record<string, unknown> | undefined;
    try {
      message = asObject(JSON.parse(row.messageJson));
    } catch {
      message = undefined;
    }
    if (!message) {
      noteSkip(skipped, place, "not a JSON object");
      continue;
    }
    const t = timeOf(row.createdAt);
    endedAt = Math.max(endedAt, t);
    const role = typeof message.role === "string" ? message.role : row.role;
    const parts = partsOf(message.content);
    switch (role) {
      case "user": {
        const text = textOf(parts);
        if (text.trim()) drafts.push(newTurnDraft(session.id, drafts.length + 1, t, text));
        break;
      }
      case "assistant":
        readAssistant(current(t), parts, calls, withOutputs, place, skipped);
        break;
      case "tool":
        for (const part of parts) readResult(part, calls, withOutputs, place, skipped);
        break;
      case "system":
        break;
      default:
        if (textOf(parts).trim()) noteSkip(skipped, place, `message role ${role || "(none)"}`);
    }
    const draft = drafts.at(-1);
    if (draft) turnOfSeq.set(row.seq, draft);
  }
  addUsage(usage, turnOfSeq, messages);
  const turns = drafts.map(finishDraft);
  const result: Session = {
    id: session.id,
    source: "grok-cli",
    projectPath: session.cwdAtStart,
    projectName: projectNameOf(session.cwdAtStart),
    gitBranch: null,
    startedAt: timeOf(session.createdAt),
    endedAt,
    title: session.title,
    turnCount: turns.length,
    parentSessionId: null,
    isSubagent: false,
    location: path,
  };
  return {
    session: withAbstract(
      result,
      compactions.map((row) => ({ source: "compaction" as const, text: row.summary, at: timeOf(row.createdAt) })),
    ),
    turns,
    fromTurn: 1,
    bytesRead: bytes,
    skipped,
  };
}

/** Prose and calls of one assistant message. */
function readAssistant(
  draft: TurnDraft,
  parts: Record<string, unknown>[],
  calls: Map<string, ToolCall>,
  withOutputs: boolean,
  place: string,
  skipped: SkipReport,
): void {
  for (const part of parts) {
    if (part.type === "text") {
      if (typeof part.text === "string" && part.text.trim()) draft.replies.push(part.text);
    } else if (part.type === "tool-call") {
      if (typeof part.toolName !== "string" || !part.toolName) {
        noteSkip(skipped, place, "tool call without a name");
        continue;
      }
      const call = grokToolCall(part.toolName, part.input ?? part.args, withOutputs);
      if (typeof part.toolCallId === "string") calls.set(part.toolCallId, call);
      draft.turn.toolCalls.push(call);
    } else if (part.type !== "reasoning" && typeof part.text === "string" && part.text.trim()) {
      noteSkip(skipped, place, `part type ${String(part.type)}`);
    }
  }
}

/** A `tool-result` part: its call's error flag and output. */
function readResult(
  part: Record<string, unknown>,
  calls: Map<string, ToolCall>,
  withOutputs: boolean,
  place: string,
  skipped: SkipReport,
): void {
  if (part.type !== "tool-result") return;
  const { text, isError } = toolOutputOf(part.output ?? part.result);
  const call = calls.get(typeof part.toolCallId === "string" ? part.toolCallId : "");
  if (!call) {
    if (text.trim()) noteSkip(skipped, place, "tool result without its call");
    return;
  }
  call.isError = isError || part.isError === true;
  if (withOutputs) call.output = text;
}

/** Usage rows onto the turn holding their message (the turn of the nearest earlier message when theirs is unknown). */
function addUsage(usage: UsageRow[], turnOfSeq: Map<number, TurnDraft>, messages: MessageRow[]): void {
  for (const row of usage) {
    let draft = row.messageSeq === null ? undefined : turnOfSeq.get(row.messageSeq);
    if (!draft) {
      const earlier = messages.filter((message) => row.messageSeq === null || message.seq <= row.messageSeq).at(-1);
      draft = earlier ? turnOfSeq.get(earlier.seq) : undefined;
    }
    if (!draft) continue;
    const cost = countOf(row.costMicros);
    addModelUsage(
      draft.turn.usage ?? [],
      row.model || "unknown",
      { input: countOf(row.inputTokens), output: countOf(row.outputTokens), cacheRead: null, cacheWrite: null },
      cost === null ? null : cost / 1_000_000,
    );
  }
}

/** A message's content as parts: a string is one text part. */
function partsOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.map(asObject).filter((part) => part !== undefined);
}

/** The text parts joined by blank lines. */
function textOf(parts: Record<string, unknown>[]): string {
  return parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n\n");
}
