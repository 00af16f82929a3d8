/**
 * Synthesizes one Claude Code session (docs/formats.md §1) from the aggregate profile: turns per
 * session, tool calls per turn, blocks per response, prompt/response/tool-result lengths and the
 * tool mix are drawn from `profile.json`; text comes from the vocabulary pool. Lines follow the
 * 2.1.x envelope: one content block per assistant line sharing `message.id`, every `tool_use`
 * answered by a `tool_result` user line with `toolUseResult`, a `file-history-snapshot` and a
 * `turn_duration` system line per turn, optional `ai-title` / `last-prompt` records.
 */
import type { CorpusProfile } from "./profile.ts";
import type { Random } from "./random.ts";
import { filePath, sliceText } from "./vocabulary.ts";

/** Where and when a synthetic session runs. */
export interface SessionPlan {
  sessionId: string;
  cwd: string;
  gitBranch: string;
  version: string;
  startMs: number;
}

/** One synthesized file: its JSONL text and, for main sessions, the sub-agent ids it launched. */
export interface SynthFile {
  text: string;
  agentIds: string[];
  /** Time of the file's last record, epoch ms (its mtime on disk). */
  endMs: number;
}

interface Ctx {
  rng: Random;
  profile: CorpusProfile;
  pool: string;
  plan: SessionPlan;
  out: string[];
  parent: string | null;
  timeMs: number;
  agentId: string | null;
  agentIds: string[];
}

/** Draw a positive integer from a quantile list, at least `min`. */
function drawInt(ctx: Ctx, values: number[], min: number): number {
  return Math.max(min, Math.round(ctx.rng.fromQuantiles(values)));
}

/** Append one conversational line with the shared envelope; returns its uuid. */
function pushLine(ctx: Ctx, type: string, fields: Record<string, unknown>): string {
  const uuid = ctx.rng.uuid();
  ctx.timeMs += ctx.rng.int(300, 6000);
  const line = {
    parentUuid: ctx.parent,
    isSidechain: ctx.agentId !== null,
    ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
    type,
    ...fields,
    uuid,
    timestamp: new Date(ctx.timeMs).toISOString(),
    userType: "external",
    entrypoint: "cli",
    cwd: ctx.plan.cwd,
    sessionId: ctx.plan.sessionId,
    version: ctx.plan.version,
    gitBranch: ctx.plan.gitBranch,
  };
  ctx.out.push(JSON.stringify(line));
  ctx.parent = uuid;
  return uuid;
}

/** Input object for a tool call of the given name. */
function toolInput(ctx: Ctx, name: string): Record<string, unknown> {
  const path = `${ctx.plan.cwd}/${filePath(ctx.rng)}`;
  switch (name) {
    case "Bash":
      return {
        command: sliceText(ctx.rng, ctx.pool, ctx.rng.int(12, 80)),
        description: sliceText(ctx.rng, ctx.pool, 30),
      };
    case "Read":
      return { file_path: path };
    case "Write":
      return { file_path: path, content: sliceText(ctx.rng, ctx.pool, ctx.rng.int(200, 3000)) };
    case "Edit":
    case "MultiEdit":
      return {
        file_path: path,
        old_string: sliceText(ctx.rng, ctx.pool, ctx.rng.int(20, 300)),
        new_string: sliceText(ctx.rng, ctx.pool, ctx.rng.int(20, 400)),
      };
    case "Grep":
      return { pattern: sliceText(ctx.rng, ctx.pool, 12).trim(), path: ctx.plan.cwd };
    case "Glob":
      return { pattern: `**/*.${ctx.rng.pick(["ts", "py", "rs", "go", "md"])}` };
    case "TodoWrite":
      return {
        todos: [
          {
            content: sliceText(ctx.rng, ctx.pool, 40),
            status: "in_progress",
            activeForm: sliceText(ctx.rng, ctx.pool, 30),
          },
        ],
      };
    case "Agent":
    case "Task":
      return {
        description: sliceText(ctx.rng, ctx.pool, 30),
        subagent_type: "Explore",
        prompt: sliceText(ctx.rng, ctx.pool, ctx.rng.int(100, 600)),
      };
    default:
      return { query: sliceText(ctx.rng, ctx.pool, 40) };
  }
}

/** One API response: `blocks` assistant lines sharing message.id; returns the tool calls made. */
function pushResponse(ctx: Ctx, blocks: { kind: "text" | "tool"; chars?: number; name?: string }[]) {
  const messageId = `msg_01${ctx.rng.base62(22)}`;
  const requestId = `req_011C${ctx.rng.base62(20)}`;
  const usage = {
    input_tokens: ctx.rng.int(3, 12),
    cache_creation_input_tokens: ctx.rng.int(100, 5000),
    cache_read_input_tokens: ctx.rng.int(10000, 90000),
    output_tokens: ctx.rng.int(20, 2000),
    service_tier: "standard",
  };
  const calls: { uuid: string; id: string; name: string; input: Record<string, unknown> }[] = [];
  blocks.forEach((block, i) => {
    const content =
      block.kind === "text"
        ? { type: "text", text: sliceText(ctx.rng, ctx.pool, block.chars ?? 200) }
        : {
            type: "tool_use",
            id: `toolu_01${ctx.rng.base62(22)}`,
            name: block.name!,
            input: toolInput(ctx, block.name!),
          };
    const last = i === blocks.length - 1;
    const message = {
      model: "claude-sonnet-4-6",
      id: messageId,
      type: "message",
      role: "assistant",
      content: [content],
      stop_reason: last ? (block.kind === "tool" ? "tool_use" : "end_turn") : null,
      stop_sequence: null,
      usage,
    };
    const uuid = pushLine(ctx, "assistant", { message, requestId });
    if (content.type === "tool_use")
      calls.push({
        uuid,
        id: content.id as string,
        name: block.name!,
        input: content.input as Record<string, unknown>,
      });
  });
  return calls;
}

/** The tool_result user line for one call. */
function pushToolResult(
  ctx: Ctx,
  call: { uuid: string; id: string; name: string; input: Record<string, unknown> },
): void {
  const isError = ctx.rng.chance(ctx.profile.toolErrorShare);
  const text = sliceText(ctx.rng, ctx.pool, ctx.rng.fromQuantiles(ctx.profile.toolResultChars));
  let toolUseResult: unknown = isError
    ? `Error: ${text.slice(0, 200)}`
    : { stdout: text, stderr: "", interrupted: false, isImage: false };
  if (!isError && call.name === "Read")
    toolUseResult = {
      type: "text",
      file: {
        filePath: call.input.file_path,
        content: text,
        numLines: text.split("\n").length,
        startLine: 1,
        totalLines: text.split("\n").length,
      },
    };
  if (!isError && (call.name === "Agent" || call.name === "Task")) {
    const agentId = `a${ctx.rng.hex(16)}`;
    ctx.agentIds.push(agentId);
    toolUseResult = {
      status: "completed",
      agentId,
      agentType: "Explore",
      prompt: call.input.prompt,
      content: [{ type: "text", text }],
    };
  }
  const message = {
    role: "user",
    content: [{ tool_use_id: call.id, type: "tool_result", content: text, is_error: isError }],
  };
  pushLine(ctx, "user", { message, toolUseResult, sourceToolAssistantUUID: call.uuid });
}

/** One turn: prompt, responses with tool calls and results, final text, turn_duration. */
function pushTurn(ctx: Ctx, isFirst: boolean): string {
  const { rng, profile } = ctx;
  const prompt = sliceText(rng, ctx.pool, Math.max(1, rng.fromQuantiles(profile.promptChars)));
  const turnStart = ctx.timeMs;
  const promptUuid = pushLine(ctx, "user", {
    message: { role: "user", content: prompt },
    ...(isFirst ? {} : { promptId: rng.uuid() }),
  });
  if (!ctx.agentId) {
    ctx.out.push(
      JSON.stringify({
        type: "file-history-snapshot",
        messageId: promptUuid,
        snapshot: { messageId: promptUuid, trackedFileBackups: {}, timestamp: new Date(ctx.timeMs).toISOString() },
        isSnapshotUpdate: false,
      }),
    );
  }
  let tools = drawInt(ctx, profile.toolCallsPerTurn, 0);
  let responseChars = Math.max(0, rng.fromQuantiles(profile.responseChars));
  while (tools > 0) {
    const inThis = Math.min(tools, Math.max(1, drawInt(ctx, profile.blocksPerResponse, 1) - 1));
    const text = rng.chance(0.6) ? Math.min(responseChars, rng.int(40, 400)) : 0;
    responseChars -= text;
    const blocks = [
      ...(text > 0 ? [{ kind: "text" as const, chars: text }] : []),
      ...Array.from({ length: inThis }, () => ({
        kind: "tool" as const,
        name: rng.weighted(profile.toolMix).replace("other", "WebFetch"),
      })),
    ];
    for (const call of pushResponse(ctx, blocks)) pushToolResult(ctx, call);
    tools -= inThis;
  }
  pushResponse(ctx, [{ kind: "text", chars: Math.max(1, responseChars) }]);
  if (!ctx.agentId)
    pushLine(ctx, "system", {
      subtype: "turn_duration",
      durationMs: ctx.timeMs - turnStart,
      messageCount: 0,
      isMeta: false,
    });
  return prompt;
}

/**
 * Synthesize a main session file (`agentId` null) or a sub-agent file (one turn, sidechain lines).
 * @returns JSONL text (ends with "\n") and the sub-agent ids launched by Agent/Task calls
 */
export function synthesizeSession(
  rng: Random,
  profile: CorpusProfile,
  pool: string,
  plan: SessionPlan,
  agentId: string | null = null,
): SynthFile {
  const ctx: Ctx = { rng, profile, pool, plan, out: [], parent: null, timeMs: plan.startMs, agentId, agentIds: [] };
  if (!agentId)
    ctx.out.push(JSON.stringify({ type: "permission-mode", permissionMode: "default", sessionId: plan.sessionId }));
  const turns = agentId ? 1 : drawInt(ctx, profile.turnsPerSession, 1);
  let lastPrompt = "";
  for (let t = 0; t < turns; t++) {
    lastPrompt = pushTurn(ctx, t === 0);
    if (t === 0 && !agentId && rng.chance(0.3))
      ctx.out.push(
        JSON.stringify({ type: "ai-title", sessionId: plan.sessionId, aiTitle: sliceText(rng, pool, 40).trim() }),
      );
    ctx.timeMs += rng.int(20_000, 900_000);
  }
  if (!agentId && rng.chance(0.4))
    ctx.out.push(
      JSON.stringify({ type: "last-prompt", lastPrompt: lastPrompt.slice(0, 200), sessionId: plan.sessionId }),
    );
  return { text: `${ctx.out.join("\n")}\n`, agentIds: ctx.agentIds, endMs: ctx.timeMs };
}
