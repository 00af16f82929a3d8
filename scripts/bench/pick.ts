/**
 * `recall pick` from the compiled binary (issue 28), on the real corpus (../shared/corpus, Claude Code + OpenCode) and
 * on the generated 20k-session corpus, each indexed keyword-only into a fresh RECALL_HOME first. Rows:
 *   pick.first_frame.<corpus>      spawn → the first frame that shows results (the recent sessions), in a
 *                                  100×30 pseudo-terminal; fresh process each run     target ≤ 150 ms
 *   pick.key_echo.<corpus>         key press → the query line shows the key
 *   pick.key_results.<corpus>      key press → the list shows the results for the new query (the status line names
 *                                  the query they answer)                        target p50 ≤ 30 ms real, ≤ 80 ms at 20k
 *   pick.key_settled.<corpus>      key press → the last output the key caused (the preview of the best turn comes
 *                                  after the list; the last chunk before 150 ms of quiet)
 * Keys are typed one at a time ("docker network", 250 ms apart, after the background index check settled), so each
 * key's frames are its own. The terminal is `script(1)`'s pseudo-terminal (util-linux), sized with stty; what it shows
 * is read through xterm.js's headless emulator (@xterm/headless), so each time is that of the output chunk that put
 * the awaited text on the screen.
 * Prints the binary's size, then JSON lines {name, n, p50_ms, p95_ms, …} on stdout.
 * Run: bun scripts/bench/pick.ts [--runs N] [--sessions N] [--no-build]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Terminal } from "@xterm/headless";
import { argValue, report, benchBinary, binaryBenchCorpora, indexedBenchEnv } from "./lib.ts";

const runs = argValue("--runs", 10);
const sessions = argValue("--sessions", 20_000);
const binary = benchBinary();
const work = mkdtempSync(join(tmpdir(), "recall-bench-pick-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
process.stderr.write(`pick: binary ${(statSync(binary).size / 1e6).toFixed(1)} MB\n`);

const corpora = binaryBenchCorpora("pick", sessions);

/**
 * A pick process in a 100×30 pseudo-terminal (`script`), its output interpreted by a terminal emulator (xterm.js,
 * headless) as it arrives, so a condition on what the screen shows is timed at the chunk that made it true.
 */
class PseudoTerminal {
  private readonly process: Bun.Subprocess<"pipe", "pipe", "inherit">;
  private readonly screen = new Terminal({ cols: 100, rows: 30, allowProposedApi: true });
  private waiters: Array<{ ready: (rows: string[]) => boolean; resolve: (at: number) => void }> = [];
  /** Arrival time of the last chunk the emulator has parsed. */
  private lastChunkAt = 0;
  private parsing: Promise<void> = Promise.resolve();
  readonly started = performance.now();

  constructor(command: string, env: Record<string, string | undefined>) {
    this.process = Bun.spawn(["script", "-qfec", `stty rows 30 cols 100; exec ${command}`, "/dev/null"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
      env: { ...env, TERM: "xterm-256color" },
    });
    void this.read();
  }

  private async read(): Promise<void> {
    for await (const chunk of this.process.stdout) {
      const at = performance.now();
      this.parsing = new Promise<void>((parsed) =>
        this.screen.write(chunk, () => {
          this.lastChunkAt = at;
          this.check(at);
          parsed();
        }),
      );
    }
  }

  /** The screen's rows as text. */
  rows(): string[] {
    const buffer = this.screen.buffer.active;
    return Array.from({ length: this.screen.rows }, (_, y) => buffer.getLine(y)?.translateToString(true) ?? "");
  }

  /** Whether the cell at row `y`, column `x` (0-based) is drawn inverse: the picker's cursor is. */
  isInverse(y: number, x: number): boolean {
    return (this.screen.buffer.active.getLine(y)?.getCell(x)?.isInverse() ?? 0) !== 0;
  }

  private check(at: number): void {
    const rows = this.rows();
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.ready(rows)) return true;
      waiter.resolve(at);
      return false;
    });
  }

  /** Resolves with the arrival time (performance.now) of the chunk after which the screen satisfies `ready`. */
  waitFor(ready: (rows: string[]) => boolean, timeoutMs = 20_000): Promise<number> {
    if (ready(this.rows())) return Promise.resolve(this.lastChunkAt);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`pick never showed the awaited screen:\n${this.rows().join("\n")}`)),
        timeoutMs,
      );
      const done = (at: number) => {
        clearTimeout(timer);
        resolve(at);
      };
      this.waiters.push({ ready, resolve: done });
    });
  }

  /** Write `text` as typed keys; returns the time it was written. */
  press(text: string): number {
    const sent = performance.now();
    this.process.stdin.write(text);
    this.process.stdin.flush();
    return sent;
  }

  /** Arrival time of the last chunk once the output has been quiet for `quietMs`. */
  async settled(quietMs = 150): Promise<number> {
    for (;;) {
      await this.parsing;
      const last = this.lastChunkAt;
      await Bun.sleep(quietMs);
      if (this.lastChunkAt === last) return last;
    }
  }

  async quit(): Promise<void> {
    this.press("\u001b");
    await this.process.exited;
    this.screen.dispose();
  }
}

for (const bench of corpora) {
  const env = indexedBenchEnv(binary, work, bench);

  const firstFrames: number[] = [];
  const echoes: number[] = [];
  const results: number[] = [];
  const settled: number[] = [];
  for (let run = 0; run < runs; run++) {
    const terminal = new PseudoTerminal(`${binary} pick --keyword-only`, env);
    firstFrames.push((await terminal.waitFor((rows) => rows[1]!.startsWith("recent sessions ("))) - terminal.started);
    if (run < 3) {
      await Bun.sleep(500); // the background freshness check has run
      let typed = "";
      for (const key of "docker network") {
        typed += key;
        const query = typed;
        // The query line is `recall › ` (9 cells), the query, then the cursor (an inverse cell): as text, "docker" with
        // its cursor reads like "docker " typed, so a key's echo is the cursor having moved past what was typed.
        const echo = terminal.waitFor(
          (rows) => rows[0]!.startsWith(`recall › ${query}`) && terminal.isInverse(0, 9 + query.length),
        );
        // The status line names the query its results are for (`7 sessions for “docker n” · keyword`).
        const answered = terminal.waitFor(
          (rows) => rows[1]!.includes(`for “${query}”`) || rows[1]!.includes(`no match for “${query}”`),
        );
        const sent = terminal.press(key);
        echoes.push((await echo) - sent);
        results.push((await answered) - sent);
        settled.push((await terminal.settled()) - sent);
        await Bun.sleep(100);
      }
    }
    await terminal.quit();
  }
  const target = bench.label === "real" ? 30 : 80;
  report(`pick.first_frame.${bench.label}`, firstFrames, { target: "≤ 150 ms" });
  report(`pick.key_echo.${bench.label}`, echoes);
  report(`pick.key_results.${bench.label}`, results, { target: `p50 ≤ ${target} ms` });
  report(`pick.key_settled.${bench.label}`, settled);
}
