import { afterAll, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { aiderParser } from "../../src/parsers/aider.ts";
import {
  findSessionBlocks as findAiderSessionBlocks,
  sessionIdOf as aiderSessionIdOf,
} from "../../src/parsers/aider/sessions.ts";
import { parseAiderUnit } from "../../src/parsers/aider/parse.ts";
import { SourceError } from "../../src/errors.ts";
import type { SourceUnit, Turn } from "../../src/parsers/types.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/aider");
const projectA = join(fixtures, "project-a/.aider.chat.history.md");
const sameSecond = join(fixtures, "same-second/.aider.chat.history.md");
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "recall-aider-"));
  temps.push(dir);
  return dir;
}

function unitsOf(root: string): SourceUnit[] {
  return aiderParser.listUnits(aiderParser.scan([root]).containers);
}

/** Turns as [number, prompt, response, tool names with inputs, files]. */
function summary(turns: Turn[]): Array<[number, string, string, string[], string[]]> {
  return turns.map((turn) => [
    turn.number,
    turn.prompt,
    turn.response,
    turn.toolCalls.map((call) => `${call.name} ${call.input}`),
    turn.files,
  ]);
}

describe("aider sessions and units", () => {
  test("each '# aider chat started at' block of a history file is one unit with a stable id", () => {
    const units = unitsOf(join(fixtures, "project-a"));
    expect(units.map((unit) => unit.sessionId)).toEqual([
      aiderSessionIdOf(projectA, "# aider chat started at 2026-03-01 10:00:00", 1),
      aiderSessionIdOf(projectA, "# aider chat started at 2026-03-02 09:30:15", 1),
    ]);
    expect(units[0]!.sessionId).toMatch(/^aider-[0-9a-f]{12}$/);
    expect(units.every((unit) => unit.containerPath === projectA && unit.source === "aider")).toBe(true);
    expect(units[0]!.locator).toMatchObject({ start: 1, header: "# aider chat started at 2026-03-01 10:00:00" });
    expect(units[1]!.locator?.end).toBeNull();
    expect(unitsOf(join(fixtures, "project-a")).map((unit) => unit.changeKey)).toEqual(
      units.map((unit) => unit.changeKey),
    );
  });

  test("the same start line twice in one file (a restart within a second) still gives distinct ids", () => {
    const ids = unitsOf(sameSecond).map((unit) => unit.sessionId);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(`${ids[0]}-2`);
    const parsed = unitsOf(sameSecond).map((unit) => aiderParser.parse(unit).turns[0]!.prompt);
    expect(parsed).toEqual(["first run", "second run"]);
  });

  test("appending to the last session leaves the older session's change key alone, and starting a new one too", () => {
    const dir = tempDir();
    const file = join(dir, ".aider.chat.history.md");
    writeFileSync(file, readFileSync(projectA));
    const before = unitsOf(dir);
    appendFileSync(file, "\n#### one more  \n\nSure.\n\n");
    const grown = unitsOf(dir);
    expect(grown[0]!.changeKey).toBe(before[0]!.changeKey);
    expect(grown[1]!.changeKey).not.toBe(before[1]!.changeKey);
    appendFileSync(file, "\n# aider chat started at 2026-03-03 11:00:00\n\n");
    const started = unitsOf(dir);
    expect(started).toHaveLength(3);
    expect(started[1]!.changeKey).toBe(grown[1]!.changeKey);
    expect(started[1]!.locator?.end).toBe(started[2]!.locator?.start as number);
  });

  test("a header only counts as a whole line at a line start", () => {
    const text =
      "x # aider chat started at 2026-01-01 00:00:00\n# aider chat started at 2026-01-01 00:00:00 extra\n\n# aider chat started at 2026-01-02 03:04:05\n";
    const blocks = findAiderSessionBlocks(Buffer.from(text));
    expect(blocks.map((block) => block.header)).toEqual(["# aider chat started at 2026-01-02 03:04:05"]);
  });

  test("issue 26: the text before the first header is a session: the cut-off turn, then its prompts, with a stable id", () => {
    const cutStart = join(fixtures, "cut-start/.aider.chat.history.md");
    const warnings: string[] = [];
    const units = aiderParser.listUnits(aiderParser.scan([cutStart]).containers, {
      onWarning: (message) => warnings.push(message),
    });
    expect(warnings).toEqual([]);
    expect(units.map((unit) => unit.sessionId)).toEqual([
      aiderSessionIdOf(cutStart, "", 1),
      aiderSessionIdOf(cutStart, "# aider chat started at 2026-04-02 09:15:00", 1),
    ]);
    expect(units[0]!.locator).toMatchObject({
      start: 0,
      header: "",
      nextHeader: "# aider chat started at 2026-04-02 09:15:00",
    });
    const [before, after] = units.map((unit) => aiderParser.parse(unit));
    expect(summary(before!.turns)).toEqual([
      [
        1,
        "",
        "the totals are summed twice in `report()`. Here is the fix:",
        ["Edit report.py", "GitCommit 4be1f0a fix: sum the report rows once"],
        ["report.py"],
      ],
      [
        2,
        "now print the total with two decimals",
        "Use a format string:",
        ["Edit report.py", "GitCommit 9d2c7e1 feat: print the total with two decimals"],
        ["report.py"],
      ],
    ]);
    // No header time: a prompt takes its .aider.input.history entry (before the first header), the cut-off turn 0.
    const typed = new Date(2026, 3, 1, 17, 40, 2, 125).getTime();
    expect(before!.turns.map((turn) => turn.timestamp)).toEqual([0, typed]);
    expect(before!.session).toMatchObject({ startedAt: typed, endedAt: typed, turnCount: 2, location: cutStart });
    expect(summary(after!.turns)).toEqual([
      [
        1,
        "/ask does report.py need tests?",
        "Yes: one test of `report()` with two rows would have caught the double sum.",
        [],
        [],
      ],
    ]);
  });

  test("issue 26: a file of white space alone holds no session and is rejected; a zero-byte file is unavailable", () => {
    const blank = tempDir();
    writeFileSync(join(blank, ".aider.chat.history.md"), "\n\n  \n");
    const rejected: string[] = [];
    const listed = aiderParser.listUnits(aiderParser.scan([blank]).containers, {
      onRejected: (path, reason) => rejected.push(`${path}: ${reason}`),
    });
    expect(listed).toEqual([]);
    expect(rejected).toEqual([`${join(blank, ".aider.chat.history.md")}: no aider chat session`]);
    const empty = tempDir();
    writeFileSync(join(empty, ".aider.chat.history.md"), "");
    const unavailable: string[] = [];
    expect(
      aiderParser.listUnits(aiderParser.scan([empty]).containers, {
        onUnavailable: (path, reason) => unavailable.push(`${path}: ${reason}`),
        onRejected: (path, reason) => rejected.push(`${path}: ${reason}`),
      }),
    ).toEqual([]);
    expect(unavailable).toEqual([`${join(empty, ".aider.chat.history.md")}: empty file`]);
    expect(rejected).toHaveLength(1);
  });
});

describe("aider shapes of real large histories (issue 26; reductions in test/fixtures/aider/README.md)", () => {
  const windows = join(fixtures, "windows-architect");
  const [architect] = unitsOf(windows).map((unit) => aiderParser.parse(unit, { withOutputs: true }));

  test("the architect's answer handed to the editor is no prompt: one turn per human prompt, with the editor's edits", () => {
    expect(architect!.session.turnCount).toBe(1);
    const [turn] = architect!.turns;
    expect(turn!.prompt).toStartWith("1. Read TODO.md and find the first task marked with [ ].");
    expect(turn!.response).toBe(
      [
        "The first open task is 6.5: move the ship with physics.",
        "",
        "1. In `ShipNavigation.cs`, read the position from `rb.position`.",
        "2. Move with `rb.MovePosition()` instead of setting `transform.position`.",
        "",
        "The line sets `transform.position` from `target`, not `next`. Here is the fixed block:",
      ].join("\n"),
    );
    expect(turn!.toolCalls.map((call) => `${call.name} ${call.input}`)).toEqual([
      "GitCommit 48fbdba fix: read the ship position from the rigidbody",
      "Edit Assets\\Scripts\\Navigation\\ShipNavigation.cs",
      "GitCommit 2cf3cab fix: move the ship with rb.MovePosition",
    ]);
    // The prompt's time is its .aider.input.history entry, the session starts at the header.
    expect(turn!.timestamp).toBe(new Date(2026, 1, 23, 23, 37, 52, 46).getTime());
  });

  test("a failed-match report stays a status although its code has lines of spaces; the start-up command line too", () => {
    const text = JSON.stringify(architect!.turns);
    expect(text).not.toContain("SearchReplaceNoExactMatch");
    expect(text).not.toContain("The SEARCH section must exactly match");
    expect(text).not.toContain("--architect --message");
    expect(architect!.turns[0]!.toolCalls.every((call) => !call.input.includes("SearchReplace"))).toBe(true);
  });

  const [confirmAll] = unitsOf(join(fixtures, "confirm-all")).map((unit) =>
    aiderParser.parse(unit, { withOutputs: true }),
  );

  test("a file added by a remembered (A)ll answer is one Read, not a Read of the question", () => {
    expect(confirmAll!.turns[0]!.toolCalls.filter((call) => call.name === "Read").map((call) => call.input)).toEqual([
      "src\\pages\\index.astro",
      "src\\layouts\\BaseLayout.astro",
    ]);
  });

  test("an edit aider reports with Windows separators takes the line counts and text of the model's blocks", () => {
    const edit = confirmAll!.turns[0]!.toolCalls.find((call) => call.name === "Edit")!;
    expect(edit).toMatchObject({ input: "src\\pages\\index.astro", linesAdded: 5, linesRemoved: 4 });
    expect(edit.output).toContain("import { Image } from 'astro:assets';");
  });

  test("a block aider did not apply (the new file was declined) stays in the reply", () => {
    const turn = confirmAll!.turns[0]!;
    expect(confirmAll!.session.turnCount).toBe(1);
    expect(turn.response).toEndWith(
      'src/components/Footer.astro\n```astro\n<<<<<<< SEARCH\n=======\n<footer class="site-footer"><slot /></footer>\n>>>>>>> REPLACE\n```',
    );
    expect(turn.toolCalls.map((call) => call.name)).toEqual(["Read", "Read", "Edit", "GitCommit"]);
  });
});

describe("aider turns", () => {
  const [first, second] = unitsOf(join(fixtures, "project-a")).map((unit) => aiderParser.parse(unit));

  test("the session: project = the folder of the history file, times from the header (local time), no branch or title", () => {
    expect(first!.session).toEqual({
      id: first!.session.id,
      source: "aider",
      projectPath: join(fixtures, "project-a"),
      projectName: "project-a",
      gitBranch: null,
      startedAt: new Date(2026, 2, 1, 10, 0, 0).getTime(),
      endedAt: new Date(2026, 2, 1, 10, 0, 0).getTime(),
      title: null,
      turnCount: 8,
      parentSessionId: null,
      isSubagent: false,
      location: projectA,
    });
    expect(first!.fromTurn).toBe(1);
    expect(first!.skipped).toEqual({ count: 0 });
    expect(first!.turns.every((turn) => turn.timestamp === first!.session.startedAt && !turn.isSubagent)).toBe(true);
  });

  test("prompts, replies and tool calls follow what aider logged", () => {
    expect(summary(first!.turns)).toEqual([
      [1, "/add src/app.py", "", ["Read src/app.py"], ["src/app.py"]],
      [
        2,
        "Rename the function greet to hello\nand keep the old name as an alias",
        "I will rename the function.\n\n#### Plan\n> Note: the alias keeps old callers working.\n\nDone.",
        ["Edit src/app.py", "GitCommit 1b2614a feat: rename greet to hello"],
        ["src/app.py"],
      ],
      [
        3,
        "/code add a README",
        "Creating the README:",
        ["Write README.md", "GitCommit bf98f22 docs: add README"],
        ["README.md"],
      ],
      [4, "/run pytest -q", "", ["Bash pytest -q"], []],
      [
        5,
        "fix the failing test",
        "Run this:\n\n```bash\npytest -q tests/test_app.py\n```",
        ["Bash pytest -q tests/test_app.py", "Read tests/test_app.py"],
        ["tests/test_app.py"],
      ],
      [6, "/help how do I undo?", "Use `/undo` to undo the last aider commit.", [], []],
      [7, "!git status", "", ["Bash git status"], []],
      [8, "/drop", "", [], []],
    ]);
  });

  test("edits count the lines of their SEARCH/REPLACE blocks, in both the diff and the diff-fenced format", () => {
    const edit = first!.turns[1]!.toolCalls[0]!;
    expect(edit).toEqual({
      name: "Edit",
      input: "src/app.py",
      filePath: "src/app.py",
      isError: false,
      linesAdded: 4,
      linesRemoved: 2,
    });
    expect(first!.turns[2]!.toolCalls[0]).toMatchObject({
      name: "Write",
      filePath: "README.md",
      linesAdded: 1,
      linesRemoved: 0,
    });
  });

  test("a tool message whose lines after the first are not quoted stays out of the reply", () => {
    expect(summary(second!.turns)).toEqual([
      [1, "why does hello() return hi?", "It returns a constant string.\n\nSorry, here is the fix.", [], []],
      [2, "/exit", "", [], []],
    ]);
  });

  test("with outputs, edits carry their block and status-derived calls their line", () => {
    const full = aiderParser.parse(unitsOf(join(fixtures, "project-a"))[0]!, { withOutputs: true });
    const [edit, commit] = full.turns[1]!.toolCalls;
    expect(edit!.output).toBe(
      'src/app.py\n```python\n<<<<<<< SEARCH\ndef greet():\n    return "hi"\n=======\ndef hello():\n    return "hi"\n\ngreet = hello\n>>>>>>> REPLACE\n```',
    );
    expect(commit!.output).toBe("Commit 1b2614a feat: rename greet to hello");
    expect(aiderParser.parse(unitsOf(join(fixtures, "project-a"))[0]!).turns[1]!.toolCalls[0]!.output).toBeUndefined();
  });

  test("Windows line endings parse like Unix ones", () => {
    const dir = tempDir();
    const text = readFileSync(projectA, "utf8").replace(/\n/g, "\r\n");
    writeFileSync(join(dir, ".aider.chat.history.md"), text);
    const crlf = unitsOf(dir).map((unit) => summary(aiderParser.parse(unit).turns));
    expect(crlf).toEqual([summary(first!.turns), summary(second!.turns)]);
  });

  test("a unit without a locator is found by its id; a session gone from the file is a SourceError", () => {
    const unit = unitsOf(join(fixtures, "project-a"))[1]!;
    const bare = { ...unit, locator: undefined };
    expect(summary(parseAiderUnit(bare).turns)).toEqual(summary(second!.turns));
    expect(() => parseAiderUnit({ ...bare, sessionId: "aider-000000000000" })).toThrow(SourceError);
  });
});

describe("aider prompt times from .aider.input.history", () => {
  const withInput = join(fixtures, "with-input");
  const local = (hour: number, minute: number, second: number, ms = 0) =>
    new Date(2026, 3, 1, hour, minute, second, ms).getTime();

  test("each prompt takes the time of its entry inside the session's window; an unmatched one keeps the time before it", () => {
    const [morning, later] = unitsOf(withInput).map((unit) => aiderParser.parse(unit));
    expect(morning!.turns.map((turn) => [turn.prompt, turn.timestamp])).toEqual([
      ["hello there", local(9, 0, 10, 500)],
      ["/add a.py", local(9, 1, 0)],
      ["second\nline", local(9, 2, 0, 250)],
      ["not in input", local(9, 2, 0, 250)],
    ]);
    expect(morning!.session.startedAt).toBe(local(9, 0, 0));
    expect(morning!.session.endedAt).toBe(local(9, 2, 0, 250));
    // The same text typed in the next session belongs to that session's window only.
    expect(later!.turns.map((turn) => [turn.prompt, turn.timestamp])).toEqual([["hello there", local(10, 0, 5)]]);
    expect(later!.session.endedAt).toBe(local(10, 0, 5));
  });

  test("the input history's stats are part of the container fingerprint", () => {
    const dir = tempDir();
    writeFileSync(join(dir, ".aider.chat.history.md"), readFileSync(join(withInput, ".aider.chat.history.md")));
    const before = aiderParser.scan([dir]).containers[0]!.fingerprint;
    expect(before).toEndWith("|input:-");
    writeFileSync(join(dir, ".aider.input.history"), readFileSync(join(withInput, ".aider.input.history")));
    expect(aiderParser.scan([dir]).containers[0]!.fingerprint).not.toBe(before);
  });
});

describe("aider scan", () => {
  test("finds history files in the root and below it, skipping hidden and dependency folders", () => {
    const root = tempDir();
    const files = ["app/.aider.chat.history.md", ".aider.chat.history.md", "a/b/c/d/e/f/.aider.chat.history.md"];
    const skipped = [
      "node_modules/x/.aider.chat.history.md",
      ".venv/.aider.chat.history.md",
      "a/b/c/d/e/f/g/.aider.chat.history.md",
      "app/notes.md",
    ];
    for (const path of [...files, ...skipped]) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), "\n# aider chat started at 2026-01-01 00:00:00\n\n");
    }
    symlinkSync(join(root, "app"), join(root, "link-to-app"));
    const scan = aiderParser.scan([root, join(root, "missing")]);
    expect(scan.containers.map((container) => container.path)).toEqual(files.map((path) => join(root, path)).sort());
    expect(scan.missingRoots).toEqual([join(root, "missing")]);
    expect(scan.containers.every((container) => container.source === "aider" && container.sizeBytes === 46)).toBe(true);
    expect(scan.unavailable).toEqual([]);
  });

  test("a history file given as a root is one container; a relative root is made absolute", () => {
    expect(aiderParser.scan([projectA]).containers.map((container) => container.path)).toEqual([projectA]);
    const relative = aiderParser.scan([join("test/fixtures/aider/same-second")]);
    expect(relative.containers.map((container) => container.path)).toEqual([
      resolve("test/fixtures/aider/same-second/.aider.chat.history.md"),
    ]);
  });

  test.skipIf(process.getuid?.() === 0)("an unreadable folder is reported unavailable, not empty", () => {
    const root = tempDir();
    mkdirSync(join(root, "locked"));
    chmodSync(join(root, "locked"), 0o000);
    try {
      expect(aiderParser.scan([root]).unavailable).toEqual([
        { path: join(root, "locked"), reason: "permission denied" },
      ]);
    } finally {
      chmodSync(join(root, "locked"), 0o755);
    }
  });
});
