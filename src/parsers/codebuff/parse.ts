/**
 * Parsing one Codebuff chat into a `Session` and its `Turn`s (docs/formats/codebuff.md). `chat-messages.json` is the
 * chat as the CLI's screen shows it, a JSON array of `ChatMessage` `{id, variant: "user" | "ai" | "agent" | "error",
 * content, blocks?, timestamp, credits?, …}` whose `blocks` are `text` `{content, textType?: "reasoning" | "text"}`,
 * `tool` `{toolCallId, toolName, input, output?}`, `agent` `{agentType, content, blocks?}` (a sub-agent, its own
 * blocks nested), `plan` `{content}` and display-only kinds (`mode-divider`, `agent-list`, `gate-state`, `image`,
 * `ask-user`): CodebuffAI/codebuff `cli/src/types/chat.ts` (commit 03cb53dc).
 * - A `user` message starts a turn; `ai` and `agent` messages add their text blocks (or `content` when they have none),
 *   tool calls and sub-agents' text and calls to it; an `error` message is kept in the reply as `[error] …`.
 * - Reasoning text is left out by design, as thinking is for every source.
 * - `timestamp` is a display time in some versions (`01:15 PM`): a turn takes it only when it is a full date, else the
 *   chat's start, which the chat id records.
 * - The project folder is `run-state.json`'s `sessionState.fileContext.projectRoot`. No branch, model or token count is
 *   recorded (only Codebuff credits).
 * A message of another variant, or a block of another kind, that carries text is counted in `skipped`.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { asObject, projectNameOf } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import { finishDraft, newTurnDraft, type TurnDraft } from "../shared/turn-builder.ts";
import type { ParseOptions, ParseResult, SkipReport, SourceUnit } from "../types.ts";
import { runStateFileName } from "./scan.ts";
import { codebuffToolCall } from "./tools.ts";

/** Block kinds that only draw the screen (never conversation text). */
const displayBlocks = new Set(["mode-divider", "agent-list", "gate-state", "image", "html", "ask-user"]);

/**
 * The start of a chat from its id, `new Date().toISOString()` with `:` replaced by `-`; 0 when the id is no such time.
 * Example: `2026-03-21T17-14-03.768Z` → Date.parse("2026-03-21T17:14:03.768Z").
 */
export function chatStartOf(chatId: string): number {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}(?:\.\d+)?)Z$/.exec(chatId);
  if (!match) return 0;
  const ms = Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}Z`);
  return Number.isFinite(ms) ? ms : 0;
}

/**
 * Parse one chat from its `chat-messages.json` (`unit.key`) and the `run-state.json` beside it.
 * @throws SourceError when the chat cannot be read or is not a JSON array, e.g.
 *   `cannot read codebuff chat /x/chat-messages.json: permission denied`
 */
export function parseCodebuffUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.key;
  let bytes: Buffer;
  let messages: unknown;
  try {
    bytes = readFileSync(path);
    messages = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    const reason = error instanceof SyntaxError ? "not JSON" : fsReason(error);
    throw new SourceError(`cannot read codebuff chat ${path}: ${reason}`, path, { cause: error });
  }
  if (!Array.isArray(messages))
    throw new SourceError(`cannot read codebuff chat ${path}: not a JSON array of messages`, path);
  const skipped: SkipReport = { count: 0 };
  const withOutputs = options.withOutputs === true;
  const startedAt = chatStartOf(basename(dirname(path)));
  let endedAt = startedAt;
  const drafts: TurnDraft[] = [];
  const current = (t: number): TurnDraft => {
    const last = drafts.at(-1);
    if (last) return last;
    const draft = newTurnDraft(unit.sessionId, 1, t, ""); // messages before the first prompt: a turn without one
    drafts.push(draft);
    return draft;
  };
  messages.forEach((raw, index) => {
    const message = asObject(raw);
    const place = `${path}: message ${index + 1}`;
    if (!message) {
      noteSkip(skipped, place, "not a JSON object");
      return;
    }
    const stamped = fullDateOf(message.timestamp);
    const t = stamped || startedAt;
    endedAt = Math.max(endedAt, stamped);
    const content = typeof message.content === "string" ? message.content : "";
    switch (message.variant) {
      case "user":
        if (content.trim()) drafts.push(newTurnDraft(unit.sessionId, drafts.length + 1, t, content));
        break;
      case "ai":
      case "agent":
        readBlocks(current(t), content, message.blocks, withOutputs, place, skipped);
        break;
      case "error":
        if (content.trim()) current(t).replies.push(`[error] ${content}`);
        break;
      default:
        if (content.trim()) noteSkip(skipped, place, `message variant ${String(message.variant ?? "(none)")}`);
    }
  });
  const turns = drafts.map(finishDraft);
  const projectPath = projectRootOf(path);
  return {
    session: {
      id: unit.sessionId,
      source: "codebuff",
      projectPath,
      projectName: projectPath ? projectNameOf(projectPath) : basename(dirname(dirname(dirname(path)))),
      gitBranch: null,
      startedAt,
      endedAt,
      title: null,
      turnCount: turns.length,
      parentSessionId: null,
      isSubagent: false,
      location: path,
    },
    turns,
    fromTurn: 1,
    bytesRead: bytes.length,
    skipped,
  };
}

/** The text, calls and sub-agents of one message's blocks (its `content` when it has no text block). */
function readBlocks(
  draft: TurnDraft,
  content: string,
  blocks: unknown,
  withOutputs: boolean,
  place: string,
  skipped: SkipReport,
): void {
  const list = Array.isArray(blocks) ? blocks.map(asObject).filter((block) => block !== undefined) : [];
  if (!list.some((block) => block.type === "text") && content.trim()) draft.replies.push(content);
  for (const block of list) {
    const text = typeof block.content === "string" ? block.content : "";
    switch (block.type) {
      case "text":
        if (block.textType !== "reasoning" && text.trim()) draft.replies.push(text);
        break;
      case "tool": {
        if (typeof block.toolName !== "string" || !block.toolName) {
          noteSkip(skipped, place, "tool block without a name");
          break;
        }
        const call = codebuffToolCall(block.toolName, block.input, withOutputs);
        if (withOutputs && typeof block.output === "string") call.output = block.output;
        draft.turn.toolCalls.push(call);
        break;
      }
      case "agent":
        readBlocks(draft, text, block.blocks, withOutputs, place, skipped);
        break;
      case "plan":
        if (text.trim()) draft.replies.push(text);
        break;
      default:
        if (!displayBlocks.has(String(block.type)) && text.trim())
          noteSkip(skipped, place, `block kind ${String(block.type ?? "(none)")}`);
    }
  }
}

/** `run-state.json`'s `sessionState.fileContext.projectRoot`, "" when the file or field is missing or unreadable. */
function projectRootOf(messagesPath: string): string {
  try {
    const text = readFileSync(join(dirname(messagesPath), runStateFileName), "utf8");
    const root = asObject(asObject(asObject(JSON.parse(text))?.sessionState)?.fileContext)?.projectRoot;
    return typeof root === "string" ? root : "";
  } catch {
    return "";
  }
}

/** Epoch ms of a timestamp that names a date (ISO); 0 for a display time such as `01:15 PM`. */
function fullDateOf(value: unknown): number {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(value)) return 0;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : 0;
}
