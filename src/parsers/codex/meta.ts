/**
 * Session metadata of a Codex rollout, gathered line by line (docs/formats.md §3.2 `session_meta`,
 * `turn_context`): identity from the FIRST `session_meta` only, project (`cwd`), git branch, own first/last
 * record time, sub-agent kind and parent, the title of `thread_name_updated` events and the summaries of `compacted`
 * records (abstract.ts, issue 41). Also owns the skipping of
 * the parent history copied into a forked rollout. JSON-serializable so a resumed parse continues it.
 */
import { asObject, timeOf } from "../shared/fields.ts";
import type { AbstractPart } from "../types.ts";
import { compactionSummary } from "./abstract.ts";

/**
 * Where the copied parent history of a fork ends. `none`: not a fork (nothing copied); `ordinal`: skip lines
 * whose `ordinal` < `start` (`subagent_history_start_ordinal`); `burst`: skip lines older than the fork
 * instant (copies that kept their original timestamps, §3.2) and the burst of re-stamped copies written at
 * the fork instant, until the fork's own `thread_settings_applied` or the first gap of ≥ 1 s; `done`: past it.
 */
export type CopyState =
  | { mode: "none" }
  | { mode: "ordinal"; start: number }
  | { mode: "burst"; ownId: string; forkMs: number; lastMs: number }
  | { mode: "done" };

/** Gap that ends a copied burst, ms: copies are written 0–40 ms apart, a real next event comes seconds later. */
export const copiedBurstGapMs = 1000;

/** Metadata accumulated over the own (not copied) lines read so far. Times are epoch ms UTC (0 = none). */
export interface CodexMeta {
  /** True once the first line was seen (a `session_meta`, or anything else: then there is no header). */
  started: boolean;
  /** Thread id of the first `session_meta` (`id`, or `session_id` in newer writers). */
  threadId: string | null;
  cwd: string | null;
  /** `git.branch` of the first `session_meta` ("" and "HEAD" left out). */
  branch: string | null;
  /** `session_meta.payload.timestamp` (else the envelope's). */
  metaAt: number;
  startedAt: number;
  endedAt: number;
  isSubagent: boolean;
  /** `review`, `compact`, `thread_spawn`, … (first key or value of `source.subagent`); null for main threads. */
  subagentKind: string | null;
  parentId: string | null;
  forkedFromId: string | null;
  /** Last `thread_name_updated` event's name. */
  threadName: string | null;
  /**
   * Body of the last AGENTS.md injection (`# AGENTS.md instructions for …\n\n<INSTRUCTIONS>\n<body>\n</INSTRUCTIONS>`),
   * or null: some editor integrations (blubber corpus, `source: "unknown"`) also paste it at the start of the
   * human's message, where {@link stripInjectedPreamble} removes it.
   */
  agentsInstructions: string | null;
  /** The summaries of the own `compacted` records, in file order (`compaction` parts, not yet ordered). */
  compactions: AbstractPart[];
  copy: CopyState;
}

/** A fresh, empty metadata state. */
export function createMeta(): CodexMeta {
  return {
    started: false,
    threadId: null,
    cwd: null,
    branch: null,
    metaAt: 0,
    startedAt: 0,
    endedAt: 0,
    isSubagent: false,
    subagentKind: null,
    parentId: null,
    forkedFromId: null,
    threadName: null,
    agentsInstructions: null,
    compactions: [],
    copy: { mode: "none" },
  };
}

const text = (value: unknown): string | null => (typeof value === "string" && value.length > 0 ? value : null);

/**
 * Fold one decoded line into `meta` (mutates) and say whether it belongs to this thread.
 * @returns "own" for lines to turn into items; "header" for the first `session_meta`; "copied" for lines of
 *   the parent history copied into a fork (to skip entirely)
 */
export function applyLine(meta: CodexMeta, line: Record<string, unknown>): "own" | "header" | "copied" {
  if (!meta.started) {
    meta.started = true;
    const header = headerPayload(line);
    if (header) {
      applyHeader(meta, header, timeOf(line.timestamp));
      return "header";
    }
    meta.copy = { mode: "done" };
  }
  if (isCopied(meta, line)) return "copied";
  const t = timeOf(line.timestamp);
  if (t > 0) {
    if (meta.startedAt === 0 || t < meta.startedAt) meta.startedAt = t;
    if (t > meta.endedAt) meta.endedAt = t;
  }
  const payload = asObject(line.payload);
  if (line.type === "turn_context" && meta.cwd === null) meta.cwd = text(payload?.cwd);
  if (line.type === "response_item" && payload?.type === "message" && payload.role === "user") {
    const instructions = agentsInstructionsOf(payload.content);
    if (instructions !== null) meta.agentsInstructions = instructions;
  }
  if (line.type === "event_msg" && payload?.type === "thread_name_updated")
    meta.threadName = text(payload.thread_name) ?? text(payload.name) ?? meta.threadName;
  if (line.type === "compacted") {
    const summary = compactionSummary(payload);
    if (summary !== null) meta.compactions.push({ source: "compaction", text: summary, at: t });
  }
  return "own";
}

/** The `session_meta` payload of a first line, or of a legacy unwrapped header `{id, timestamp, instructions}` (§3.3). */
function headerPayload(line: Record<string, unknown>): Record<string, unknown> | undefined {
  if (line.type === "session_meta") return asObject(line.payload);
  if (line.payload === undefined && line.type === undefined && typeof line.id === "string") return line;
  return undefined;
}

function applyHeader(meta: CodexMeta, payload: Record<string, unknown>, envelopeAt: number): void {
  meta.threadId = text(payload.id) ?? text(payload.session_id);
  meta.cwd = text(payload.cwd);
  const branch = text(asObject(payload.git)?.branch);
  meta.branch = branch === "HEAD" ? null : branch;
  meta.metaAt = timeOf(payload.timestamp) || envelopeAt;
  meta.startedAt = meta.metaAt;
  meta.endedAt = Math.max(meta.metaAt, envelopeAt);
  const source = payload.source;
  const subagent = asObject(source)?.subagent;
  const spawn = asObject(asObject(subagent)?.thread_spawn);
  meta.subagentKind =
    typeof subagent === "string"
      ? subagent
      : subagent !== undefined
        ? (Object.keys(asObject(subagent) ?? {})[0] ?? "subagent")
        : null;
  meta.forkedFromId = text(payload.forked_from_id);
  meta.isSubagent =
    subagent !== undefined || payload.thread_source === "subagent" || text(payload.parent_thread_id) !== null;
  if (meta.isSubagent && meta.subagentKind === null) meta.subagentKind = "subagent";
  meta.parentId =
    text(payload.parent_thread_id) ?? text(spawn?.parent_thread_id) ?? (meta.isSubagent ? meta.forkedFromId : null);
  meta.copy = copyStateOf(payload, meta.threadId ?? "", meta.metaAt || envelopeAt);
}

/**
 * Where the copied history ends, from the header (after the rule a third-party reader derived from
 * real rollouts 0.115–0.142: only a rollout with `forked_from_id` copies its parent's lines).
 */
function copyStateOf(payload: Record<string, unknown>, ownId: string, forkMs: number): CopyState {
  if (text(payload.forked_from_id) === null) return { mode: "none" };
  if (typeof payload.subagent_history_start_ordinal === "number")
    return { mode: "ordinal", start: payload.subagent_history_start_ordinal };
  if (payload.history_base !== undefined && payload.history_base !== null) return { mode: "none" };
  return { mode: "burst", ownId, forkMs, lastMs: forkMs };
}

function isCopied(meta: CodexMeta, line: Record<string, unknown>): boolean {
  const copy = meta.copy;
  if (copy.mode === "none" || copy.mode === "done") return false;
  if (copy.mode === "ordinal") {
    if (typeof line.ordinal === "number" && line.ordinal < copy.start) return true;
    meta.copy = { mode: "done" };
    return false;
  }
  if (line.type === "session_meta") return true; // an ancestor's header, copied with its history
  const payload = asObject(line.payload);
  if (line.type === "event_msg" && payload?.type === "thread_settings_applied" && payload.thread_id === copy.ownId) {
    meta.copy = { mode: "done" };
    return true;
  }
  const t = timeOf(line.timestamp);
  if (t === 0) return true;
  if (t < copy.forkMs) return true; // copies that kept the parent's original timestamps
  if (t - copy.lastMs >= copiedBurstGapMs) {
    meta.copy = { mode: "done" };
    return false;
  }
  copy.lastMs = t;
  return true;
}

const agentsBlock = /^# AGENTS\.md instructions for [^\n]*\n+<INSTRUCTIONS>\n([\s\S]*?)\n?<\/INSTRUCTIONS>/;

/** The `<INSTRUCTIONS>` body of an AGENTS.md injection (user message content) without Codex's `## Skills` listing, or null (also for bodies under 40 characters, too short to strip safely). */
function agentsInstructionsOf(content: unknown): string | null {
  const first = Array.isArray(content) ? asObject(content[0]) : undefined;
  const match = typeof first?.text === "string" ? agentsBlock.exec(first.text) : null;
  // Codex appends its skills listing to the AGENTS.md text; an integration pastes only the file itself.
  const body = match?.[1]?.split(/\n+## Skills\n/)[0]?.trim();
  return body && body.length >= 40 ? body : null;
}

/**
 * A prompt without the AGENTS.md text an integration pasted in front of it (see `agentsInstructions`).
 * Examples: instructions "Use bun." and prompt "Use bun.\n\nfix it" → "fix it"; prompt "fix it" → "fix it".
 */
export function stripInjectedPreamble(meta: CodexMeta, prompt: string): string {
  const instructions = meta.agentsInstructions;
  if (instructions === null || !prompt.startsWith(instructions)) return prompt;
  return prompt.slice(instructions.length).trim();
}
