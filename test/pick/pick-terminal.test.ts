/**
 * `recall pick` driven in a real terminal (tmux): typing changes the results, moving changes the preview, Tab shows
 * the session's turns (level 2), Ctrl-O reads them with tool calls (level 3), a resize redraws to the new size,
 * NO_COLOR turns colours off, a Chinese title keeps the columns aligned, Esc and Ctrl-C leave the terminal as it was,
 * Enter replaces recall with the resume command (a stand-in `claude` records what it got), and a missing folder or an
 * archived-only session is said with the command to copy. Without a TTY, pick refuses in one line.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHashEmbeddings } from "../commands/hash-embeddings.ts";
import { runCli, spawnCli } from "../helpers/cli.ts";
import { getTestModelPath } from "../helpers/models.ts";
import { hasTmux, TmuxTerminal } from "../helpers/tmux.ts";
import { cellWidth } from "../../src/pick/columns.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { ids, plantedToken, preparePickHistory, type PickHistory } from "./pick-history.ts";

if (!hasTmux) console.warn("pick terminal tests skipped: tmux is not installed (apt-get install tmux; .ci/run does)");

const suite = hasTmux ? describe : describe.skip;

suite("recall pick in a terminal", () => {
  let root: string;
  let history: PickHistory;
  let terminal: TmuxTerminal | undefined;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "recall-pick-"));
    history = preparePickHistory(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  afterEach(() => {
    terminal?.close();
    terminal = undefined;
    rmSync(history.recordDir, { recursive: true, force: true });
  });

  /** A terminal with a shell prompt, then `recall pick <args>` started in it (the exit status goes to a file). */
  async function startPick(
    args: string,
    options: { columns?: number; rows?: number; env?: Record<string, string>; cwd?: string } = {},
  ) {
    terminal?.close(); // a test that starts a second picker: its first terminal goes (afterEach closes the last)
    terminal = TmuxTerminal.start(options.columns ?? 100, options.rows ?? 30, { ...history.env, ...options.env });
    await terminal.waitForText("$");
    const cwd = options.cwd ?? history.webapp;
    terminal.run(`cd ${cwd} && ${history.recall} pick ${args}; echo "exit=$?" > ${root}/exit-status`);
    await terminal.waitForText("recall ›");
    return terminal;
  }

  const exitStatus = async (): Promise<number> => {
    const path = join(root, "exit-status");
    for (let waited = 0; waited < 5000; waited += 20) {
      // The shell creates the file before it writes the line: an empty read is "not yet", not exit 0.
      const line = existsSync(path) ? /^exit=(\d+)\n$/.exec(readFileSync(path, "utf8")) : null;
      if (line) {
        rmSync(path);
        return Number(line[1]);
      }
      await Bun.sleep(20);
    }
    throw new Error("pick did not exit");
  };

  /** The row the selection marker is on. */
  const selectedRow = (screen: string[]) => screen.find((row) => row.startsWith("› ")) ?? "";

  test("typing changes the results, moving changes the preview, and an empty query lists this project first", async () => {
    const term = await startPick("");
    let screen = await term.waitForText("recent sessions");
    // Run in the webapp folder: its sessions come first, newest first (the docker session, 3 days old).
    expect(selectedRow(screen)).toContain("Fix the docker bridge network");
    expect(selectedRow(screen)).toContain("3 d ago");
    term.type("docker bridge");
    screen = await term.waitFor(
      (rows) => rows[1]!.includes("for “docker bridge” · keyword") && selectedRow(rows).includes("docker"),
    );
    expect(screen[0]).toContain("recall › docker bridge");
    // The preview shows the best turn, its prompt and the tool it ran.
    screen = await term.waitForText("the containers cannot reach each other over the docker bridge network");
    expect(screen.find((row) => row.startsWith("turn 1 of 2"))).toContain("Bash");
    term.press("C-u");
    term.type("rate limiter");
    await term.waitFor((rows) => selectedRow(rows).includes("Rate limiter for the gone api"));
    await term.waitForText("add a token bucket rate limiter");
    term.press("C-u");
    await term.waitForText("recent sessions");
    term.press("Down");
    screen = await term.waitFor((rows) => !selectedRow(rows).includes("docker"));
    const second = selectedRow(screen);
    expect(second).not.toBe("");
    term.press("C-p");
    screen = await term.waitFor((rows) => selectedRow(rows).includes("docker"));
    term.press("End");
    screen = await term.waitFor((rows) => selectedRow(rows) !== "" && !selectedRow(rows).includes("docker"));
    term.press("Home");
    await term.waitFor((rows) => selectedRow(rows).includes("docker"));
    term.press("Escape");
    expect(await exitStatus()).toBe(130);
  });

  test("Tab lists the session's matching turns; Ctrl-O reads the turn with its tool calls; Esc goes back to where Ctrl-O was pressed", async () => {
    const term = await startPick("docker network", { columns: 80, rows: 16 });
    await term.waitFor((rows) => selectedRow(rows).includes("Fix the docker bridge network"));
    term.press("Tab");
    // A frame can be captured half drawn: wait for the rows too, not only the status line.
    let screen = await term.waitFor(
      (rows) => rows[1]!.includes("matching turns of 2") && /turn 1 /.test(selectedRow(rows)),
    );
    expect(selectedRow(screen)).toMatch(/turn 1 /);
    term.press("C-o");
    screen = await term.waitForText("── Turn 1");
    const text = screen.join("\n");
    expect(text).toContain("claude --resume"); // the resume line, wrapped to the width
    // Scrollable in place: End shows the last rows (the tool call, as `recall show` prints it), Home the first again.
    const total = Number(/row 1 of (\d+)/.exec(text)?.[1]);
    expect(total).toBeGreaterThan(12);
    term.press("End");
    screen = await term.waitFor((rows) => !rows[1]!.includes("row 1 of"));
    expect(screen.join("\n")).toContain("[Bash] docker network create appnet");
    expect(screen.join("\n")).toContain("f3c1 appnet");
    expect(screen.join("\n")).not.toContain("project: "); // the first rows scrolled away
    term.press("Home");
    await term.waitForText("row 1 of");
    // Esc goes back one level: to the turn list Ctrl-O was pressed from, then to the sessions.
    term.press("Escape");
    screen = await term.waitFor(
      (rows) => rows[1]!.includes("matching turns of 2") && /turn 1 /.test(selectedRow(rows)),
    );
    term.press("Escape");
    screen = await term.waitFor((rows) => rows[1]!.includes("for “docker network”"));
    expect(selectedRow(screen)).toContain("Fix the docker bridge network");
    // Ctrl-O from the session list reads the best turn; Esc comes back to the session list, not the turns.
    term.press("C-o");
    await term.waitForText("── Turn 1");
    term.press("Escape");
    screen = await term.waitFor((rows) => rows[1]!.includes("for “docker network”"));
    expect(selectedRow(screen)).toContain("Fix the docker bridge network");
    term.press("C-c");
    expect(await exitStatus()).toBe(130);
  });

  test("a resize redraws the screen at the new size, down to 60×15", async () => {
    const term = await startPick("caching", { columns: 100, rows: 30 });
    await term.waitFor((rows) => selectedRow(rows).includes("Filler"));
    term.resize(60, 15);
    // Until the picker redraws, tmux shows the bottom of the old screen: wait for the new frame's first and last rows.
    const screen = await term.waitFor(
      (rows) => rows.length === 15 && rows[0]!.includes("recall ›") && rows[14]!.includes("move"),
    );
    expect(screen[0]).toContain("recall › caching");
    for (const row of screen) expect(cellWidth(row)).toBeLessThanOrEqual(60);
    expect(screen.filter((row) => row.includes("Filler")).length).toBeGreaterThanOrEqual(3);
    expect(screen.some((row) => /^─{60}$/.test(row))).toBe(true);
    term.press("Escape");
    expect(await exitStatus()).toBe(130);
  });

  test("issue 42: the list fetches the rows it shows and 5 more; moving down near their end and a taller terminal fetch the rest", async () => {
    // 12 filler sessions match; a 60×15 terminal shows 4 rows of the list, so 9 are fetched
    const term = await startPick("caching", { columns: 60, rows: 15 });
    await term.waitFor((rows) => rows[1]!.includes("first 9 sessions for “caching”"));
    for (let i = 0; i < 6; i++) term.press("Down"); // at once: each key moves, however many one read holds
    await term.waitFor((rows) => rows[1]!.includes("12 sessions for “caching”") && !rows[1]!.includes("first"));
    term.press("Escape");
    expect(await exitStatus()).toBe(130);

    const small = await startPick("caching", { columns: 60, rows: 15 });
    await small.waitFor((rows) => rows[1]!.includes("first 9 sessions"));
    small.resize(100, 40); // 16 rows of list: all 12 are fetched and shown
    const screen = await small.waitFor(
      (rows) =>
        rows[1]!.includes("12 sessions for “caching”") && rows.filter((row) => row.includes("Filler")).length === 12,
    );
    expect(screen[1]).not.toContain("first");
    small.press("Escape");
    expect(await exitStatus()).toBe(130);
  });

  test("at 60×15 a wrapped preview row starts with its word, not the space the break fell on", async () => {
    const term = await startPick("docker network", { columns: 60, rows: 15 });
    // The answer's "create a" fills 60 cells exactly: the break falls on the space before "user-defined".
    const screen = await term.waitFor((rows) => rows.some((row) => row.includes("user-defined bridge instead.")));
    const divider = screen.findIndex((row) => /^─{60}$/.test(row));
    const preview = screen.slice(divider + 1, -1).filter((row) => row !== "");
    expect(preview).toContain("The bridge network has no DNS for default networks; create a");
    expect(preview).toContain("user-defined bridge instead.");
    for (const row of preview) expect(row).not.toMatch(/^ /);
    term.press("Escape");
    expect(await exitStatus()).toBe(130);
  });

  test("colours only without NO_COLOR; a Chinese title keeps the columns aligned", async () => {
    const colourful = await startPick("", { env: { NO_COLOR: "" } });
    await colourful.waitForText("recent sessions");
    // SGR colour codes (foreground 30–37, 90–97, 256 colours); bold and inverse are not colours.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
    const colourCodes = /\u001b\[[0-9;]*(?:3[0-7]|9[0-7]|38;5;\d+)m/;
    expect(colourful.screen(true).join("\n")).toMatch(colourCodes);
    colourful.press("Escape");
    await exitStatus();
    colourful.close();

    // Started outside every project: the recent sessions in date order, the Chinese one (2 days) first.
    const plain = await startPick("", { cwd: root });
    const screen = await plain.waitFor(
      (rows) => rows.some((row) => row.includes("修复调度器")) && rows.some((row) => row.includes("Rate limiter")),
    );
    expect(plain.screen(true).join("\n")).not.toMatch(colourCodes);
    const chinese = screen.find((row) => row.includes("修复调度器"))!;
    const latin = screen.find((row) => row.includes("Rate limiter"))!;
    // The date column starts at the same cell in both rows, although the Chinese characters take two cells each.
    const dateCell = (row: string, date: string) => cellWidth(row.slice(0, row.indexOf(date)));
    expect(dateCell(chinese, "2 d ago")).toBe(dateCell(latin, "5 d ago"));
    expect(cellWidth(chinese)).toBeLessThanOrEqual(100);
    plain.press("Escape");
    expect(await exitStatus()).toBe(130);
  });

  test("quitting leaves the terminal as it was: no raw mode, cursor shown, main screen", async () => {
    const term = await startPick("docker");
    await term.waitFor((rows) => selectedRow(rows).includes("docker"));
    term.press("Escape");
    expect(await exitStatus()).toBe(130);
    term.run(`stty -a > ${root}/stty-after`);
    await term.waitFor(() => {
      try {
        return readFileSync(join(root, "stty-after"), "utf8").includes("icanon");
      } catch {
        return false;
      }
    });
    const stty = readFileSync(join(root, "stty-after"), "utf8");
    expect(stty).toMatch(/(^|\s)icanon(\s|$)/);
    expect(stty).toMatch(/(^|\s)echo(\s|$)/);
    // Back on the main screen: the shell's own lines are visible again, the picker's are gone.
    const screen = term.screen();
    expect(screen.join("\n")).toContain("pick docker");
    expect(screen.some((row) => row.includes("recall ›"))).toBe(false);
  });

  test("Enter replaces recall with the resume command, run in the project folder with the terminal restored", async () => {
    const term = await startPick("docker bridge");
    await term.waitFor((rows) => selectedRow(rows).includes("Fix the docker bridge network"));
    term.press("Enter");
    expect(await exitStatus()).toBe(0);
    const recorded = history.recorded();
    expect(recorded?.argv).toEqual(["--resume", ids.docker]);
    expect(recorded?.cwd).toBe(history.webapp);
    expect(recorded?.stty).toMatch(/(^|\s)icanon(\s|$)/);
    expect(term.screen().some((row) => row.includes("recall ›"))).toBe(false);
  });

  test("a session whose folder is gone, or whose source is deleted, is said with the command to copy", async () => {
    let term = await startPick("rate limiter");
    await term.waitFor((rows) => selectedRow(rows).includes("Rate limiter for the gone api"));
    term.press("Enter");
    expect(await exitStatus()).toBe(1);
    let text = (await term.waitForText("cannot resume")).join("\n");
    expect(text).toContain(`the project folder ${join(root, "projects", "gone-api")} no longer exists`);
    expect(text).toContain(`claude --resume ${ids.goneFolder}`);
    expect(history.recorded()).toBeUndefined();
    term.close();

    term = await startPick("billing schema");
    await term.waitFor((rows) => selectedRow(rows).includes("Migrate the archived billing schema"));
    expect(term.screen().join("\n")).toContain("source deleted, kept by recall");
    term.press("Enter");
    expect(await exitStatus()).toBe(1);
    text = (await term.waitForText("cannot resume")).join("\n");
    expect(text).toContain("was deleted");
    expect(text).toContain(`recall show ${ids.archived}`);
  });

  test("session text cannot drive the terminal, and secrets stay redacted, in the list, the preview and level 3", async () => {
    const term = await startPick("rotate deploy token");
    await term.waitFor((rows) => selectedRow(rows).includes("Rotate the"));
    let screen = await term.waitForText("rotate the deploy token, the old one");
    let text = screen.join("\n");
    expect(selectedRow(screen)).toContain("Rotate the \\x1b]0;pwned\\x07 deploy");
    expect(text).toContain("[REDACTED:");
    expect(text).not.toContain(plantedToken.secret);
    expect(text).toContain("\\x1b[31min red\\x1b[0m");
    term.press("C-o");
    screen = await term.waitForText("── Turn 1");
    text = screen.join("\n");
    expect(text).toContain("[REDACTED:");
    expect(text).not.toContain(plantedToken.secret);
    expect(text).toContain("\\x1b[2J");
    // Nothing was cleared or retitled: the raw escapes never reached the terminal.
    expect(term.screen(true).join("\n")).not.toContain("\u001b]0;pwned");
    term.press("Escape"); // back to the list (two Escapes sent at once would read as one Alt-Escape)
    await term.waitForText("tab turns");
    term.press("Escape");
    expect(await exitStatus()).toBe(130);
  });

  test("Ctrl-G hands the terminal to $PAGER with the turn, then the picker comes back", async () => {
    const paged = join(root, "paged");
    const term = await startPick("docker bridge", { env: { PAGER: `cat > ${paged}` } });
    await term.waitFor((rows) => selectedRow(rows).includes("Fix the docker bridge network"));
    await term.waitForText("the containers cannot reach each other");
    term.press("C-g");
    for (let waited = 0; waited < 5000 && !existsSync(paged); waited += 20) await Bun.sleep(20);
    await term.waitForText("recall › docker bridge");
    expect(readFileSync(paged, "utf8")).toContain("[Bash] docker network create appnet");
    term.press("Down", "Up");
    await term.waitFor((rows) => selectedRow(rows).includes("Fix the docker bridge network"));
    term.press("Escape");
    expect(await exitStatus()).toBe(130);
  });

  test("SIGTERM and SIGHUP end the picker with the terminal restored (exit 143, 129)", async () => {
    for (const [signal, code] of [
      ["SIGTERM", 143],
      ["SIGHUP", 129],
    ] as const) {
      const term = await startPick("docker");
      await term.waitFor((rows) => selectedRow(rows).includes("docker"));
      const pick = Bun.spawnSync(["pgrep", "-f", "-n", "src/cli.ts pick docker"]).stdout.toString().trim();
      expect(pick).toMatch(/^\d+$/);
      process.kill(Number(pick), signal);
      expect(await exitStatus()).toBe(code);
      term.run(`stty -a > ${root}/stty-after`);
      await term.waitFor(
        () => existsSync(join(root, "stty-after")) && readFileSync(join(root, "stty-after"), "utf8").includes("icanon"),
      );
      expect(readFileSync(join(root, "stty-after"), "utf8")).toMatch(/(^|\s)icanon(\s|$)/);
      expect(term.screen().some((row) => row.includes("recall ›"))).toBe(false);
      rmSync(join(root, "stty-after"));
      term.close();
    }
  });

  test("--print prints the command instead of running it", async () => {
    const term = await startPick(`docker bridge --print > ${join(root, "printed")}`);
    await term.waitFor((rows) => selectedRow(rows).includes("Fix the docker bridge network"));
    term.press("Enter");
    expect(await exitStatus()).toBe(0);
    expect(readFileSync(join(root, "printed"), "utf8")).toBe(`cd ${history.webapp} && claude --resume ${ids.docker}\n`);
    expect(history.recorded()).toBeUndefined();
  });
});

(hasTmux ? describe : describe.skip)("recall pick with an embedding endpoint", () => {
  let root: string;
  let history: PickHistory;
  let embeddings: ReturnType<typeof startHashEmbeddings>;
  let terminal: TmuxTerminal | undefined;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "recall-pick-semantic-"));
    history = preparePickHistory(root);
    embeddings = startHashEmbeddings();
    history.env.EMBEDDINGS_URL = embeddings.url;
    // Spawned, not spawnSync: the endpoint answers from this process's event loop.
    const index = spawnCli(["index"], history.env, { stdout: "ignore", stderr: "ignore" });
    expect(await index.exited).toBe(0);
  });
  afterAll(() => {
    embeddings.close();
    rmSync(root, { recursive: true, force: true });
  });
  afterEach(() => {
    terminal?.close();
    terminal = undefined;
  });

  test("keyword results come at once, then the hybrid ranking replaces them without a key press", async () => {
    terminal = TmuxTerminal.start(100, 30, history.env);
    await terminal.waitForText("$");
    terminal.run(`cd ${history.webapp} && ${history.recall} pick`);
    await terminal.waitForText("recent sessions");
    terminal.type("containers cannot reach each other");
    // Poll the status line: the keyword answer is on screen first, the hybrid one follows by itself.
    const seen: string[] = [];
    await terminal.waitFor((rows) => {
      const status = rows[1]!;
      if (status.includes("for “containers cannot reach each other”") && seen.at(-1) !== status) seen.push(status);
      return status.includes("· hybrid");
    });
    // "keyword", or "keyword (hybrid next)" once the leg is known to be coming.
    expect(seen[0]).toMatch(/· keyword/);
    expect(seen.at(-1)).toContain("· hybrid");
    expect(seen.findIndex((status) => status.includes("· hybrid"))).toBeGreaterThan(0);
    const screen = terminal.screen();
    expect(screen.find((row) => row.startsWith("› "))).toContain("Fix the docker bridge network");
    terminal.press("Escape");
  });
});

(hasTmux ? describe : describe.skip)("recall pick with a local model, through the warm embedding helper", () => {
  let root: string;
  let history: PickHistory;
  let terminal: TmuxTerminal | undefined;
  const helperPids = (): number[] => {
    const dir = join(history.env.RECALL_HOME!, "helpers");
    return existsSync(dir)
      ? readdirSync(dir)
          .filter((name) => name.endsWith(".log"))
          .flatMap((name) =>
            [...readFileSync(join(dir, name), "utf8").matchAll(/\(pid (\d+),/g)].map((match) => Number(match[1])),
          )
      : [];
  };
  const isAlive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "recall-pick-helper-"));
    history = preparePickHistory(root);
    Object.assign(history.env, { RECALL_MODEL: getTestModelPath(), RECALL_EMBED_HELPER: "on" });
    const index = runCli(["index"], history.env);
    expect(index.exitCode).toBe(0);
  });
  afterAll(async () => {
    terminal?.close();
    for (const pid of helperPids()) if (isAlive(pid)) process.kill(pid, "SIGTERM");
    for (let waited = 0; helperPids().some(isAlive) && waited < 10_000; waited += 50) await Bun.sleep(50);
    rmSync(root, { recursive: true, force: true });
  });

  test("the picker starts the helper in the background and ranks hybrid once it answers", async () => {
    terminal = TmuxTerminal.start(100, 30, history.env);
    await terminal.waitForText("$");
    terminal.run(`cd ${history.webapp} && ${history.recall} pick docker bridge`);
    // Keyword results at once, while the helper is still starting; the hybrid ranking follows by itself.
    await terminal.waitFor((rows) => rows[1]!.includes("for “docker bridge”"));
    await terminal.waitFor((rows) => rows[1]!.includes("for “docker bridge” · hybrid"), 60_000);
    expect(terminal.screen().find((row) => row.startsWith("› "))).toContain("Fix the docker bridge network");
    expect(helperPids().some(isAlive)).toBe(true);
    terminal.press("Escape");
  });
});

suite("recall pick brings the index up to date behind its first answer", () => {
  let root: string;
  let history: PickHistory;
  let terminal: TmuxTerminal | undefined;
  const newId = "0a1b2c3d-6666-4666-8666-000000000006";

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "recall-pick-refresh-"));
    history = preparePickHistory(root);
  });
  afterAll(() => {
    terminal?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test("a session written since the last index run comes into the list once the background run commits", async () => {
    const folder = join(root, "claude", "projects", history.webapp.replace(/[/.]/g, "-"));
    writeClaudeSession(join(folder, `${newId}.jsonl`), {
      sessionId: newId,
      cwd: history.webapp,
      startMs: Date.now() - 60_000,
      title: "Tune the websocket heartbeat",
      turns: [
        { prompt: "the websocket drops every minute", response: "Set the heartbeat to 25 s, under the proxy's 60 s." },
      ],
    });
    terminal = TmuxTerminal.start(100, 30, history.env);
    await terminal.waitForText("$");
    terminal.run(`cd ${history.webapp} && ${history.recall} pick`);
    // The first answer comes from the index as committed; the run that adds the new session starts after it.
    await terminal.waitFor((rows) => rows[1]!.startsWith("recent sessions ("));
    await terminal.waitForText("Tune the websocket heartbeat", 30_000);
    await terminal.waitForText("index updated: 1 session changed");
    terminal.press("Escape");
  });
});

describe("recall pick without a terminal", () => {
  test("refuses in one line that points to recall search (exit 2)", () => {
    const run = runCli(
      ["pick", "docker"],
      { ...process.env, RECALL_HOME: join(tmpdir(), "recall-pick-no-tty-unused") },
      { stdin: "" }, // a pipe, not a terminal
    );
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      'recall: recall pick needs a terminal (its stdin is not one); from a script or an agent, use recall search "<query>"\n',
    );
    expect(run.stdout).toBe("");
  });
});
