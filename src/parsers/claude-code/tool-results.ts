/**
 * Large tool outputs that Claude Code ≥ 2.1 moved out of the transcript (docs/formats.md §1.8):
 * `<persisted-output>Output too large (21.5KB). Full output saved to: <abs path>/tool-results/<id>.txt …`.
 * The absolute path may come from another machine, so the file is looked up by name next to the
 * transcript: `<dir>/<session>/tool-results/` for a main file, the parent session's folder for a
 * nested sub-agent (real example: Xu-Wentao__dotfile …/995e76d3…/subagents/agent-a2031b11586512707.jsonl).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

const savedTo = /Full output saved to: ([^\n]+)/;

/** Candidate `tool-results` folders of a transcript, most specific first. */
export function toolResultDirs(transcriptPath: string): string[] {
  const dir = dirname(transcriptPath);
  const stem = basename(transcriptPath).replace(/\.jsonl$/, "");
  const dirs = [join(dir, stem, "tool-results")];
  if (basename(dir) === "subagents") dirs.push(join(dirname(dir), "tool-results"));
  return dirs;
}

/**
 * Make a resolver that replaces a persisted-output preview with the saved file's full text.
 * @param transcriptPath the session file the tool result came from
 * @param onRead called with the byte count of every saved file read (for `bytesRead`)
 * @returns a function returning the full text when the saved file exists, else the text unchanged
 * Example: `"<persisted-output>\nOutput too large (21.5KB). Full output saved to: /Users/x/…/tool-results/toolu_1.txt\n…"`
 *   → contents of `<session>/tool-results/toolu_1.txt`.
 */
export function createOutputResolver(
  transcriptPath: string,
  onRead: (bytes: number) => void,
): (text: string) => string {
  let dirs: string[] | undefined;
  return (text: string): string => {
    if (!text.startsWith("<persisted-output>") && !text.slice(0, 200).includes("<persisted-output>")) return text;
    const saved = savedTo.exec(text)?.[1]?.trim();
    if (!saved) return text;
    const name = saved.split(/[\\/]/).at(-1) ?? "";
    if (!name) return text;
    dirs ??= toolResultDirs(transcriptPath);
    for (const dir of dirs) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      try {
        const bytes = readFileSync(path);
        onRead(bytes.length);
        return bytes.toString("utf8");
      } catch {
        return text;
      }
    }
    return text;
  };
}
