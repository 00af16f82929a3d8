/**
 * A real terminal for tests: a tmux server of the test's own (its own socket, so tests never see each other's or the
 * developer's sessions) running an interactive bash in one pane of a given size. Tests type into it (`send-keys`),
 * read what it shows (`capture-pane`, with `-e` for the escape sequences of colours and attributes), resize it, and
 * wait for a screen that satisfies a condition. tmux comes from Debian's package (.ci/run installs it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** True when a tmux binary is on PATH. */
export const hasTmux: boolean = Bun.which("tmux") !== null;

/** A terminal: one tmux pane running a shell (`bash --norc --noprofile` unless told otherwise). */
export class TmuxTerminal {
  private constructor(
    private readonly socket: string,
    private readonly socketDir: string,
  ) {}

  /**
   * Start a terminal of `columns` × `rows` cells running `shell` with exactly `env` as its environment, plus
   * TERM=screen (what tmux's panes are, unless `env` says otherwise).
   */
  static start(
    columns: number,
    rows: number,
    given: Record<string, string>,
    shell: string[] = ["bash", "--norc", "--noprofile"],
  ): TmuxTerminal {
    const env = { TERM: "screen", ...given };
    const socketDir = mkdtempSync(join(tmpdir(), "recall-tmux-"));
    const terminal = new TmuxTerminal(join(socketDir, "socket"), socketDir);
    terminal.tmux(
      ["new-session", "-d", "-x", String(columns), "-y", String(rows), "env", "-i", ...envWords(env), ...shell],
      env,
    );
    // The window follows resize-window, not the size of some attached client (none attaches).
    terminal.tmux(["set-option", "-g", "window-size", "manual"], env);
    return terminal;
  }

  private tmux(args: string[], env: Record<string, string> = {}): string {
    const result = Bun.spawnSync(["tmux", "-S", this.socket, "-f", "/dev/null", ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    if (result.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr.toString().trim()}`);
    return result.stdout.toString();
  }

  /** Type a line of text into the pane, then Enter. */
  run(line: string): void {
    this.tmux(["send-keys", "-t", "0", "-l", line]);
    this.tmux(["send-keys", "-t", "0", "Enter"]);
  }

  /** Type text as it is (no key names). */
  type(text: string): void {
    this.tmux(["send-keys", "-t", "0", "-l", text]);
  }

  /** Press keys by tmux name: `Down`, `C-o`, `Tab`, `Escape`, `NPage`, `M-r`… */
  press(...keys: string[]): void {
    this.tmux(["send-keys", "-t", "0", ...keys]);
  }

  /** The pane's text, one string per row (trailing spaces kept out); with `escapes`, colours and attributes too. */
  screen(escapes = false): string[] {
    return this.tmux(["capture-pane", "-p", "-t", "0", ...(escapes ? ["-e"] : [])])
      .replace(/\n$/, "")
      .split("\n");
  }

  /** Resize the pane (the program gets SIGWINCH). */
  resize(columns: number, rows: number): void {
    this.tmux(["resize-window", "-t", "0", "-x", String(columns), "-y", String(rows)]);
  }

  /**
   * Wait until the screen satisfies `ready` (polled every 20 ms), and return it.
   * @throws Error with the last screen when `timeoutMs` passes first
   */
  async waitFor(ready: (screen: string[]) => boolean, timeoutMs = 10_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    let screen = this.screen();
    while (!ready(screen)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for the screen; it shows:\n${screen.join("\n")}`);
      await Bun.sleep(20);
      screen = this.screen();
    }
    return screen;
  }

  /** Wait until some row of the screen contains `text`. */
  waitForText(text: string, timeoutMs?: number): Promise<string[]> {
    return this.waitFor((screen) => screen.some((row) => row.includes(text)), timeoutMs);
  }

  /** Stop the tmux server and remove its socket folder. */
  close(): void {
    try {
      this.tmux(["kill-server"]);
    } catch {
      // already gone
    }
    rmSync(this.socketDir, { recursive: true, force: true });
  }
}

/** `NAME=value` words for `env -i`. */
const envWords = (env: Record<string, string>): string[] =>
  Object.entries(env).map(([name, value]) => `${name}=${value}`);
