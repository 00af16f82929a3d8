/**
 * Cleaning an aider assistant reply down to prose: reasoning is removed (`<think>…</think>` as local
 * models write it, aider/reasoning_tags.py tags and its `► **THINKING**` … `► **ANSWER**` rendering) and
 * SEARCH/REPLACE edit blocks (aider/coders/editblock_coder.py, "diff" and "diff-fenced" edit formats)
 * of the files aider applied edits to are taken out as edits, the payload of aider's only file tool,
 * counted per file for `[Edit] x (+a −r)`. A block aider did not apply (it failed to match, aider stopped on
 * an error, the user declined the new file) stays in the prose: it is what the model answered, and no tool
 * ran (in one real 736 KB history aider stopped on an error before it wrote the 20 files of a reply: 608 lines
 * of code the parser used to drop). Other edit formats ("whole",
 * "udiff", "patch") stay in the prose too: their blocks cannot be told from ordinary code samples without
 * the repository.
 */

/** One SEARCH/REPLACE block found in a reply. */
export interface EditBlock {
  /** The file path written above (or inside the fence of) the block, as the model wrote it. */
  filePath: string;
  /** Lines of the REPLACE part (0 for a deletion). */
  linesAdded: number;
  /** Lines of the SEARCH part (0 for a new file). */
  linesRemoved: number;
  /** The block's text, fence and file name included (kept as the edit's output at level 3). */
  text: string;
}

/** A reply split into prose and edit blocks. */
export interface CleanReply {
  prose: string;
  edits: EditBlock[];
}

const thinkPairs = /<(think|thinking|reasoning|thinking-content-[0-9a-f]+)>[\s\S]*?<\/\1>/g;
const danglingClose = /^[\s\S]*?<\/(?:think|thinking|reasoning|thinking-content-[0-9a-f]+)>/;
const renderedThinking = /-{3,}\n► \*\*THINKING\*\*[\s\S]*?(?:-{3,}\n► \*\*ANSWER\*\*|$)/g;

/**
 * The reply without reasoning. A closing tag with no opening one drops everything before it (what
 * aider's `remove_reasoning_content` does for streams whose opening tag was cut).
 * Examples: "<think>\nhmm\n</think>\n\nDone." → "Done."; "a\n</think>\nb" → "b"; "plain" → "plain".
 */
export function stripReasoning(text: string): string {
  let out = text.replace(thinkPairs, "").replace(renderedThinking, "");
  if (danglingClose.test(out)) out = out.replace(danglingClose, "");
  return out;
}

const searchLine = /^\s*<{5,9} SEARCH>?\s*$/;
const dividerLine = /^\s*={5,9}\s*$/;
const replaceLine = /^\s*>{5,9} REPLACE\s*$/;
const fenceLine = /^\s*(```|~~~)/;

/** A file name line as aider's `find_filename` accepts it: stripped of `#`, `*`, backticks, colons. */
function fileNameOf(line: string): string {
  return line
    .trim()
    .replace(/^#+\s*/, "")
    .replace(/^[*`]+|[*`:]+$/g, "")
    .trim();
}

/**
 * Split a reply (reasoning already removed) into prose and the SEARCH/REPLACE blocks of the files
 * `isApplied` accepts (default: every file); the blocks of other files stay in the prose as written.
 * The file name is the nearest non-blank, non-fence line among the 3 above `<<<<<<< SEARCH`
 * (editblock_coder.py `find_filename` looks back 3 lines too); a block without one keeps its text in
 * the prose unless an earlier block of the reply named one (then that file). The opening fence above and the closing fence right after `>>>>>>> REPLACE` go with it.
 * Example: "Sure.\n\na.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\nz\n>>>>>>> REPLACE\n```\n\nDone."
 *   → prose "Sure.\n\nDone.", edits [{filePath "a.py", linesAdded 2, linesRemoved 1}];
 *   with `isApplied` false for "a.py" → prose unchanged, edits [].
 */
export function extractEditBlocks(reply: string, isApplied: (filePath: string) => boolean = () => true): CleanReply {
  const lines = reply.split("\n");
  const kept: string[] = [];
  const edits: EditBlock[] = [];
  let lastFile: string | undefined;
  let index = 0;
  while (index < lines.length) {
    const block = searchLine.test(lines[index] as string) ? readBlock(lines, index, kept, lastFile) : null;
    if (block) lastFile = block.edit.filePath;
    if (!block || !isApplied(block.edit.filePath)) {
      const stop = block ? block.next : index + 1;
      for (; index < stop; index++) kept.push(lines[index] as string);
      continue;
    }
    edits.push(block.edit);
    kept.splice(kept.length - block.headLines, block.headLines);
    index = block.next;
  }
  return {
    prose: kept
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
    edits,
  };
}

/**
 * The block whose SEARCH line is `lines[at]`, with how many already-kept lines above belong to it
 * (file name, fence) and the index after it; null when it has no divider, no REPLACE or no file name.
 */
function readBlock(
  lines: readonly string[],
  at: number,
  kept: readonly string[],
  previousFile: string | undefined,
): { edit: EditBlock; headLines: number; next: number } | null {
  let divider = -1;
  let end = -1;
  for (let index = at + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (divider < 0 && dividerLine.test(line)) divider = index;
    else if (divider >= 0 && replaceLine.test(line)) {
      end = index;
      break;
    } else if (searchLine.test(line)) return null;
  }
  if (divider < 0 || end < 0) return null;
  let headLines = 0;
  let filePath = "";
  for (let back = 1; back <= 3 && back <= kept.length; back++) {
    const line = kept[kept.length - back] as string;
    if (line.trim().length === 0) break;
    headLines = back;
    if (fenceLine.test(line)) continue;
    filePath = fileNameOf(line);
    // "diff-fenced": the fence opens above the file name.
    if (back < kept.length && fenceLine.test(kept[kept.length - back - 1] as string)) headLines = back + 1;
    break;
  }
  // A block right after another one may leave out the file name (editblock_coder.py reuses the last one).
  if (filePath.length === 0) filePath = previousFile ?? "";
  if (filePath.length === 0) return null;
  let next = end + 1;
  if (next < lines.length && fenceLine.test(lines[next] as string)) next++;
  const text = [...kept.slice(kept.length - headLines), ...lines.slice(at, next)].join("\n");
  return { edit: { filePath, linesAdded: end - divider - 1, linesRemoved: divider - at - 1, text }, headLines, next };
}
