/**
 * Writing to stdout/stderr and asking whether they are terminals, without touching
 * `process.stdout`/`process.stderr`: in a compiled Bun 1.4.5 binary the first access to either stream
 * object costs ~9.5 ms and loading `node:tty` ~4 ms (measured here, hello-world 4.1 ms, a
 * `process.stdout.write` hello 13.9 ms, `fs.writeSync(1)` 5.0 ms). Start-up is a product goal, so
 * output goes through `fs.writeSync`, and `node:tty` is loaded only when the fd is a character device.
 */
import { fstatSync, statSync, writeSync } from "node:fs";
import type { Colors } from "picocolors/types";

/** Thrown when the reader of stdout went away (`recall search … | head`); the CLI exits 0 quietly. */
export class ClosedOutputError extends Error {}

const terminalCache = new Map<number, boolean>();

/** True when `fd` (1 stdout, 2 stderr) is a terminal. Cached per process. */
export function isTerminal(fd: 1 | 2): boolean {
  let answer = terminalCache.get(fd);
  if (answer === undefined) {
    try {
      // A pipe or file is never a TTY, nor is /dev/null (output thrown away: cron, `>/dev/null`, a benchmark); only
      // another character device needs the exact (costlier) check.
      const stat = fstatSync(fd);
      answer =
        stat.isCharacterDevice() &&
        stat.rdev !== statSync("/dev/null", { throwIfNoEntry: false })?.rdev &&
        (require("node:tty") as typeof import("node:tty")).isatty(fd);
    } catch {
      answer = false;
    }
    terminalCache.set(fd, answer);
  }
  return answer;
}

function writeAll(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EPIPE") throw new ClosedOutputError("output closed");
      if (code !== "EAGAIN") throw error;
      Bun.sleepSync(1); // a non-blocking pipe is full: wait for the reader
    }
  }
}

/** Write to stdout (results only). @throws ClosedOutputError when the reader closed the pipe */
export function writeOut(text: string): void {
  writeAll(1, text);
}

/** A live progress line on stderr (progress.ts), which other stderr output must not be written over. */
export interface LiveLine {
  /** draws the line again, after other text was written */
  redraw(): void;
}

let liveLine: LiveLine | undefined;

/** Registers (or with undefined, forgets) the progress line that {@link writeErr} keeps below what it writes. */
export function setLiveLine(line: LiveLine | undefined): void {
  liveLine = line;
}

/**
 * Write to stderr (progress, warnings, hints). A closed stderr is ignored. While a progress bar is drawn, the
 * bar's line is cleared first (`\r` + ANSI "erase line", ESC[2K), the cursor position under the text is saved
 * again (DEC ESC 7: cli-progress saves it when a bar starts and restores it to clear the bar when it stops, which
 * would otherwise erase the text) and the bar is redrawn there, so a notice never lands in a bar frame nor is wiped.
 */
export function writeErr(text: string): void {
  try {
    if (liveLine) {
      writeAll(2, `\r\u001b[2K${text}\u001b7`);
      liveLine.redraw();
    } else {
      writeAll(2, text);
    }
  } catch {
    // nobody is listening: nothing useful to do
  }
}

/** A color palette (picocolors' shape); identity functions when color is off. */
export type Palette = Colors;

const formatterNames = [
  "reset",
  "bold",
  "dim",
  "italic",
  "underline",
  "inverse",
  "hidden",
  "strikethrough",
  "black",
  "red",
  "green",
  "yellow",
  "blue",
  "magenta",
  "cyan",
  "white",
  "gray",
  "bgBlack",
  "bgRed",
  "bgGreen",
  "bgYellow",
  "bgBlue",
  "bgMagenta",
  "bgCyan",
  "bgWhite",
  "blackBright",
  "redBright",
  "greenBright",
  "yellowBright",
  "blueBright",
  "magentaBright",
  "cyanBright",
  "whiteBright",
  "bgBlackBright",
  "bgRedBright",
  "bgGreenBright",
  "bgYellowBright",
  "bgBlueBright",
  "bgMagentaBright",
  "bgCyanBright",
  "bgWhiteBright",
] as const;

/** Identity formatters (a plain object, not a Proxy: a Proxy would answer `then` and break `await`). */
const plainPalette = Object.fromEntries([
  ["isColorSupported", false],
  ...formatterNames.map((name) => [name, (text: unknown) => (text === null || text === undefined ? "" : String(text))]),
]) as unknown as Palette;

/**
 * The palette for an output: colors only on a terminal and when NO_COLOR / RECALL_NO_COLOR are unset.
 * picocolors is imported only then (it reads `process.stdout` when loaded).
 */
export async function paletteFor(fd: 1 | 2, env: Record<string, string | undefined> = process.env): Promise<Palette> {
  if (env.NO_COLOR || env.RECALL_NO_COLOR || !isTerminal(fd)) return plainPalette;
  const picocolors = (await import("picocolors")).default;
  return picocolors.createColors(true);
}
