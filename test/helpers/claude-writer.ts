/**
 * Writes Claude Code JSONL sessions for tests, line for line in the shape of docs/formats.md §1:
 * user prompt lines, assistant lines split one content block per line sharing `message.id`,
 * tool_use/tool_result pairs chained by `parentUuid`. Deterministic for a given input.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** One tool call of a test turn. */
export interface TestToolCall {
  name: string;
  input: Record<string, unknown>;
  output: string;
  isError?: boolean;
}

/** One test turn: a human prompt, the assistant's prose and optional tool calls. */
export interface TestTurn {
  prompt: string;
  response: string;
  tools?: TestToolCall[];
}

/** A test session. */
export interface TestSession {
  sessionId: string;
  cwd: string;
  gitBranch?: string;
  /** Epoch ms of the first line; each line is one second after the previous. */
  startMs?: number;
  title?: string;
  /**
   * A compaction summary written after the turns (issue 41): a `compact_boundary` line, then the `isCompactSummary`
   * user line holding "This session is being continued…\n\nSummary:\n" and this text (docs/formats.md §1.7).
   */
  compaction?: string;
  /** `message.model` of the assistant lines; default `claude-sonnet-4-5`. */
  model?: string;
  turns: TestTurn[];
}

/** State to continue a session file with {@link appendClaudeTurns}. */
export interface WriterState {
  session: TestSession;
  lastUuid: string | null;
  lineCount: number;
  clockMs: number;
}

const uuidFor = (sessionId: string, n: number): string => {
  const hex = Bun.hash(`${sessionId}:${n}`).toString(16).padStart(16, "0").slice(0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8000-${String(n).padStart(12, "0")}`;
};

function turnLines(state: WriterState, turn: TestTurn): string[] {
  const { session } = state;
  const lines: string[] = [];
  const base = () => ({
    parentUuid: state.lastUuid,
    isSidechain: false,
    userType: "external",
    cwd: session.cwd,
    sessionId: session.sessionId,
    version: "2.0.50",
    gitBranch: session.gitBranch ?? "main",
  });
  const push = (record: Record<string, unknown>) => {
    const uuid = uuidFor(session.sessionId, state.lineCount++);
    state.clockMs += 1000;
    lines.push(JSON.stringify({ ...base(), ...record, uuid, timestamp: new Date(state.clockMs).toISOString() }));
    state.lastUuid = uuid;
    return uuid;
  };
  push({ type: "user", message: { role: "user", content: turn.prompt } });
  const messageId = `msg_${uuidFor(session.sessionId, state.lineCount).replace(/-/g, "").slice(0, 24)}`;
  const assistant = (content: unknown) => ({
    type: "assistant",
    requestId: `req_${messageId.slice(4)}`,
    message: {
      id: messageId,
      type: "message",
      role: "assistant",
      model: session.model ?? "claude-sonnet-4-5",
      content: [content],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 20 },
    },
  });
  push(assistant({ type: "text", text: turn.response }));
  (turn.tools ?? []).forEach((tool, index) => {
    const toolUseId = `toolu_${messageId.slice(4, 16)}${index}`;
    const assistantUuid = push(assistant({ type: "tool_use", id: toolUseId, name: tool.name, input: tool.input }));
    push({
      type: "user",
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: toolUseId,
            content: tool.output,
            ...(tool.isError ? { is_error: true } : {}),
          },
        ],
      },
      toolUseResult: { stdout: tool.output, stderr: "", interrupted: false, isImage: false },
      sourceToolAssistantUUID: assistantUuid,
    });
  });
  return lines;
}

/** The two lines of a compaction (docs/formats.md §1.7): the boundary, and the summary it is followed by. */
function compactionLines(state: WriterState, summary: string): string[] {
  const { sessionId, cwd } = state.session;
  const boundary = `${sessionId.slice(0, 8)}-c000-4000-8000-${String(state.lineCount++).padStart(12, "0")}`;
  const line = `${sessionId.slice(0, 8)}-c000-4000-8000-${String(state.lineCount++).padStart(12, "0")}`;
  const time = () => new Date((state.clockMs += 1000)).toISOString();
  const common = { sessionId, cwd, isSidechain: false, userType: "external", version: "2.1.88" };
  const lines = [
    JSON.stringify({
      ...common,
      type: "system",
      subtype: "compact_boundary",
      parentUuid: null,
      logicalParentUuid: state.lastUuid,
      uuid: boundary,
      timestamp: time(),
      content: "Conversation compacted",
      compactMetadata: { trigger: "auto", preTokens: 160_000 },
    }),
    JSON.stringify({
      ...common,
      type: "user",
      parentUuid: boundary,
      uuid: line,
      timestamp: time(),
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
      message: {
        role: "user",
        content: `This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n${summary}`,
      },
    }),
  ];
  state.lastUuid = line;
  return lines;
}

/** Write a whole session file (creating folders); returns the state to append more turns later. */
export function writeClaudeSession(path: string, session: TestSession): WriterState {
  mkdirSync(dirname(path), { recursive: true });
  const state: WriterState = {
    session,
    lastUuid: null,
    lineCount: 0,
    clockMs: session.startMs ?? Date.UTC(2026, 2, 1, 9, 0, 0),
  };
  const lines = session.turns.flatMap((turn) => turnLines(state, turn));
  if (session.compaction !== undefined) lines.push(...compactionLines(state, session.compaction));
  if (session.title)
    lines.push(JSON.stringify({ type: "ai-title", aiTitle: session.title, sessionId: session.sessionId }));
  writeFileSync(path, `${lines.join("\n")}\n`);
  return state;
}

/** Append turns to a session file written by {@link writeClaudeSession}. */
export function appendClaudeTurns(path: string, state: WriterState, turns: TestTurn[]): void {
  const lines = turns.flatMap((turn) => turnLines(state, turn));
  appendFileSync(path, `${lines.join("\n")}\n`);
}

/** A deterministic filler paragraph of about `words` words (for large sessions). */
export function fillerText(seed: number, words: number): string {
  const vocabulary = [
    "index",
    "query",
    "vector",
    "build",
    "cache",
    "deploy",
    "config",
    "parser",
    "session",
    "token",
    "render",
    "schema",
    "commit",
    "branch",
    "worker",
    "stream",
  ];
  const out: string[] = [];
  let x = seed * 2654435761;
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(vocabulary[x % vocabulary.length]!);
  }
  return out.join(" ");
}
