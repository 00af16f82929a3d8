/**
 * Reading Codex `apply_patch` envelopes (docs/formats.md §3.2 `custom_tool_call`; grammar from
 * `openai/codex` codex-rs/apply-patch/apply_patch_tool_instructions.md): which files a patch adds,
 * updates, moves or deletes, and how many lines it adds and removes in each. Pure text, no I/O.
 */

/** What a patch does to one file. Counts are lines (`+`/`-` lines of the hunks; an added file counts its lines). */
export interface PatchedFile {
  operation: "add" | "update" | "delete";
  path: string;
  /** `*** Move to:` target of an update, when the file was renamed. */
  movedTo?: string;
  linesAdded: number;
  linesRemoved: number;
  /**
   * This file's part of the patch, verbatim: its `*** Add|Update|Delete File:` line through the line before the next
   * file header or `*** End Patch` (`\r\n` line ends kept as written).
   */
  text: string;
}

const header = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const moveTo = /^\*\*\* Move to: (.+)$/;

/**
 * Files of a patch, in order.
 * Examples: `*** Begin Patch\n*** Add File: a.txt\n+x\n+y\n*** End Patch` → [{add, a.txt, +2 −0}];
 *   `*** Update File: b.ts\n@@\n-old\n+new\n context` → [{update, b.ts, +1 −1}]; text without headers → [].
 */
export function parsePatch(text: string): PatchedFile[] {
  const files: PatchedFile[] = [];
  let current: PatchedFile | undefined;
  let lines: string[] = [];
  const close = () => {
    if (current) current.text = lines.join("\n");
  };
  for (const rawLine of text.split("\n")) {
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    const fileHeader = header.exec(line);
    if (fileHeader) {
      close();
      const kind = fileHeader[1] as "Add" | "Update" | "Delete";
      current = {
        operation: kind === "Add" ? "add" : kind === "Update" ? "update" : "delete",
        path: (fileHeader[2] as string).trim(),
        linesAdded: 0,
        linesRemoved: 0,
        text: "",
      };
      lines = [rawLine];
      files.push(current);
      continue;
    }
    if (!current) continue;
    if (line.trimEnd() === "*** End Patch") {
      close();
      current = undefined;
      continue;
    }
    lines.push(rawLine);
    const move = moveTo.exec(line);
    if (move) {
      current.movedTo = (move[1] as string).trim();
      continue;
    }
    if (line.startsWith("***")) continue; // *** End of File
    if (line.startsWith("+")) current.linesAdded++;
    else if (line.startsWith("-") && current.operation === "update") current.linesRemoved++;
  }
  close();
  return files;
}

/**
 * The patch text inside a shell script that runs `apply_patch` (heredoc or argument), or null.
 * Example: `apply_patch <<'EOF'\n*** Begin Patch\n…\n*** End Patch\nEOF` → `*** Begin Patch\n…\n*** End Patch`.
 */
export function patchInScript(script: string): string | null {
  const start = script.indexOf("*** Begin Patch");
  if (start < 0 || !/\bapply_patch\b/.test(script.slice(0, start))) return null;
  const end = script.indexOf("*** End Patch", start);
  return end < 0 ? script.slice(start) : script.slice(start, end + "*** End Patch".length);
}
