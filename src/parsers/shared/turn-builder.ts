/**
 * Building turns from messages read in order: `TurnBuilder` for the parsers whose records are one message each (pi,
 * Factory Droid), and `TurnDraft` for those that fill a turn's fields themselves (Copilot CLI, Qwen Code, Grok CLI, …).
 * Either way: the reply texts joined by a blank line, tool calls in order, files touched, and tokens per model
 * (usage.ts).
 */
import { filesTouched } from "../tool-calls.ts";
import type { ModelUsage, ToolCall, Turn } from "../types.ts";
import { addModelUsage, type TokenCounts } from "../usage.ts";

/**
 * The turns of one branch kind (main or rewound) as a parser reads them in order: `prompt` opens a turn, `reply`,
 * `call` and `addUsage` fill it, `result` completes a call of the open turn by its id, `close` finishes it.
 * Numbers are 1, 2, … (`sign` 1) or -1, -2, … (`sign` -1, rewound turns, types.ts `Turn`).
 */
export class TurnBuilder {
  readonly turns: Turn[] = [];
  private texts: string[] = [];
  private calls: ToolCall[] = [];
  private usage: ModelUsage[] = [];
  private readonly pending = new Map<string, ToolCall>();

  constructor(
    private readonly sessionId: string,
    private readonly sign: 1 | -1,
    private readonly withOutputs: boolean,
    private readonly isSubagent = false,
  ) {}

  /** Start a turn at a prompt. */
  prompt(text: string, time: number): void {
    this.close();
    this.turns.push({
      sessionId: this.sessionId,
      number: this.sign * (this.turns.length + 1),
      timestamp: time,
      prompt: text,
      response: "",
      toolCalls: [],
      files: [],
      isSubagent: this.isSubagent,
    });
  }

  /** True once a turn was opened. */
  get started(): boolean {
    return this.turns.length > 0;
  }

  /** Add a reply text of the open turn. */
  reply(text: string): void {
    this.texts.push(text);
  }

  /** Add a tool call to the open turn; `id` (a string) lets `result` find it. */
  call(call: ToolCall, id: unknown): void {
    this.calls.push(call);
    if (typeof id === "string") this.pending.set(id, call);
  }

  /** Attach a result to its call; false when no call of this turn has the id. */
  result(id: unknown, isError: boolean, output: string): boolean {
    const call = typeof id === "string" ? this.pending.get(id) : undefined;
    if (!call) return false;
    call.isError = isError;
    if (this.withOutputs) call.output = output;
    return true;
  }

  /** Add one model call's tokens (and cost in USD, null when none) to the open turn. */
  addUsage(model: string, counts: TokenCounts, costUsd: number | null = null): void {
    addModelUsage(this.usage, model, counts, costUsd);
  }

  /** Finish the open turn. */
  close(): void {
    const turn = this.turns.at(-1);
    if (turn) {
      turn.response = this.texts.join("\n\n");
      turn.toolCalls = this.calls;
      turn.files = filesTouched(this.calls);
      if (this.usage.length > 0) turn.usage = this.usage;
    }
    this.texts = [];
    this.calls = [];
    this.usage = [];
    this.pending.clear();
  }
}

/** One turn a parser is filling itself: `turn.toolCalls` and `turn.usage` grow in place, `replies` collects reply texts. */
export interface TurnDraft {
  turn: Turn;
  replies: string[];
}

/** A draft with an empty response, no calls, no files and an empty `usage` list (`finishDraft` drops it if still empty). */
export function newTurnDraft(
  sessionId: string,
  number: number,
  timestamp: number,
  prompt: string,
  isSubagent = false,
): TurnDraft {
  return {
    turn: { sessionId, number, timestamp, prompt, response: "", toolCalls: [], files: [], isSubagent, usage: [] },
    replies: [],
  };
}

/** The finished turn of a draft: replies joined by a blank line, files from its tool calls, no `usage` when empty. */
export function finishDraft({ turn, replies }: TurnDraft): Turn {
  turn.response = replies.join("\n\n");
  turn.files = filesTouched(turn.toolCalls);
  if (turn.usage?.length === 0) delete turn.usage;
  return turn;
}
