/**
 * Prompt times from `.aider.input.history`, the prompt_toolkit `FileHistory` aider keeps next to the chat
 * history (aider/args.py `--input-history-file`, default in the same git root): every line typed at the
 * prompt, as "\n# <local date-time with microseconds>\n+<line>\n+<line>\n" (docs/formats.md §6). It also
 * holds answers to confirmations ("y", "N") and commands, so a turn's time is the first entry, inside
 * the session's time window, whose text equals the prompt, taken in order; a turn without such an entry
 * keeps the time of the turn before it (or the session start). Both files' times are the same machine's
 * local time, so windows compare without any zone.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The input history file name aider writes by default (aider/args.py). */
export const inputHistoryFileName = ".aider.input.history";

/** One input history entry: when it was typed (epoch ms, read as local time) and its text. */
export interface InputEntry {
  at: number;
  text: string;
}

/** Where prompt matching stands: the next entry to look at, and the last time given to a turn. */
export interface PromptClock {
  cursor: number;
  lastAt: number;
  /** The first non-zero time a prompt matched (epoch ms); absent before any. */
  firstAt?: number;
}

const entryHeader = /^# (\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?\r?$/;

/**
 * Entries of an input history text, in file order; lines that fit no entry are ignored.
 * Example: "\n# 2025-12-03 14:46:02.414589\n+fix it\n+please\n" → [{at: <local 14:46:02.414>, text: "fix it\nplease"}].
 */
export function parseInputHistory(text: string): InputEntry[] {
  const entries: InputEntry[] = [];
  let current: { at: number; lines: string[] } | null = null;
  for (const line of text.split("\n")) {
    const header = entryHeader.exec(line);
    if (header) {
      if (current) entries.push({ at: current.at, text: current.lines.join("\n") });
      const [year, month, day, hour, minute, second] = header.slice(1, 7).map(Number) as [
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const ms = Math.floor(Number(`0.${header[7] ?? "0"}`) * 1000);
      current = { at: new Date(year, month - 1, day, hour, minute, second, ms).getTime(), lines: [] };
    } else if (current && line.startsWith("+")) {
      current.lines.push(line.slice(1).replace(/\r$/, ""));
    }
  }
  if (current) entries.push({ at: current.at, text: current.lines.join("\n") });
  return entries;
}

/**
 * The entries of the input history beside `chatHistoryPath` typed in [fromMs, toMs) (toMs null: no end),
 * with the bytes read. [] when the file is absent or unreadable (times then come from the header only).
 */
export function readInputWindow(
  chatHistoryPath: string,
  fromMs: number,
  toMs: number | null,
): { entries: InputEntry[]; bytesRead: number } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dirname(chatHistoryPath), inputHistoryFileName));
  } catch {
    return { entries: [], bytesRead: 0 };
  }
  const entries = parseInputHistory(bytes.toString("utf8")).filter(
    (entry) => entry.at >= fromMs && (toMs === null || entry.at < toMs),
  );
  return { entries, bytesRead: bytes.length };
}

const normalized = (text: string): string =>
  text
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();

/**
 * The time of the next prompt: the first entry from `clock.cursor` on whose text equals `prompt` (lines
 * compared without trailing blanks); advances `clock`. Without a match, and for an empty prompt (a turn whose
 * prompt was cut off), `clock.lastAt` (unchanged cursor).
 * Example: entries [y@1, "fix it"@2], prompt "fix it" → 2, cursor 2.
 */
export function stampPrompt(prompt: string, entries: readonly InputEntry[], clock: PromptClock): number {
  const wanted = normalized(prompt);
  if (wanted.length === 0) return clock.lastAt;
  for (let index = clock.cursor; index < entries.length; index++) {
    const entry = entries[index] as InputEntry;
    if (normalized(entry.text) !== wanted) continue;
    clock.cursor = index + 1;
    clock.lastAt = Math.max(clock.lastAt, entry.at);
    if (!clock.firstAt && entry.at > 0) clock.firstAt = entry.at;
    return clock.lastAt;
  }
  return clock.lastAt;
}
