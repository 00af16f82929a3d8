/**
 * Claude Code JSONL lines → compact, JSON-serializable tree records (`Rec`). Owns the classification
 * of decoded lines (line split and JSON decoding: shared/jsonl-lines.ts) and of user lines
 * (docs/formats.md §1.2, §1.4–§1.6). Knows nothing about branches or turns (tree.ts, turns.ts) or session metadata (meta.ts).
 */
import { asObject, timeOf } from "../shared/fields.ts";
import { withFileChange } from "../file-change.ts";
import { hashOf } from "../shared/sha1.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";
import { countOf } from "../usage.ts";

/** Kind of a tree record: a human prompt, an assistant line, a tool-result line, or anything else on the tree. */
export type RecKind = "prompt" | "assistant" | "result" | "other";

/** One assistant content block kept for turns: prose text, or a tool call (built without output). */
export interface RecBlock {
  text?: string;
  /**
   * A tool call: `id` is the `tool_use.id`, or `<line uuid>:<block index>` for a block without one (issue 26: such
   * blocks were dropped; nothing pairs with them). `taskPrompt` is a hash of a Task/Agent call's `input.prompt`, which
   * links the call to the inline sub-agent chain it started (sidechains.ts).
   */
  tool?: { id: string; call: ToolCall; taskPrompt?: string };
}

/** One tool result carried by a user line (§1.4 `tool_result`). */
export interface RecResult {
  id: string;
  isError: boolean;
  /** Result text (string content or text blocks joined by "\n"); only kept when parsing with outputs. */
  output?: string;
  /** `toolUseResult.agentId` of a Task/Agent result (§1.8): the sub-agent file `agent-<agentId>.jsonl` it wrote. */
  agentId?: string;
}

/**
 * A line that sits on the `uuid → parentUuid` tree (§1.7: user, assistant, system, attachment, progress),
 * reduced to what turns need. JSON-serializable so the tail of a session can live in the resume state.
 */
export interface Rec {
  u: string;
  p: string | null;
  /** `logicalParentUuid` of a `compact_boundary` (§1.7), bridging the compaction. */
  lp?: string;
  k: RecKind;
  /** True for `user`/`assistant` lines: candidates for the leaf of the active branch. */
  conv: boolean;
  /** True for a line with `isSidechain: true` (a sub-agent's line, §1.8); absent otherwise. */
  sc?: true;
  /** Record time, epoch ms UTC; 0 when missing. */
  t: number;
  prompt?: string;
  /** Assistant `message.id` (falls back to the line uuid). */
  mid?: string;
  blocks?: RecBlock[];
  results?: RecResult[];
  /** Assistant line: its `message.model` and `message.usage` (§1.5), absent on synthetic lines and lines without. */
  use?: RecUsage;
}

/**
 * The usage an assistant line carries (§1.5), copied onto every split line of one `message.id` with growing
 * `output_tokens`: turns.ts keeps the last line's. Counts are tokens, null when the field is missing.
 */
export interface RecUsage {
  model: string;
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
}

/** Options of {@link toRec}. */
export interface RecOptions {
  withOutputs: boolean;
  /** Replaces a `<persisted-output>` preview with the full text when it can (§1.8); identity otherwise. */
  resolveOutput: (text: string) => string;
}

const treeTypes = new Set(["user", "assistant", "system", "attachment", "progress"]);

/**
 * Reduce one decoded line to a tree record, or null when the line is not on the tree (no uuid, or
 * a kind such as `summary`, `file-history-snapshot`, `queue-operation` — §1.3, §1.7).
 */
export function toRec(value: Record<string, unknown>, options: RecOptions): Rec | null {
  const type = value.type;
  const uuid = value.uuid;
  if (typeof type !== "string" || !treeTypes.has(type) || typeof uuid !== "string") return null;
  const rec: Rec = {
    u: uuid,
    p: typeof value.parentUuid === "string" ? value.parentUuid : null,
    k: "other",
    conv: type === "user" || type === "assistant",
    t: timeOf(value.timestamp),
  };
  if (value.isSidechain === true) rec.sc = true;
  if (type === "system" && value.subtype === "compact_boundary" && typeof value.logicalParentUuid === "string") {
    rec.lp = value.logicalParentUuid;
  } else if (type === "assistant") {
    fillAssistant(rec, value, options.withOutputs);
  } else if (type === "user") {
    fillUser(rec, value, options);
  }
  return rec;
}

function fillAssistant(rec: Rec, value: Record<string, unknown>, withOutputs: boolean): void {
  const message = asObject(value.message);
  rec.k = "assistant";
  rec.mid = typeof message?.id === "string" ? message.id : rec.u;
  // §1.5: synthetic lines carry user-facing API errors, not assistant prose.
  const synthetic = message?.model === "<synthetic>" || value.isApiErrorMessage === true;
  const blocks: RecBlock[] = [];
  const content = message?.content;
  if (typeof content === "string") {
    if (!synthetic && content.trim()) blocks.push({ text: content });
  } else if (Array.isArray(content)) {
    for (const [index, item] of content.entries()) {
      const block = asObject(item);
      if (!block) continue;
      if (block.type === "text" && typeof block.text === "string" && block.text.trim() && !synthetic) {
        blocks.push({ text: block.text });
      } else if (block.type === "tool_use") {
        blocks.push({
          tool: toolBlock(block, typeof block.id === "string" ? block.id : `${rec.u}:${index}`, withOutputs),
        });
      }
    }
  }
  rec.blocks = blocks;
  const usage = asObject(message?.usage);
  if (!synthetic && usage && typeof message?.model === "string" && message.model)
    rec.use = {
      model: message.model,
      input: countOf(usage.input_tokens),
      output: countOf(usage.output_tokens),
      cacheRead: countOf(usage.cache_read_input_tokens),
      cacheWrite: countOf(usage.cache_creation_input_tokens),
    };
}

/**
 * A `tool_use` block as a call; a Task/Agent call keeps a hash of its prompt (the link to its inline sub-agent).
 * With `withOutputs` (level 3), an Edit/MultiEdit/Write call keeps what it changed (`change`, file-change.ts).
 */
function toolBlock(block: Record<string, unknown>, id: string, withOutputs: boolean): NonNullable<RecBlock["tool"]> {
  const name = normalizeToolName(typeof block.name === "string" ? block.name : "unknown");
  const input = normalizeToolInput(block.input);
  const call = buildToolCall(name, input, false);
  const tool: NonNullable<RecBlock["tool"]> = { id, call: withOutputs ? withFileChange(call, input) : call };
  if (name === "Task" && typeof input.prompt === "string" && input.prompt.trim())
    tool.taskPrompt = promptKey(input.prompt);
  return tool;
}

/** The key that links a Task call's prompt to the first prompt of the sub-agent chain it started (whitespace-trimmed). */
export function promptKey(text: string): string {
  return hashOf(text.trim());
}

function fillUser(rec: Rec, value: Record<string, unknown>, options: RecOptions): void {
  const content = asObject(value.message)?.content;
  if (value.isCompactSummary === true) return;
  if (Array.isArray(content) && content.some((item) => asObject(item)?.type === "tool_result")) {
    rec.k = "result";
    rec.results = collectResults(content, options);
    const agentId = asObject(value.toolUseResult)?.agentId;
    if (typeof agentId === "string" && agentId && rec.results.length === 1) rec.results[0]!.agentId = agentId;
    return;
  }
  if (value.isMeta === true) return;
  const prompt = classifyPromptText(content);
  if (prompt !== null) {
    rec.k = "prompt";
    rec.prompt = prompt;
  }
}

function collectResults(content: unknown[], options: RecOptions): RecResult[] {
  const results: RecResult[] = [];
  for (const item of content) {
    const block = asObject(item);
    if (block?.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
    const result: RecResult = { id: block.tool_use_id, isError: block.is_error === true };
    if (options.withOutputs) result.output = options.resolveOutput(resultText(block.content));
    results.push(result);
  }
  return results;
}

/** Text of a `tool_result.content`: a string, or text blocks joined by "\n" (images as `[image]`). */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const item of content) {
    const block = asObject(item);
    if (block?.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block?.type === "image") parts.push("[image]");
  }
  return parts.join("\n");
}

const commandName = /<command-name>\s*\/?([^<]*?)\s*<\/command-name>/;
const commandArgs = /<command-args>([\s\S]*?)<\/command-args>/;
const bashInput = /^<bash-input>([\s\S]*?)<\/bash-input>/;

/**
 * The prompt a human typed, from a non-meta user line's `message.content` (§1.6), or null when the
 * line is not a prompt (command output, interrupt marker, bash output, empty).
 * Slash commands are prompts reduced to `/cmd args`; bash mode becomes `! cmd`.
 * Examples: `"<command-name>/model</command-name><command-args></command-args>"` → `/model`;
 *   `"<bash-input>ls</bash-input>"` → `! ls`; `"[Request interrupted by user]"` → null;
 *   `[{type:"image"}]` → `[image]`.
 */
export function classifyPromptText(content: unknown): string | null {
  let text = "";
  let hasImage = false;
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const item of content) {
      const block = asObject(item);
      if (block?.type === "text" && typeof block.text === "string") parts.push(block.text);
      else if (block?.type === "image" || block?.type === "document") hasImage = true;
    }
    text = parts.join("\n");
  }
  text = text.trim();
  if (text.length === 0) return hasImage ? "[image]" : null;
  if (text.charCodeAt(0) === 60 /* < */) return classifyTagged(text);
  if (text.startsWith("[Request interrupted by user")) return null;
  return text;
}

function classifyTagged(text: string): string | null {
  const head = text.slice(0, 400);
  if (head.includes("<command-name>")) {
    const name = commandName.exec(text)?.[1]?.trim() ?? "";
    const args = commandArgs.exec(text)?.[1]?.trim() ?? "";
    if (name) return args ? `/${name} ${args}` : `/${name}`;
  }
  if (text.startsWith("<bash-input>")) {
    const command = bashInput.exec(text)?.[1]?.trim() ?? "";
    return command ? `! ${command}` : null;
  }
  const outputTags = [
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
  ];
  if (outputTags.some((tag) => text.startsWith(tag))) return null;
  return text;
}
