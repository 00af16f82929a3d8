/**
 * Classifying the lines of one session block into records, after what aider/io.py writes:
 *   * prompts, `user_input`: "\n#### line1  \n#### line2  \n": a blank line, then lines starting with
 *     `####` that ALL end with two spaces (the Markdown line break aider adds);
 *   * status and tool output, `tool_output` / `tool_error` / `confirm_ask`: "> text  \n". A message
 *     with several lines passed to `tool_output` gets "> " on its FIRST line only and the two spaces
 *     on its LAST (e.g. the "SEARCH/REPLACE block failed to match" report), so a quoted line without
 *     the two spaces that directly follows a prompt or status line opens a record that runs to the
 *     next line ending in a non-blank character and two spaces (`append_chat_history` strips the message's
 *     trailing white space before it adds them: a code line of spaces inside the message does not end it).
 *     A prompt after a blank line ends such a record too (aider starts every prompt that way; a status that
 *     lost its two spaces must not swallow the user's next prompt);
 *   * assistant replies, `ai_output`: "\n" + text + "\n\n": everything else.
 * The two trailing spaces keep an assistant's own `#### Heading` or `> quote` lines out of prompts and
 * status records (both occur in ../shared/corpus/aider). Right after a session header, before the first
 * prompt or reply, every `>` line is a status (aider's start-up lines, among them the command line it was
 * run with, which spans several lines for `aider --message "…"` with line breaks; seen in a real 1.8 MB
 * history). Classification reads left to right only, so re-classifying from the first line of any prompt
 * gives the same records as from the block start. Windows line ends ("\r\n", and "\r\r\n" inside such a
 * command line) are read like "\n".
 */

/** One record of a session block; `line` is the 1-based line number in the file of its first line. */
export type AiderRecord =
  | { kind: "prompt"; line: number; text: string }
  | { kind: "status"; line: number; text: string }
  | { kind: "prose"; line: number; text: string }
  | { kind: "blank"; line: number };

/** Classifier state between lines: what the previous line was ("startup": nothing yet after a header). */
type Previous = "startup" | "blank" | "prompt" | "status" | "prose";

const promptLine = /^####(?: .*)? {2}$/;

/** The last line of a multi-line status: anything not blank, then aider's two spaces. */
const statusEnd = /\S {2}$/;

/**
 * Records of `lines` (already split on "\n"; trailing "\r"s are dropped), numbered from `firstLine`.
 * The first line is read as if a blank line preceded it (true at a block's first line after its header,
 * and at every prompt's first line); with `afterHeader`, as the first line after a session header.
 * Examples: ["#### fix it  ", "", "Done.", "", "> Applied edit to a.py  "] → prompt "fix it", blank,
 *   prose "Done.", blank, status "Applied edit to a.py";
 *   ["#### Heading"] → prose (no two trailing spaces); ["> a  ", "> b", "c", "   ", "d  "] → status "a",
 *   status "b\nc\n\nd"; afterHeader ["> aider --message ", "fix it  "] → status "aider --message\nfix it".
 */
export function classifyLines(lines: readonly string[], firstLine: number, afterHeader = false): AiderRecord[] {
  const records: AiderRecord[] = [];
  let previous: Previous = afterHeader ? "startup" : "blank";
  let open: { kind: "prompt" | "status"; line: number; parts: string[] } | null = null;
  let continuing = false;
  let lastBlank = false;
  /** What `previous` becomes when the open multi-line status ends. */
  let afterStatus: Previous = "status";
  const close = () => {
    if (open) records.push({ kind: open.kind, line: open.line, text: open.parts.join("\n") });
    open = null;
    continuing = false;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] as string).replace(/\r+$/, "");
    const number = firstLine + index;
    if (continuing && open && !(lastBlank && promptLine.test(line))) {
      (open as { parts: string[] }).parts.push(line.replace(/ {2}$/, "").trimEnd());
      lastBlank = line.trim().length === 0;
      if (statusEnd.test(line)) {
        close();
        previous = afterStatus;
      }
      continue;
    }
    if (continuing) {
      close();
      previous = "blank";
    }
    if (promptLine.test(line) && (previous === "blank" || previous === "startup" || previous === "prompt")) {
      if (previous !== "prompt") {
        close();
        open = { kind: "prompt", line: number, parts: [] };
      }
      open!.parts.push(line.replace(/^####/, "").replace(/^ /, "").replace(/ {2}$/, ""));
      previous = "prompt";
      continue;
    }
    close();
    if (
      line.startsWith(">") &&
      (line.endsWith("  ") || previous === "prompt" || previous === "status" || previous === "startup") &&
      previous !== "prose"
    ) {
      const text = line.slice(1).replace(/^ /, "").replace(/\s+$/, "");
      afterStatus = previous === "startup" ? "startup" : "status";
      if (line.endsWith("  ")) {
        records.push({ kind: "status", line: number, text });
      } else {
        open = { kind: "status", line: number, parts: [text] };
        continuing = true;
        lastBlank = false;
      }
      previous = afterStatus;
      continue;
    }
    if (line.trim().length === 0) {
      records.push({ kind: "blank", line: number });
      if (previous !== "startup") previous = "blank";
      continue;
    }
    records.push({ kind: "prose", line: number, text: line });
    previous = "prose";
  }
  close();
  return records;
}
