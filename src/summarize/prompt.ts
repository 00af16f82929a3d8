/**
 * Builds what a backend is sent to summarize one session (issue 41), within a budget in characters. The most telling
 * parts come first in the allocation, each with a share of what is left: the session's abstract (what the agent wrote
 * about it: compactions, recaps, titles), every prompt of the user (the first and last kept longer), the last reply,
 * the files touched (most often first) and the tools used, then the other replies as room allows. The AgentiBridge
 * seed sends a transcript's first 12,000 characters, which for a long session is the first few turns only: how it
 * ended never reaches the model. Pure and deterministic: the same source and budget give the same prompt (the command
 * caches summaries by its hash). The text is the index's redacted copy: nothing here redacts.
 */
import { UsageError } from "../errors.ts";
import type { AbstractPart } from "../parsers/types.ts";
import type { SummaryPrompt } from "./types.ts";

/** One session as the summarizer sees it (the index's redacted text). */
export interface SummarySource {
  title: string | null;
  projectName: string;
  /** epoch ms UTC; 0 when unknown */
  startedAt: number;
  /** epoch ms UTC; 0 when unknown */
  endedAt: number;
  /** in abstract order (parsers/shared/abstract.ts); parts of source `summary` (a previous summary) are not sent */
  abstract: AbstractPart[];
  /** in order; `number` is the 1-based turn number shown to the user */
  turns: Array<{ number: number; prompt: string; response: string; files: string[]; toolNames: string[] }>;
}

/**
 * Default budget of system + user, in characters: 16,000 ≈ 4,000 tokens. It fits an 8,192-token local model with
 * room for the answer, keeps a 1–3B model on 2 CPU cores at well under a minute of prompt processing, and costs a
 * hosted small model a fraction of a cent per session; past it, what is added is middle replies, which rarely change
 * a 3-sentence summary. The local backend cuts further to its model's context (local-chat.ts).
 */
export const defaultSummaryBudgetCharacters = 16_000;

/** The smallest budget accepted, in characters: the system prompt and a cut header, prompt and reply. */
export const minimumSummaryBudgetCharacters = 1_000;

/** The instructions sent as the system prompt. */
export const summarySystemPrompt =
  "You summarize a coding agent's session for its user, who will read the summary in a list of past sessions. " +
  "Write 2 or 3 plain sentences: what the user asked for, what the agent did, how it ended (done, abandoned, " +
  "still failing) and the files that mattered. Name files and commands exactly. No preamble, no heading, no list, " +
  "no markdown: only the sentences.";

/** Per-item caps, in characters. */
const caps = {
  title: 200,
  abstractPart: 2_000,
  firstOrLastPrompt: 1_500,
  otherPrompt: 400,
  lastReply: 3_000,
  otherReply: 600,
  /** below this, an item is not worth sending cut: fewer items are sent whole-ish instead */
  shortest: 80,
};

/**
 * The text on one line, cut to `max` characters keeping its start and end (`head … tail`, two thirds head).
 * Example: `cutText("abcdefghijklmnop", 13)` → `"abcdefg … nop"` (head 7, " … ", tail 3); under 12, a plain cut.
 */
export function cutText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  if (max < 12) return flat.slice(0, Math.max(0, max));
  const head = Math.ceil(((max - 3) * 2) / 3);
  return `${flat.slice(0, head)} … ${flat.slice(flat.length - (max - 3 - head))}`;
}

/** True when the text has anything but whitespace. */
const hasText = (text: string): boolean => /\S/.test(text);

/** `count` indices spread evenly over 0…length−1, ascending (the middle of each equal slice). */
function spreadIndices(length: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => Math.floor(((2 * i + 1) * length) / (2 * count)));
}

/**
 * Numbered lines `[n] text` within `room` characters (newlines counted): every item when each can keep at least
 * `caps.shortest` characters (water-filling: short items keep all of theirs, the rest share what is left, each at most
 * `cap`), else as many items as fit at that length, spread evenly, and a last line saying how many were left out.
 */
function fitItems(items: Array<{ number: number; text: string }>, room: number, cap: number): string[] {
  const live = items.filter((item) => hasText(item.text));
  if (live.length === 0) return [];
  const overhead = (item: { number: number }) => `[${item.number}] \n`.length;
  const omittedLine = (count: number) => `(${count} more not shown)\n`;
  let chosen = live;
  const perItem = (room - live.reduce((sum, item) => sum + overhead(item), 0)) / live.length;
  if (perItem < caps.shortest) {
    const reserve = omittedLine(live.length).length;
    const count = Math.max(0, Math.floor((room - reserve) / (caps.shortest + overhead(live.at(-1)!))));
    chosen = spreadIndices(live.length, Math.min(count, live.length)).map((i) => live[i]!);
    if (chosen.length === 0) return room >= reserve ? [omittedLine(live.length).trimEnd()] : [];
  }
  // Flattened once, and only the items sent: sorting by length would otherwise flatten each text O(log n) times.
  chosen = chosen.map((item) => ({ number: item.number, text: item.text.replace(/\s+/g, " ").trim() }));
  let left = room - chosen.reduce((sum, item) => sum + overhead(item), 0);
  if (chosen.length < live.length) left -= omittedLine(live.length - chosen.length).length;
  const shares = new Map<number, number>();
  const byLength = [...chosen.keys()].sort((a, b) => chosen[a]!.text.length - chosen[b]!.text.length || a - b);
  byLength.forEach((index, rank) => {
    const share = Math.max(0, Math.min(cap, chosen[index]!.text.length, Math.floor(left / (byLength.length - rank))));
    shares.set(index, share);
    left -= share;
  });
  const lines = chosen.map((item, index) => `[${item.number}] ${cutText(item.text, shares.get(index)!)}`);
  if (chosen.length < live.length) lines.push(`(${live.length - chosen.length} more not shown)`);
  return lines;
}

/** `YYYY-MM-DD HH:MM` UTC, or "unknown" for 0. */
function formatTime(ms: number): string {
  return ms > 0 ? new Date(ms).toISOString().slice(0, 16).replace("T", " ") : "unknown";
}

/** Names by how often they occur, most first (ties by name), as `name (count)` joined within `room` characters. */
function countedList(names: string[], room: number): string {
  const counts = new Map<string, number>();
  for (const name of names) if (name.trim()) counts.set(name, (counts.get(name) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let text = "";
  for (const [name, count] of sorted) {
    const piece = `${text ? ", " : ""}${cutText(name, 200)} (${count})`;
    if (text.length + piece.length > room) break;
    text += piece;
  }
  return text;
}

/** A section: a heading line and its lines; empty when there are no lines. */
const section = (heading: string, lines: string[]): string =>
  lines.length === 0 ? "" : `${heading}\n${lines.join("\n")}\n\n`;

/**
 * Returns the prompt for one session: `system` is {@link summarySystemPrompt}; `user` holds, in this order, the header
 * (title, project, UTC times, turn count), the abstract, the prompts, the files and tools, some other replies and the
 * last reply. `characters` = system + user ≤ `budgetCharacters`; `estimatedTokens` = ⌈characters / 4⌉.
 * Shares, each of what is left after the parts before it: abstract ≤ 25 % (≤ 2,000 a part), prompts ≤ 50 % (first
 * and last ≤ 1,500, others ≤ 400), last reply ≤ 35 % (≤ 3,000), files and tools ≤ 25 % (≤ 2,000), other replies
 * the rest (≤ 600 each). Parts shorter than their share keep all of theirs and leave the rest to later parts.
 * @throws UsageError when budgetCharacters is not a whole number ≥ 1,000
 */
export function buildSummaryPrompt(
  source: SummarySource,
  budgetCharacters: number = defaultSummaryBudgetCharacters,
): SummaryPrompt {
  if (!Number.isInteger(budgetCharacters) || budgetCharacters < minimumSummaryBudgetCharacters)
    throw new UsageError(
      `a summary budget must be a whole number of at least ${minimumSummaryBudgetCharacters} characters, got ${budgetCharacters}`,
    );
  const system = summarySystemPrompt;
  const header =
    `Session: ${cutText(source.title ?? "(untitled)", caps.title)}\n` +
    `Project: ${cutText(source.projectName || "unknown", caps.title)}; ${formatTime(source.startedAt)} to ` +
    `${formatTime(source.endedAt)} UTC; ${source.turns.length} turns\n\n`;
  // Headings are short; reserve them up front so the shares below are content only.
  let left = budgetCharacters - system.length - header.length - 400;

  const abstractItems = source.abstract
    .filter((part) => part.source !== "summary")
    .map((part, i) => ({ number: i + 1, text: `(${part.source}) ${part.text}` }));
  const abstractLines = fitItems(abstractItems, Math.floor(left * 0.25), caps.abstractPart);
  left -= abstractLines.join("\n").length + 1;

  const promptLines = fitPrompts(source, Math.floor(left * 0.5));
  left -= promptLines.join("\n").length + 1;

  const lastTurn = source.turns.findLast((turn) => hasText(turn.response));
  const lastReply = lastTurn ? cutText(lastTurn.response, Math.min(caps.lastReply, Math.floor(left * 0.35))) : "";
  left -= lastReply.length + 1;

  const listRoom = Math.min(2_000, Math.floor(left * 0.25));
  const files = countedList(
    source.turns.flatMap((turn) => turn.files),
    Math.floor(listRoom * 0.75),
  );
  const tools = countedList(
    source.turns.flatMap((turn) => turn.toolNames),
    Math.floor(listRoom * 0.25),
  );
  left -= files.length + tools.length + 2;

  const replyItems = source.turns
    .filter((turn) => turn !== lastTurn)
    .map((turn) => ({ number: turn.number, text: turn.response }));
  const replyLines = fitItems(replyItems, Math.max(0, left), caps.otherReply);

  const user = (
    header +
    section("What the agent wrote about this session:", abstractLines) +
    section("The user's prompts, in order:", promptLines) +
    section("Files touched (times):", files ? [files] : []) +
    section("Tools used (times):", tools ? [tools] : []) +
    section("Some of the agent's replies:", replyLines) +
    section(`The agent's last reply (turn ${lastTurn?.number ?? 0}):`, lastReply ? [lastReply] : [])
  )
    .trimEnd()
    .slice(0, budgetCharacters - system.length);
  const characters = system.length + user.length;
  return { system, user, characters, estimatedTokens: Math.ceil(characters / 4) };
}

/** The prompts within `room`: the first and last up to 1,500 characters each (a quarter of the room at most), the others sharing the rest. */
function fitPrompts(source: SummarySource, room: number): string[] {
  const turns = source.turns.filter((turn) => hasText(turn.prompt));
  if (turns.length === 0) return [];
  const endCap = Math.min(caps.firstOrLastPrompt, Math.floor(room / 4));
  const line = (turn: { number: number; prompt: string }, max: number) =>
    `[${turn.number}] ${cutText(turn.prompt, max)}`;
  const first = line(turns[0]!, endCap);
  if (turns.length === 1) return [first];
  const last = line(turns.at(-1)!, endCap);
  const middle = fitItems(
    turns.slice(1, -1).map((turn) => ({ number: turn.number, text: turn.prompt })),
    room - first.length - last.length - 2,
    caps.otherPrompt,
  );
  return [first, ...middle, last];
}
