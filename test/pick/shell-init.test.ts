/**
 * `recall init`: the printed key binding works in a real bash (tmux): Alt-R opens the picker on the current command
 * line's words, Enter puts the chosen session's resume command on the command line, and running it starts the tool
 * in the project folder; Esc leaves the command line as it was. zsh and fish snippets are checked by their shells'
 * parsers when those shells are installed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shellInit } from "../../src/pick/shell-init.ts";
import { shellQuote } from "../../src/search/reading/hydrate.ts";
import { cliPath, runCli } from "../helpers/cli.ts";
import { hasTmux, TmuxTerminal } from "../helpers/tmux.ts";
import { ids, preparePickHistory, type PickHistory } from "./pick-history.ts";

test("recall init prints the binding for each shell, calling this recall", () => {
  for (const shell of ["zsh", "bash", "fish"]) {
    const run = runCli(["init", shell]);
    expect(run.exitCode).toBe(0);
    const text = run.stdout;
    expect(text).toContain(`${shellQuote(process.execPath)} ${shellQuote(cliPath)} pick --print -- `);
    expect(text).toContain("</dev/tty");
  }
  const refused = runCli(["init", "tcsh"]);
  expect(refused.exitCode).toBe(2);
  expect(refused.stderr).toContain("tcsh");
});

for (const shell of ["zsh", "fish"] as const) {
  const binary = Bun.which(shell);
  test.skipIf(!binary)(`the ${shell} snippet parses (${binary ? binary : `${shell} not installed: skipped`})`, () => {
    const run = Bun.spawnSync([binary!, "-n", "-c", shellInit(shell, "recall")], { stdout: "pipe", stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    expect(run.exitCode).toBe(0);
  });
}

/** How each shell starts without the user's configuration, with `$ ` as its prompt, and sources a file. */
const shells = {
  bash: { start: ["bash", "--norc", "--noprofile"], source: (file: string) => `set -o emacs; source ${file}` },
  zsh: { start: ["zsh", "-f"], source: (file: string) => `PS1='$ '; source ${file}` },
  fish: {
    start: ["fish", "--no-config", "-C", "function fish_prompt; echo -n '$ '; end"],
    source: (file: string) => `source ${file}`,
  },
} as const;

if (!hasTmux) console.warn("key binding tests skipped: tmux is not installed (apt-get install tmux; .ci/run does)");

for (const shell of ["bash", "zsh", "fish"] as const) {
  const installed = hasTmux && Bun.which(shell) !== null;
  if (hasTmux && !installed)
    console.warn(`${shell} key binding test skipped: ${shell} is not installed (.ci/run installs it)`);
  (installed ? describe : describe.skip)(`the ${shell} key binding in a real terminal`, () => {
    let root: string;
    let history: PickHistory;
    let terminal: TmuxTerminal | undefined;
    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), "recall-init-"));
      history = preparePickHistory(root);
      const snippet = runCli(["init", shell]).stdout;
      writeFileSync(join(root, "binding"), snippet);
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    afterEach(() => {
      terminal?.close();
      terminal = undefined;
      rmSync(history.recordDir, { recursive: true, force: true });
    });

    async function shellWithBinding(): Promise<TmuxTerminal> {
      terminal = TmuxTerminal.start(100, 30, history.env, [...shells[shell].start]);
      await terminal.waitFor((rows) => rows.some((row) => row.includes("$")));
      terminal.run(`${shells[shell].source(join(root, "binding"))}; cd ${root}; clear`);
      await terminal.waitFor((rows) => rows[0] === "$" && rows.slice(1).every((row) => row === ""));
      return terminal;
    }

    test("Alt-R searches the command line's words; Enter puts the resume command there; running it resumes", async () => {
      const term = await shellWithBinding();
      term.type("docker bridge");
      term.press("M-r");
      const screen = await term.waitFor((rows) =>
        rows.some((row) => row.startsWith("› ") && row.includes("Fix the docker")),
      );
      // The picker's first row starts at the terminal's first column, not at the cursor's (issue 38, item 7).
      expect(screen[0]).toStartWith("recall › docker bridge");
      term.press("Enter");
      const command = `cd ${history.webapp} && claude --resume ${ids.docker}`;
      await term.waitFor((rows) => rows.some((row) => row.trimEnd() === `$ ${command}`));
      term.press("Enter");
      for (let waited = 0; !history.recorded() && waited < 5000; waited += 20) await Bun.sleep(20);
      expect(history.recorded()?.argv).toEqual(["--resume", ids.docker]);
      expect(history.recorded()?.cwd).toBe(history.webapp);
    });

    test("a warning about the chosen session is on a line of its own, the prompt below it", async () => {
      const term = await shellWithBinding();
      term.type("rate limiter");
      term.press("M-r");
      await term.waitFor((rows) => rows.some((row) => row.startsWith("› ") && row.includes("Rate limiter")));
      term.press("Enter");
      const gone = join(history.root, "projects", "gone-api");
      const warning = `recall: the project folder ${gone} no longer exists`;
      const command = `$ cd ${gone} && claude --resume ${ids.goneFolder}`;
      // The command line may wrap: compare the screen from the warning's row on, rows joined.
      const screen = await term.waitFor((rows) => rows.join("").includes(command));
      const at = screen.indexOf(warning);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(screen.slice(at + 1).join("")).toStartWith(command);
      term.press("C-u");
    });

    test("Esc in the picker leaves the command line as it was", async () => {
      const term = await shellWithBinding();
      term.type("echo kept");
      term.press("M-r");
      await term.waitForText("recall › echo kept");
      term.press("Escape");
      await term.waitFor((rows) => rows.some((row) => row.trimEnd() === "$ echo kept"));
      expect(term.screen().some((row) => row.includes("recall ›"))).toBe(false);
    });
  });
}
