/**
 * The frames `recall pick` draws for a typed key, read from its raw output in a pseudo-terminal (`script`, util-linux):
 * Ink brackets each frame in a synchronized update (`ESC[?2026h` … `ESC[?2026l`), so the screen is replayed frame by
 * frame through a terminal emulator (xterm.js, headless) and what each frame showed is known. Issue 42: while the
 * keyword search answers quickly, a key that changes the query is drawn in the same frame as its results; the query
 * line is never shown ahead of them in a frame of its own (a frame of this screen costs 4–15 ms).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Terminal } from "@xterm/headless";
import { preparePickHistory, type PickHistory } from "./pick-history.ts";

const hasScript = Bun.which("script") !== null;
if (!hasScript) console.warn("pick frame tests skipped: script(1) is not installed (apt-get install bsdutils)");
const suite = hasScript ? describe : describe.skip;

/** End of a synchronized update: the end of one frame Ink drew. */
const frameEnd = "\u001b[?2026l";

/** A picker in a 100×30 pseudo-terminal whose screen is kept frame by frame. */
class FramedPicker {
  private readonly process: Bun.Subprocess<"pipe", "pipe", "pipe">;
  private readonly screen = new Terminal({ cols: 100, rows: 30, allowProposedApi: true });
  private pending = "";
  /** The screen's rows after each frame, in order. */
  readonly frames: string[][] = [];

  constructor(history: PickHistory) {
    this.process = Bun.spawn(
      ["script", "-qfec", `stty rows 30 cols 100; exec ${history.recall} pick --keyword-only`, "/dev/null"],
      {
        cwd: history.webapp,
        env: { ...history.env, TERM: "xterm-256color" },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    void this.read();
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.process.stdout) {
      this.pending += decoder.decode(chunk, { stream: true });
      for (let end = this.pending.indexOf(frameEnd); end >= 0; end = this.pending.indexOf(frameEnd)) {
        const frame = this.pending.slice(0, end + frameEnd.length);
        this.pending = this.pending.slice(end + frameEnd.length);
        await new Promise<void>((written) => this.screen.write(frame, written));
        const buffer = this.screen.buffer.active;
        this.frames.push(
          Array.from({ length: this.screen.rows }, (_, y) => buffer.getLine(y)?.translateToString(true) ?? ""),
        );
      }
    }
  }

  /** Index of the first frame from `from` on whose rows satisfy `ready`; waits up to 10 s for it. */
  async frameWhere(ready: (rows: string[]) => boolean, from = 0): Promise<number> {
    for (let waited = 0; waited < 10_000; waited += 10) {
      const found = this.frames.findIndex((rows, index) => index >= from && ready(rows));
      if (found >= 0) return found;
      await Bun.sleep(10);
    }
    throw new Error(`pick never drew the awaited frame; last:\n${(this.frames.at(-1) ?? []).join("\n")}`);
  }

  type(text: string): void {
    this.process.stdin.write(text);
    this.process.stdin.flush();
  }

  /** Esc, then the exit code; a picker still running 5 s later (a test that failed midway) is killed. */
  async quit(): Promise<number | null> {
    this.type("\u001b");
    const code = await Promise.race([this.process.exited, Bun.sleep(5000).then(() => null)]);
    if (code === null) {
      this.process.kill("SIGKILL"); // script(1): the picker gets SIGHUP as its terminal goes
      await this.process.exited;
    }
    this.screen.dispose();
    return code;
  }
}

suite("recall pick's frames", () => {
  let root: string;
  let history: PickHistory;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "recall-pick-frames-"));
    history = preparePickHistory(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("issue 42: a typed key is drawn in the frame that shows its results, not in one before them", async () => {
    const picker = new FramedPicker(history);
    /** Types `text` a key at a time; returns the keys whose first frame showing them also showed their results. */
    const typeWatching = async (text: string, typedBefore = ""): Promise<string[]> => {
      const together: string[] = [];
      let query = typedBefore;
      for (const key of text) {
        query += key;
        const before = picker.frames.length;
        picker.type(key);
        const answered = await picker.frameWhere((rows) => rows[1]!.includes(`for “${query}”`), before);
        const echoed = await picker.frameWhere((rows) => rows[0]!.startsWith(`recall › ${query}`), before);
        expect(picker.frames[answered]![0]).toStartWith(`recall › ${query}`);
        if (echoed === answered) together.push(query);
        await Bun.sleep(100);
      }
      return together;
    };
    try {
      await picker.frameWhere((rows) => rows[1]!.startsWith("recent sessions ("));
      await Bun.sleep(500); // the background index check has run and its frame (if any) is drawn
      // A key waits for its results while the last search answered within 50 ms: the first keyword searches of a
      // process (from source, its code not yet compiled) may not, on a busy machine. So a query first, then the test.
      await typeWatching("docker");
      expect(picker.frames.at(-1)!.some((row) => row.includes("Fix the docker bridge network"))).toBe(true);
      const together = await typeWatching(" bridge", "docker");
      // Every key of a quick search comes with its results (before the change, none did); one slow search on a busy
      // machine may draw one key first.
      expect(together.length).toBeGreaterThanOrEqual(6);
    } finally {
      await picker.quit();
    }
  }, 30_000);
});
