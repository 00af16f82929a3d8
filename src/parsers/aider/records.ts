/**
 * Classifying the lines of one session block into records, after what aider/io.py writes:
 *   * prompts, `user_input`: "\n#### line1  \n#### line2  \n": a blank line, then lines starting with
 *     `####` that ALL end with two spaces (the Markdown line break aider adds);
 *   * status and tool output, `tool_output` / `tool_error` / `confirm_ask`: "> text  \n". A message
 *     with several lines passed to `tool_output` gets "> " on its FIRST line only and the two spaces
 *     on its LAST (e.g. the "SEARCH/REPLACE block failed to match" report), so a quoted line without
 *     the two spaces that directly follows a prompt or status line opens a record that runs to the
 *     next line ending in two spaces;
 *   * assistant replies, `ai_output`: "\n" + text + "\n\n": everything else.
 * The two trailing spaces keep an assistant's own `#### Heading` or `> quote` lines out of prompts and
 * status records (both occur in ../shared/corpus/aider). Classification reads left to right only, so
 * re-classifying from the first line of any prompt gives the same records as from the block start.
 */

/** One record of a session block; `line` is the 1-based line number in the file of its first line. */
export type AiderRecord =
  | { kind: "prompt"; line: number; text: string }
  | { kind: "status"; line: number; text: string }
  | { kind: "prose"; line: number; text: string }
  | { kind: "blank"; line: number };

/** Classifier state between lines: what the previous line was. */
type Previous = "blank" | "prompt" | "status" | "prose";

const promptLine = /^####(?: .*)? {2}$/;

/**
 * Records of `lines` (already split on "\n"; a trailing "\r" is dropped), numbered from `firstLine`.
 * The first line is read as if a blank line preceded it (true at a block's first line after its header,
 * and at every prompt's first line).
 * Examples: ["#### fix it  ", "", "Done.", "", "> Applied edit to a.py  "] → prompt "fix it", blank,
 *   prose "Done.", blank, status "Applied edit to a.py";
 *   ["#### Heading"] → prose (no two trailing spaces); ["> a  ", "> b", "c", "d  "] → status "a", status "b\nc\nd".
 */
export function classifyLines(lines: readonly string[], firstLine: number): AiderRecord[] {
  const records: AiderRecord[] = [];
  let previous: Previous = "blank";
  let open: { kind: "prompt" | "status"; line: number; parts: string[] } | null = null;
  let continuing = false;
  const close = () => {
    if (open) records.push({ kind: open.kind, line: open.line, text: open.parts.join("\n") });
    open = null;
    continuing = false;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] as string).replace(/\r$/, "");
    const number = firstLine + index;
    if (continuing && open) {
      (open as { parts: string[] }).parts.push(line.replace(/ {2}$/, "").trimEnd());
      if (line.endsWith("  ")) {
        close();
        previous = "status";
      }
      continue;
    }
    if (promptLine.test(line) && (previous === "blank" || previous === "prompt")) {
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
      (line.endsWith("  ") || previous === "prompt" || previous === "status") &&
      previous !== "prose"
    ) {
      const text = line.slice(1).replace(/^ /, "").replace(/\s+$/, "");
      if (line.endsWith("  ")) {
        records.push({ kind: "status", line: number, text });
      } else {
        open = { kind: "status", line: number, parts: [text] };
        continuing = true;
      }
      previous = "status";
      continue;
    }
    if (line.trim().length === 0) {
      records.push({ kind: "blank", line: number });
      previous = "blank";
      continue;
    }
    records.push({ kind: "prose", line: number, text: line });
    previous = "prose";
  }
  close();
  return records;
}
