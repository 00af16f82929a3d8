/**
 * A notice written while the progress bar is drawn lands on its own line and stays there (issue 15: a notice was
 * printed over the progress bar). The bar runs in a real pseudo-terminal (util-linux `script`), and the bytes it
 * wrote are replayed on a small screen model that understands what cli-progress and writeErr emit: CR, LF,
 * ESC[nG (column), ESC[0K / ESC[2K (erase), ESC 7 / ESC 8 (save / restore cursor), ESC[?…h/l (modes, ignored).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const hasScript = Bun.spawnSync(["sh", "-c", "command -v script"]).exitCode === 0;

/** The screen's lines after replaying `bytes` on an 80-column terminal without scrolling limits. */
function replay(bytes: string): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  let saved = { row: 0, col: 0 };
  const line = () => (lines[row] ??= []);
  for (let i = 0; i < bytes.length; i++) {
    const char = bytes[i]!;
    if (char === "\r") col = 0;
    else if (char === "\n") {
      row++;
      col = 0;
      line();
    } else if (char === "\u001b") {
      const rest = bytes.slice(i + 1);
      const csi = /^\[(\??)(\d*)([A-Za-z])/.exec(rest);
      if (rest[0] === "7") {
        saved = { row, col };
        i += 1;
      } else if (rest[0] === "8") {
        ({ row, col } = saved);
        i += 1;
      } else if (csi) {
        i += csi[0].length;
        const [, privateMode, number, command] = csi;
        if (privateMode) continue;
        if (command === "G") col = Math.max(0, Number(number || 1) - 1);
        else if (command === "K" && (number === "" || number === "0")) line().length = Math.min(line().length, col);
        else if (command === "K" && number === "2") lines[row] = [];
      }
    } else {
      line()[col++] = char;
    }
  }
  return lines
    .map((cells) =>
      Array.from(cells, (cell) => cell ?? " ")
        .join("")
        .trimEnd(),
    )
    .filter((text) => text !== "");
}

describe.skipIf(!hasScript)("notices while a progress bar is drawn (runs in a pseudo-terminal)", () => {
  test("each notice keeps a line of its own, and the stopped bar leaves nothing behind", () => {
    const driver = join(import.meta.dir, "..", "helpers", "progress-driver.ts");
    const result = Bun.spawnSync(["script", "-qefc", `${process.execPath} ${driver}`, "/dev/null"], {
      stdin: "ignore",
      env: { ...process.env, TERM: "xterm" },
    });
    expect(result.exitCode).toBe(0);
    const raw = result.stdout.toString();
    expect(raw).toContain("indexing claude-code"); // the bar was drawn: stderr was a terminal
    expect(replay(raw)).toEqual([
      "recall: notice while the bar is drawn",
      "recall: notice while embedding",
      "indexed: summary line",
    ]);
  });
});
