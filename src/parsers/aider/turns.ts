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
 *   * `<blank>`, aider's log of an empty Enter (io.py `user_input`): nothing was sent;
 *   * the architect's answer handed to the editor model: in architect mode aider logs the architect's reply
 *     again as a prompt (aider/coders/architect_coder.py `reply_completed` → `editor_coder.run(with_message=…)`),
 *     and the editor's reply and edits follow it. They belong to the user's turn: the echo is dropped (its text
 *     is the reply above it) and the turn goes on (96 such echoes in two real histories of 1.8 MB and 0.97 MB).
 * Slash commands (`/add x`, `/drop`, `/model m`, `/undo`, …) are prompts like any other: they are what
 * the user did, and their status lines (what was added, which model) belong to them.
 * What comes before a session's first prompt: after a header, aider's start-up status lines (version, model,
 * repo map), which belong to no turn; a reply there (nothing aider writes, but nothing is dropped) opens a turn
 * with an empty prompt. In the text before a file's first header (a history that starts mid-session), the
 * records before the first prompt are the end of a turn whose prompt was cut off: they form turn 1, with an
 * empty prompt, its statuses' tool calls and its reply.
 */
import { hashOf } from "../shared/sha1.ts";
import { filesTouched } from "../tool-calls.ts";
import type { Turn } from "../types.ts";
import type { AiderRecord } from "./records.ts";
import { extractEditBlocks, stripReasoning } from "./reply.ts";
import { appliedEditPaths, promptToolCalls, samePath, statusToolCalls } from "./tools.ts";

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

const linesOf = (text: string): string =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join("\n");

/**
 * True when `next` is the architect's answer that aider hands to the editor model: the reply of `draft` so far
 * (reasoning removed; lines compared trimmed, blank lines ignored) ends with it, at a line start. When the
 * architect answered twice in one turn (it asked for files, they were added, it answered again), the last answer
 * is handed over.
 * Examples: reply "Plan:\n1. add x" and next "Plan:\n1. add x" → true; reply "Ask me.\n\nPlan: add x", next "Plan: add x"
 *   → true; reply "" → false; reply "Plan: add x", next "add x" → false.
 */
export function isEditorHandoff(draft: TurnDraft, next: string): boolean {
  const handed = linesOf(next);
  if (handed.length === 0) return false;
  const prose = draft.records.flatMap((record) => (record.kind === "prose" ? [record.text] : []));
  const reply = linesOf(stripReasoning(prose.join("\n")));
  return reply === handed || reply.endsWith(`\n${handed}`);
}

/**
 * How records before the first prompt are read: `"startup"` after a session header (status lines dropped as
 * aider's start-up lines, a reply opens a turn with an empty prompt), `"cut"` in the text before a file's first
 * header (any status or reply opens that turn).
 */
export type Leading = "startup" | "cut";

/**
 * Turn drafts of `records`, numbered from `firstNumber`; records before the first prompt as `leading` says.
 * Examples: startup [status "Aider v0.86", prompt "hi", prose "Hello"] → [{prompt "hi"}];
 *   cut [prose "…the end of a reply", status "Commit 1a2b3c4 fix", prompt "next"] → [{prompt ""}, {prompt "next"}].
 */
export function groupTurns(
  records: readonly AiderRecord[],
  firstNumber: number,
  leading: Leading = "startup",
): TurnDraft[] {
  const drafts: TurnDraft[] = [];
  let current: TurnDraft | null = null;
  for (const entry of records) {
    if (entry.kind === "prompt" && entry.text.trim() === "<blank>") continue;
    const record: AiderRecord =
      entry.kind === "prompt" && confirmPrompt.test(entry.text) && !entry.text.includes("\n")
        ? { kind: "status", line: entry.line, text: entry.text }
        : entry;
    if (record.kind === "prompt") {
      // Status lines may come between a command and its echo (a new coder announcing itself), a reply may not.
      const hasReply = current?.records.some((next) => next.kind === "prose") ?? true;
      if (current && !hasReply && isCommandEcho(current.prompt, record.text)) continue;
      if (current && hasReply && isEditorHandoff(current, record.text)) continue;
      current = { number: firstNumber + drafts.length, line: record.line, prompt: record.text.trim(), records: [] };
      drafts.push(current);
      continue;
    }
    if (!current && record.kind !== "blank" && (record.kind === "prose" || leading === "cut")) {
      current = { number: firstNumber, line: record.line, prompt: "", records: [] };
      drafts.push(current);
    }
    current?.records.push(record);
  }
  return drafts;
}

/**
 * The `Turn` of a draft: prompt as typed; response = reply lines (runs separated by status lines joined
 * with a blank line), reasoning and the SEARCH/REPLACE blocks of applied edits removed (reply.ts); tool calls
 * from the prompt, then from the status lines (tools.ts); files = paths of file tools, in first-touch order, as
 * aider printed them (relative to the project folder). `timestamp` is given by the caller.
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
  const applied = appliedEditPaths(statuses);
  const { prose, edits } = extractEditBlocks(stripReasoning(reply), (path) =>
    applied.some((done) => samePath(done, path)),
  );
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
