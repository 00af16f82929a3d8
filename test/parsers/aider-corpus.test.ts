import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { aiderParser } from "../../src/parsers/aider.ts";
import { corpusDir } from "../helpers/corpus.ts";

/**
 * Where every `#### ` prompt line and every assistant reply line of a history ended up: the lines (trimmed) that no
 * turn of any of its sessions holds in its prompt, reply or tool calls (parsed with outputs), as `<line>: <text>`.
 * The history is read here on its own, after aider's writer (aider/io.py), not with the parser's classifier:
 *   - `# aider chat started at …` starts a session; right after it, `>` lines are start-up status lines;
 *   - a prompt is a run of `####…  ` lines after a blank line; the echo of a chat command (`/code X` then `X`,
 *     `/help Q` then the docs retrieved for `# Question: Q`, `/ok`), `<blank>` and remembered confirmation answers
 *     are no prompt of their own;
 *   - a status is a `>` line; one without aider's two trailing spaces runs on to the next line that ends in a
 *     non-blank character and two spaces (or up to a prompt after a blank line);
 *   - reasoning (`<think>…</think>` and the like) is left out by design;
 *   - every other non-blank line is the assistant's reply and must be found.
 */
function unplacedLines(path: string): string[] {
  const kept = new Set<string>();
  for (const unit of aiderParser.listUnits(aiderParser.scan([path]).containers)) {
    for (const turn of aiderParser.parse(unit, { withOutputs: true }).turns) {
      const texts = [turn.prompt, turn.response, ...turn.toolCalls.flatMap((call) => [call.input, call.output ?? ""])];
      for (const text of texts) for (const line of text.split("\n")) kept.add(line.trim());
    }
  }
  const promptLine = /^####( .*)? {2}$/;
  const thinkOpen = /<(think|thinking|reasoning|thinking-content-[0-9a-f]+)>|► \*\*THINKING\*\*/;
  const thinkClose = /<\/(think|thinking|reasoning|thinking-content-[0-9a-f]+)>|► \*\*ANSWER\*\*/;
  const unplaced: string[] = [];
  let previous: "startup" | "blank" | "prompt" | "status" | "reply" = "blank";
  let inStatus = false;
  let statusBlank = false;
  let thinking = false;
  let prompt: string[] = [];
  let echo = false;
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((raw, index) => {
      const line = raw.replace(/\r+$/, "");
      if (inStatus && !(statusBlank && promptLine.test(line))) {
        statusBlank = line.trim() === "";
        if (/\S {2}$/.test(line)) {
          inStatus = false;
          previous = "status";
        }
        return;
      }
      inStatus = false;
      if (line.startsWith("# aider chat started at ")) {
        previous = "startup";
        return;
      }
      if (line.trim() === "") {
        if (previous !== "startup") previous = "blank";
        return;
      }
      if (promptLine.test(line) && previous !== "status" && previous !== "reply") {
        const text = line
          .replace(/^#### ?/, "")
          .replace(/ {2}$/, "")
          .trim();
        if (previous !== "prompt") {
          const command = /^\/(\w+)(?:\s+([\s\S]*))?$/.exec(prompt.join("\n"));
          const args = (command?.[2] ?? "").trim();
          echo =
            command !== null &&
            ((args.length > 0 && args.startsWith(text)) ||
              (command[1] === "help" && text === `# Question: ${args.split("\n")[0]}`) ||
              (command[1] === "ok" && text.startsWith("Ok, please go ahead and make those changes.")));
          prompt = [];
        }
        prompt.push(text);
        previous = "prompt";
        if (echo || text === "" || text === "<blank>" || /\(Y\)es\/\(N\)o/.test(text)) return;
        if (!kept.has(text)) unplaced.push(`${index + 1}: ${line}`);
        return;
      }
      if (line.startsWith(">") && previous !== "reply" && (line.endsWith("  ") || previous !== "blank")) {
        if (!line.endsWith("  ")) {
          inStatus = true;
          statusBlank = false;
        }
        if (previous !== "startup") previous = "status";
        return;
      }
      previous = "reply";
      if (thinkOpen.test(line)) thinking = true;
      if (thinking) {
        if (thinkClose.test(line)) thinking = false;
        return;
      }
      if (!kept.has(line.trim())) unplaced.push(`${index + 1}: ${line}`);
    });
  return unplaced;
}

/**
 * Histories the check reads: the corpus, this repository's fixtures (small faithful reductions of large real
 * histories, test/fixtures/aider/README.md), and any folders in RECALL_AIDER_HISTORIES (a path list: large real
 * histories kept outside the repository, such as the five of 0.7–1.8 MB the fixtures were reduced from).
 */
const checkedHistories = [
  ...(existsSync(join(corpusDir, "aider"))
    ? readdirSync(join(corpusDir, "aider")).map((name) => join(corpusDir, "aider", name))
    : []),
  ...readdirSync(resolve(import.meta.dir, "../fixtures/aider"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => resolve(import.meta.dir, "../fixtures/aider", entry.name)),
  ...(process.env.RECALL_AIDER_HISTORIES ?? "").split(delimiter).filter((path) => path.length > 0),
]
  .flatMap((root) => aiderParser.scan([root]).containers.map((container) => container.path))
  .sort();

describe("aider: nothing a user typed or the model answered is lost (issue 26)", () => {
  for (const path of checkedHistories) {
    test(`every #### prompt and every reply line of ${path.replace(/^.*\/(?=[^/]+\/[^/]+$)/, "")} is in a turn`, () => {
      expect(unplacedLines(path)).toEqual([]);
    });
  }
});

/** Real aider histories (v0.82.2, v0.86.1): `../shared/corpus/aider/<owner>__<repo>/` (origin and licences in SOURCES.md). */
const aiderCorpus = join(corpusDir, "aider");
const roots = existsSync(aiderCorpus)
  ? readdirSync(aiderCorpus)
      .sort()
      .map((name) => join(aiderCorpus, name))
  : [];

describe.skipIf(roots.length === 0)("aider parser on the real corpus (needs ../shared/corpus/aider)", () => {
  const scan = aiderParser.scan(roots);
  const warnings: string[] = [];
  const units = aiderParser.listUnits(scan.containers, {
    onWarning: (message) => warnings.push(message),
    onUnavailable: (path) => warnings.push(path),
  });
  const parsed = units.map((unit) => aiderParser.parse(unit));

  test("scan finds one history file per project folder and nothing else", () => {
    expect(scan.missingRoots).toEqual([]);
    expect(scan.unavailable).toEqual([]);
    expect(scan.containers.map((container) => container.path)).toEqual(
      roots.map((root) => join(root, ".aider.chat.history.md")),
    );
    expect(warnings).toEqual([]);
  });

  test("every session parses, with unique ids, header times and the turn invariants", () => {
    expect(new Set(units.map((unit) => unit.sessionId)).size).toBe(units.length);
    for (const result of parsed) {
      const { session, turns } = result;
      expect(result.skipped.count).toBe(0);
      expect(session.startedAt).toBeGreaterThan(Date.UTC(2025, 0, 1) - 86_400_000);
      expect(session.turnCount).toBe(turns.length);
      expect(turns.map((turn) => turn.number)).toEqual(turns.map((_, index) => index + 1));
      const times = turns.map((turn) => turn.timestamp);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(times.every((time) => time >= session.startedAt && time <= session.endedAt)).toBe(true);
      // Both histories were committed with their input history: every prompt finds its own time.
      expect(new Set(times).size).toBe(times.length);
      for (const turn of turns) {
        expect(turn.prompt.length).toBeGreaterThan(0);
        expect(turn.prompt.startsWith("# Question:")).toBe(false);
        expect(turn.response).not.toContain("<think>");
        expect(turn.response).not.toMatch(/^> (Tokens|Applied edit|Commit) /m);
        expect(turn.response).not.toContain(">>>>>>> REPLACE\n```\n\n> ");
        for (const call of turn.toolCalls) {
          expect(["Read", "Edit", "Write", "Bash", "GitCommit", "WebFetch"]).toContain(call.name);
          if (call.name === "GitCommit") expect(call.input).toMatch(/^[0-9a-f]{7,40} \S/);
          if (call.name === "Edit" || call.name === "Write" || call.name === "Read")
            expect(call.filePath).toBe(call.input);
        }
      }
    }
  });

  test("a chat command and its echo are one turn: no prompt repeats the arguments of the one before", () => {
    for (const { turns } of parsed) {
      for (let index = 1; index < turns.length; index++) {
        const command = /^\/\w+\s+([\s\S]+)$/.exec(turns[index - 1]!.prompt);
        if (command) expect(turns[index]!.prompt).not.toBe(command[1]!.trim());
      }
    }
  });

  test("the 0.86.1 history: every aider commit and edit becomes a tool call, edits with line counts", () => {
    const result = parsed.find((entry) => entry.session.projectName === "AbdulAlkawasmeh__metadata-aider")!;
    const text = readFileSync(result.session.location, "utf8");
    const calls = result.turns.flatMap((turn) => turn.toolCalls);
    expect(calls.filter((call) => call.name === "GitCommit")).toHaveLength(
      text.match(/^> Commit [0-9a-f]{7} /gm)!.length,
    );
    const edits = calls.filter((call) => call.name === "Edit" || call.name === "Write");
    expect(edits.length).toBe(text.match(/^> Applied edit to /gm)!.length);
    expect(edits.every((call) => (call.linesAdded ?? 0) > 0)).toBe(true);
    expect(result.turns[0]!.prompt).toBe(
      "Please create an .aidar.json file in the root directory of the project to track the entire project directory",
    );
  });

  test("the 0.82.2 history: an assistant's own '#### Heading' stays in its reply, reasoning and tool reports stay out", () => {
    const result = parsed.find((entry) => entry.session.projectName === "AndrewJacop__Simple-Calulator")!;
    const styled = result.turns.find((turn) => turn.prompt.startsWith("now I have: Module not found"))!;
    expect(styled.response).toContain("#### If you're using **npm**:");
    expect(styled.response.startsWith("The error you're encountering")).toBe(true);
    const bubble = result.turns.find((turn) => turn.prompt.startsWith("/code make the bubble to move"))!;
    expect(bubble.response).not.toContain("SearchReplaceNoExactMatch");
    expect(bubble.response).not.toContain("The other 5 SEARCH/REPLACE blocks");
    expect(result.turns.filter((turn) => turn.prompt.startsWith("/code ")).length).toBeGreaterThan(5);
  });
});
