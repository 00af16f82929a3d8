/**
 * Grouping the records of a session block (records.ts) into turns: a prompt plus every status line
 * and reply line until the next prompt (DESIGN.md "Turn"). What is not a new turn:
 *   * the echo of a chat command: `/code X`, `/ask X`, `/architect X`, `/context X` run X through a new
 *     coder, which logs X again as a prompt (aider/commands.py `_generic_chat_command` → base_coder.py
 *     `run(with_message)`); `/ok X` logs "Ok, please go ahead and make those changes. X"; `/help Q` logs
 *     the docs it retrieved, starting "# Question: Q" (aider/help.py `ask`). The typed command stays the
 *     prompt, the echo is dropped;
 *   * a confirmation answered by a remembered "All"/"Skip all" choice, which aider logs as a prompt
 *     (io.py `confirm_ask`: `user_input(question + answer)`): kept as a status line;
 *   * `<blank>`, aider's log of an empty Enter (io.py `user_input`): nothing was sent.
 * Slash commands (`/add x`, `/drop`, `/model m`, `/undo`, …) are prompts like any other: they are what
 * the user did, and their status lines (what was added, which model) belong to them.
 */
import { hashOf } from "../shared/sha1.ts";
import { filesTouched } from "../tool-calls.ts";
import type { Turn } from "../types.ts";
import type { AiderRecord } from "./records.ts";
import { extractEditBlocks, stripReasoning } from "./reply.ts";
import { promptToolCalls, statusToolCalls } from "./tools.ts";

/** A turn being assembled: its prompt and the records after it. */
export interface TurnDraft {
  number: number;
  /** 1-based file line of the prompt's first line (where a resumed parse re-reads from). */
  line: number;
  prompt: string;
  /** Records after the prompt (an echo dropped), in order. */
  records: AiderRecord[];
}

const confirmPrompt = /\(Y\)es\/\(N\)o.*\[[^\]]*\]: ?[a-zA-Z]*$/;

/**
 * True when `next` is the prompt aider logs again for the chat command `prompt`.
 * Examples: ("/code add a test", "add a test") → true; ("/ask why?", "why?") → true;
 *   ("/help how do I undo?", "# Question: how do I undo?\n\n# Relevant docs: …") → true;
 *   ("/ok", "Ok, please go ahead and make those changes.") → true; ("/drop", "hello") → false.
 */
export function isCommandEcho(prompt: string, next: string): boolean {
  const command = /^\/([a-z-]+)(?:\s+([\s\S]*))?$/.exec(prompt);
  if (!command) return false;
  const name = command[1] as string;
  const args = (command[2] ?? "").trim();
  if ("help".startsWith(name) && args.length > 0) return next.startsWith(`# Question: ${args}`);
  if ("ok" === name) return next.trim() === `Ok, please go ahead and make those changes.${args ? ` ${args}` : ""}`;
  return args.length > 0 && next.trim() === args;
}

/**
 * Turn drafts of `records`, numbered from `firstNumber`. Records before the first prompt (aider's start-up
 * lines: version, model, repo map) belong to no turn and are dropped.
 */
export function groupTurns(records: readonly AiderRecord[], firstNumber: number): TurnDraft[] {
  const drafts: TurnDraft[] = [];
  let current: TurnDraft | null = null;
  for (const record of records) {
    if (record.kind === "prompt") {
      if (record.text.trim() === "<blank>") continue;
      if (confirmPrompt.test(record.text) && !record.text.includes("\n")) {
        current?.records.push({ kind: "status", line: record.line, text: record.text });
        continue;
      }
      // Status lines may come between a command and its echo (a new coder announcing itself), a reply may not.
      const hasReply = current?.records.some((entry) => entry.kind === "prose") ?? true;
      if (current && !hasReply && isCommandEcho(current.prompt, record.text)) continue;
      current = { number: firstNumber + drafts.length, line: record.line, prompt: record.text.trim(), records: [] };
      drafts.push(current);
      continue;
    }
    current?.records.push(record);
  }
  return drafts;
}

/**
 * The `Turn` of a draft: prompt as typed; response = reply lines (runs separated by status lines joined
 * with a blank line), reasoning and SEARCH/REPLACE blocks removed; tool calls from the prompt, then from
 * the status lines (tools.ts); files = paths of file tools, in first-touch order, as aider printed them
 * (relative to the project folder). `timestamp` is given by the caller.
 */
export function finishTurn(draft: TurnDraft, sessionId: string, timestamp: number, withOutputs: boolean): Turn {
  const runs: string[][] = [[]];
  const statuses: Array<{ text: string }> = [];
  for (const record of draft.records) {
    if (record.kind === "prose") runs.at(-1)!.push(record.text);
    else if (record.kind === "blank") runs.at(-1)!.push("");
    else if (record.kind === "status") {
      statuses.push({ text: record.text });
      if (runs.at(-1)!.length > 0) runs.push([]);
    }
  }
  const reply = runs
    .map((run) => run.join("\n").trim())
    .filter((text) => text.length > 0)
    .join("\n\n");
  const { prose, edits } = extractEditBlocks(stripReasoning(reply));
  const toolCalls = [...promptToolCalls(draft.prompt), ...statusToolCalls(statuses, edits, withOutputs)];
  return {
    sessionId,
    number: draft.number,
    timestamp,
    prompt: draft.prompt,
    response: prose,
    toolCalls,
    files: filesTouched(toolCalls),
    isSubagent: false,
  };
}

/** SHA-1 of a finished turn's JSON (resume states keep it to leave an unchanged last turn out). */
export function turnHashOf(turn: Turn): string {
  return hashOf(JSON.stringify(turn));
}
