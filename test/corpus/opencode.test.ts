import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { closeOpencodeDatabases, opencodeParser } from "../../src/parsers/opencode.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";
import { corpusDir, opencodeCorpusRoots } from "../helpers/corpus.ts";

const hasOpencodeCorpus = existsSync(join(corpusDir, "opencode"));
afterAll(closeOpencodeDatabases);

/** Expected values below were read by hand with sqlite3 / jq from the corpus files (2026-11-21). */
describe.skipIf(!hasOpencodeCorpus)("OpenCode real corpus (needs ../shared/corpus)", () => {
  const roots = hasOpencodeCorpus ? opencodeCorpusRoots() : [];
  const warnings: string[] = [];
  const { containers } = opencodeParser.scan(roots);
  const units: SourceUnit[] = opencodeParser.listUnits(containers, { onWarning: (message) => warnings.push(message) });
  const results = new Map<string, ParseResult>(units.map((unit) => [unit.sessionId, opencodeParser.parse(unit)]));
  const result = (id: string): ParseResult => {
    const found = results.get(id);
    if (!found) throw new Error(`corpus session ${id} not listed`);
    return found;
  };

  test("all three generations are found: two databases, one JSON storage, one legacy project", () => {
    expect(warnings).toEqual([]);
    const names = containers.map((container) => container.path.split("/opencode/").at(-1));
    expect(names.sort()).toEqual(["opencode-stable.db", "opencode.db", "project/global/storage", "storage"]);
    expect(units.length).toBe(7);
  });

  test("every session parses with nothing skipped and the invariants hold", () => {
    const ids = new Set<string>();
    for (const { session, turns, skipped, fromTurn } of results.values()) {
      expect(ids.has(session.id)).toBe(false);
      ids.add(session.id);
      expect(session.id).toMatch(/^ses_/);
      expect(skipped.count).toBe(0);
      expect(fromTurn).toBe(1);
      expect(session.turnCount).toBe(turns.length);
      expect(session.startedAt).toBeLessThanOrEqual(session.endedAt);
      expect(session.projectPath.endsWith(session.projectName)).toBe(true);
      turns.forEach((turn, index) => {
        expect(turn.number).toBe(index + 1);
        expect(turn.prompt.length).toBeGreaterThan(0);
        expect(turn.sessionId).toBe(session.id);
        if (index > 0) expect(turn.timestamp).toBeGreaterThanOrEqual(turns[index - 1]!.timestamp);
      });
    }
  });

  test("reading the corpus leaves no -wal or -shm files beside its databases", () => {
    for (const container of containers.filter((candidate) => candidate.path.endsWith(".db"))) {
      const dir = container.path.slice(0, container.path.lastIndexOf("/"));
      expect(readdirSync(dir).filter((name) => name.endsWith("-wal") || name.endsWith("-shm"))).toEqual([]);
    }
  });

  test("1.17.3 db: the portfolio session has 11 human prompts and the tools of its third turn", () => {
    const { session, turns } = result("ses_12be9f828ffeaiYkWjPssYhKmB");
    expect(session).toMatchObject({
      title: "Greeting",
      projectPath: "/home/build",
      projectName: "build",
      startedAt: 1781674674135,
      endedAt: 1781744064107,
    });
    expect(turns).toHaveLength(11);
    expect(turns[0]).toMatchObject({ prompt: "hi", response: "Hello! How can I help you?" });
    expect(turns[2]?.prompt).toStartWith("hello, i would like an about me, my projects and work experience");
    expect(turns[2]?.toolCalls.map((call) => call.name)).toEqual([
      "TodoWrite",
      "Write",
      "TodoWrite",
      "Write",
      "TodoWrite",
      "Write",
      "TodoWrite",
      "Bash",
      "Bash",
    ]);
    expect(turns[2]?.files).toEqual(["/home/build/index.html", "/home/build/styles.css", "/home/build/script.js"]);
    expect(turns[2]?.toolCalls[7]?.input).toBe("ls -la *.html *.css *.js");
    const allCalls = turns.flatMap((turn) => turn.toolCalls.map((call) => call.name));
    expect(allCalls.filter((name) => name === "Read")).toHaveLength(16);
    expect(allCalls.filter((name) => name === "Edit")).toHaveLength(10);
    expect(allCalls.filter((name) => name === "Bash")).toHaveLength(14);
  });

  test("1.17.3 db: the user's two `!` shell runs fold into the first turn, so the Flask session has 2 prompts", () => {
    const { turns } = result("ses_1279fce82ffeZOJhNwml1w1Fu4");
    expect(turns.map((turn) => turn.prompt.slice(0, 40))).toEqual([
      "I have a static HTML portfolio website. ",
      "help me commit and push the code to gith",
    ]);
    expect(turns[0]?.toolCalls.map((call) => `${call.name} ${call.input}`)).toEqual([
      "Glob **/* /home/build",
      "Write /home/build/server.py",
      "Write /home/build/requirements.txt",
      "Write /home/build/Procfile",
      "Bash ls",
      "Bash pwd",
    ]);
    expect(turns[0]?.response).toStartWith("Done! I've added three files to your project:\n\n1. **`server.py`**");
    expect(turns[0]?.response).toEndWith("`server.py`, `requirements.txt`, and `Procfile`.");
    expect(turns[1]?.toolCalls.map((call) => call.name)).toEqual(["Bash", "Bash", "Bash", "Question"]);
  });

  test("1.2.25 stable db: the single prompt whose reply failed with an API error", () => {
    const { session, turns } = result("ses_2c01b767bffeLXd7d6ewFC78It");
    expect(session.projectName).toBe("Week_11");
    expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([["hello", ""]]);
  });

  test("1.1.44 JSON storage: one prompt, the reply before the abort, directory from the session file", () => {
    const { session, turns } = result("ses_3ee1d6ebaffeYfaGO7ikV0heMc");
    expect(session).toMatchObject({
      projectPath: "/home/bot4u/Desktop/GEMINI",
      title: "EcoTrack presentation script planning plan mode review",
    });
    expect(turns).toHaveLength(1);
    expect(turns[0]?.prompt).toStartWith("don't use gemini.md for context here");
    expect(turns[0]?.response).toBe(
      "I'll help you create scripts for your presentation. Let me first read your EcoTrack_final.pdf file to understand the content.",
    );
    expect(turns[0]?.toolCalls).toEqual([]);
  });

  test("0.5.28 legacy layout: both sessions have their one prompt", () => {
    expect(result("ses_4343439b2ffe8vCbtGr04gHePJ").turns.map((turn) => turn.prompt)).toEqual([
      "Explain surface codes in Quantum error correction",
    ]);
    expect(result("ses_44234b4aeffe6EUGUjiyzSIEZV").turns.map((turn) => turn.prompt)).toEqual(["How are you"]);
  });
});
