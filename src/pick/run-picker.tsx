/**
 * Runs the picker's screen on the terminal and always gives the terminal back: the alternate screen is left, the
 * cursor shown and raw mode turned off when the picker ends, when the process gets SIGTERM or SIGHUP (then it exits
 * 143 or 129), and when something throws: an error of the screen is rethrown for the app's one-line report, one
 * thrown outside it (an event handler) is reported in one line here and exits 1.
 */
import { render } from "ink";
import { errorLine } from "../render/escapes.ts";
import { writeErr } from "../render/terminal.ts";
import { PickApp, type PickAppProps, type PickOutcome } from "./app.tsx";

/** Where the screen is drawn and keys are read: stdout normally, stderr under `--print` (stdout carries the answer). */
export interface PickTerminal {
  output: NodeJS.WriteStream;
  input: NodeJS.ReadStream;
}

/** Escape sequences that put a terminal back as a shell expects it, after Ink left the alternate screen: cursor shown, attributes reset. */
const restoreSequence = "\u001b[?25h\u001b[0m";

/**
 * Frames per second at most: a frame every 4 ms at the soonest (Ink's default, 30, held a key press's results back up to
 * 33 ms; a frame of this screen renders in 1–7 ms).
 */
export const maxFps = 250;

/**
 * Show the picker until the person chooses a session or quits.
 * @returns the outcome; the terminal is restored before it resolves
 * @throws whatever the screen threw (after restoring the terminal)
 */
export async function runPicker(props: PickAppProps, terminal: PickTerminal): Promise<PickOutcome> {
  const instance = render(<PickApp {...props} />, {
    stdout: terminal.output,
    stdin: terminal.input,
    stderr: terminal.output,
    exitOnCtrlC: false,
    patchConsole: false,
    alternateScreen: true,
    interactive: true,
    incrementalRendering: true,
    maxFps,
  });
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    try {
      instance.unmount();
    } catch {
      // already unmounted
    }
    if (terminal.input.isTTY) terminal.input.setRawMode(false);
    terminal.input.pause();
    terminal.output.write(restoreSequence);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    restore();
    process.exit(signal === "SIGHUP" ? 129 : 143);
  };
  const onCrash = (error: unknown) => {
    restore();
    writeErr(`recall: unexpected error: ${errorLine(error)}\n`);
    process.exit(1);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  process.on("uncaughtException", onCrash);
  try {
    const outcome = (await instance.waitUntilExit()) as PickOutcome | undefined;
    return outcome ?? { kind: "quit" };
  } finally {
    restore();
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
    process.off("uncaughtException", onCrash);
  }
}
