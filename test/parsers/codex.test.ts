import { describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SourceError } from "../../src/errors.ts";
import { codexParser } from "../../src/parsers/codex.ts";
import { decodeOutput } from "../../src/parsers/codex/tools.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";
import { codexCorpusRoots, hasCorpus } from "../helpers/corpus.ts";
import { expectRescansMatchEachRoot, expectRescansMatchWholeWalk } from "../helpers/rescan.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/codex");
const home = join(fixtures, "home");
const ids = {
  main: "019c0000-aaaa-7000-8000-00000000000a",
  old: "019c0000-bbbb-7000-8000-00000000000b",
  review: "019c0000-cccc-7000-8000-00000000000c",
  fork: "019c0000-ffff-7000-8000-00000000000f",
  spawn: "019c0000-dddd-7000-8000-00000000000d",
  legacy: "01980000-eeee-7000-8000-00000000000e",
  nested: "019c0000-9999-7000-8000-000000000099",
  editor: "019c0000-7777-7000-8000-000000000077",
};

function unitsOf(...roots: string[]): SourceUnit[] {
  return codexParser.listUnits(codexParser.scan(roots).containers);
}

function parseId(id: string, roots: string[] = [home], withOutputs = false): ParseResult {
  const unit = unitsOf(...roots).find((candidate) => candidate.sessionId === id);
  if (!unit) throw new Error(`no unit for ${id}`);
  return codexParser.parse(unit, { withOutputs });
}

describe("codex scan: walking changed folders again (issue 42)", () => {
  test("each folder of a Codex home and of loose sample folders, walked alone, gives what the whole walk gave below it", () => {
    expect(expectRescansMatchWholeWalk(codexParser, [home])).toBeGreaterThan(3);
    expect(expectRescansMatchWholeWalk(codexParser, [fixtures])).toBeGreaterThan(10);
    expect(expectRescansMatchWholeWalk(codexParser, [join(home, "sessions")])).toBeGreaterThan(1);
  });

  test("inside a session tree only rollout-* files count, also when a day folder is walked alone", () => {
    const copy = mkdtempSync(join(tmpdir(), "recall-codex-rescan-"));
    try {
      cpSync(home, join(copy, ".codex"), { recursive: true });
      writeFileSync(join(copy, ".codex", "sessions", "2026", "03", "02", "notes.jsonl"), "{}\n");
      const day = join(copy, ".codex", "sessions", "2026", "03", "02");
      const rescan = codexParser.rescanFolders!([join(copy, ".codex")], [{ path: day, fingerprint: "x" }]);
      expect(rescan?.containers.map((container) => container.path)).toEqual([
        join(day, "rollout-2026-03-02T00-05-00-019c0000-cccc-7000-8000-00000000000c.jsonl"),
      ]);
      expect(expectRescansMatchWholeWalk(codexParser, [copy])).toBeGreaterThan(5);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test.skipIf(!hasCorpus)(
    "each folder of every corpus root, walked alone, gives what the whole walk gave (needs ../shared/corpus)",
    () => expect(expectRescansMatchEachRoot(codexParser, codexCorpusRoots())).toBeGreaterThan(10),
  );
});

describe("codex scan and units", () => {
  test("a Codex home yields the rollout files of sessions/ and archived_sessions/, fingerprinted with the title index, and its prompt history", () => {
    const scan = codexParser.scan([home]);
    expect(scan.containers.map((container) => container.path.slice(home.length + 1))).toEqual([
      `archived_sessions/rollout-2026-03-01T04-00-00-${ids.main}.jsonl`,
      "history.jsonl", // typed prompts: read by codex/history.ts (test/parsers/prompt-history.test.ts), never a rollout
      `sessions/2026/03/01/rollout-2026-03-01T04-00-00-${ids.main}.jsonl`,
      `sessions/2026/03/01/rollout-2026-03-01T06-00-00-${ids.old}.jsonl`,
      `sessions/2026/03/02/rollout-2026-03-02T00-05-00-${ids.review}.jsonl`,
      `sessions/2026/03/03/rollout-2026-03-03T03-00-00-${ids.fork}.jsonl`,
      `sessions/2026/03/03/rollout-2026-03-03T04-00-00-${ids.spawn}.jsonl`,
    ]);
    for (const container of scan.containers.filter((container) => !container.path.endsWith("/history.jsonl"))) {
      expect(container.fingerprint).toMatch(/^\d+:[\d.]+:[\d.]+:\d+\|index:\d+:/);
    }
    expect(scan.missingRoots).toEqual([]);
  });

  test("a sessions/ folder, a sample folder at any depth and a missing root are accepted", () => {
    expect(codexParser.scan([join(home, "sessions")]).containers).toHaveLength(5);
    const scan = codexParser.scan([join(fixtures, "samples"), join(fixtures, "nope")]);
    expect(scan.containers).toHaveLength(4);
    expect(scan.missingRoots).toEqual([join(fixtures, "nope")]);
    // other-tool.jsonl is a candidate outside a Codex home but has no session_meta: not a unit
    expect(
      unitsOf(join(fixtures, "samples"))
        .map((unit) => unit.sessionId)
        .sort(),
    ).toEqual([ids.legacy, ids.editor, ids.nested]);
  });

  test("an archived copy and a live copy of one thread become one unit, the larger live file", () => {
    const units = unitsOf(home);
    expect(units.map((unit) => unit.sessionId).sort()).toEqual(
      [ids.main, ids.old, ids.review, ids.fork, ids.spawn].sort(),
    );
    const main = units.find((unit) => unit.sessionId === ids.main);
    expect(main?.key).toContain("/sessions/2026/03/01/");
  });

  test("titles come from the last session_index.jsonl entry; a rename moves only that thread's change key", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-index-"));
    try {
      cpSync(home, dir, { recursive: true });
      const before = codexParser.scan([dir]);
      const unitsBefore = codexParser.listUnits(before.containers);
      expect(unitsBefore.find((unit) => unit.sessionId === ids.main)?.locator?.indexTitle).toBe(
        "Search module and tests",
      );
      appendFileSync(
        join(dir, "session_index.jsonl"),
        `\n${JSON.stringify({ id: ids.fork, thread_name: "Renamed fork", updated_at: "2026-03-05T00:00:00Z" })}\n`,
      );
      const after = codexParser.scan([dir]);
      const rollouts = (scan: typeof before) =>
        scan.containers.filter((container) => !container.path.endsWith("/history.jsonl"));
      expect(
        rollouts(after).every((container, index) => container.fingerprint !== rollouts(before)[index]?.fingerprint),
      ).toBe(true);
      const unitsAfter = codexParser.listUnits(after.containers);
      for (const unit of unitsAfter) {
        const old = unitsBefore.find((candidate) => candidate.sessionId === unit.sessionId);
        if (unit.sessionId === ids.fork) expect(unit.changeKey).not.toBe(old?.changeKey);
        else expect(unit.changeKey).toBe(old?.changeKey as string);
      }
      const fork = unitsAfter.find((unit) => unit.sessionId === ids.fork) as SourceUnit;
      expect(codexParser.parse(fork).session.title).toBe("Renamed fork");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("codex rollout parsing", () => {
  test("session metadata comes from the first session_meta and content times, not the local-time file name", () => {
    const { session, skipped } = parseId(ids.main);
    expect(session).toMatchObject({
      id: ids.main,
      source: "codex",
      projectPath: "/home/dev/proj",
      projectName: "proj",
      gitBranch: "feature/search",
      title: "Search module and tests",
      turnCount: 3,
      isSubagent: false,
      parentSessionId: null,
      startedAt: Date.parse("2026-03-01T10:00:00.000Z"),
      endedAt: Date.parse("2026-03-01T10:02:01.002Z"),
    });
    expect(session.location).toContain("/sessions/2026/03/01/");
    expect(skipped.count).toBe(0);
  });

  test("prompts come from user_message once; AGENTS.md, environment context, developer text and reasoning are dropped", () => {
    const { turns } = parseId(ids.main);
    expect(turns[0]?.prompt).toBe("Add a search module and wire it in");
    expect(turns[0]?.response).toBe(
      "I will look at the layout first.\n\nAdded `src/search.ts` and wired it into `src/index.ts`.",
    );
    const all = JSON.stringify(turns);
    for (const dropped of [
      "AGENTS.md",
      "environment_context",
      "permissions instructions",
      "secret thoughts",
      "turn_aborted",
      "gAAAAA",
    ])
      expect(all).not.toContain(dropped);
  });

  test("AGENTS.md text an editor integration pasted before the human's message is stripped from the prompt", () => {
    const { turns } = parseId(ids.editor, [join(fixtures, "samples")]);
    expect(turns.map((turn) => turn.prompt)).toEqual(["Alter lib/backoffice/cart.ex to make carts updatable."]);
  });

  test("tool calls are normalized and paired with their outputs by call_id", () => {
    const { turns } = parseId(ids.main, [home], true);
    const calls = turns[0]?.toolCalls ?? [];
    expect(calls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Bash", "rg --files src", false],
      ["Bash", "bun test missing.test.ts", true],
      ["Write", "src/search.ts", false],
      ["Edit", "src/index.ts", false],
      ["TodoWrite", "Write search module; Wire it in", false],
      ["WebSearch", "bun sqlite fts5 tokenizer", false],
      ["mcp__github__search_issues", "fts5", false],
      ["Bash", "git status --short", false],
    ]);
    expect(calls[2]).toMatchObject({ filePath: "src/search.ts", linesAdded: 2, linesRemoved: 0 });
    expect(calls[3]).toMatchObject({ filePath: "src/index.ts", linesAdded: 2, linesRemoved: 1 });
    expect(calls[0]?.output).toContain("src/index.ts");
    expect(calls[2]?.output).toBe("Success. Updated the following files:\nA src/search.ts\nM src/index.ts\n");
    expect(turns[0]?.files).toEqual(["src/search.ts", "src/index.ts"]);
    expect(parseId(ids.main).turns[0]?.toolCalls[0]?.output).toBeUndefined();
  });

  test("turns follow task_started/task_complete: a message typed during a task joins it; a ! shell command is its own turn", () => {
    const { turns } = parseId(ids.main);
    expect(turns.map((turn) => [turn.number, turn.prompt])).toEqual([
      [1, "Add a search module and wire it in"],
      [2, "Now add tests\n\nuse bun:test please"],
      [3, "! bun test"],
    ]);
    expect(turns[1]?.timestamp).toBe(Date.parse("2026-03-01T10:01:00.002Z"));
  });

  test("older rollouts without task events start a turn at each prompt; the doubled review prompt counts once", () => {
    const { session, turns } = parseId(ids.old);
    expect(session.gitBranch).toBeNull();
    expect(turns.map((turn) => turn.prompt)).toEqual([
      "Explain the indexer",
      "Review the code changes against the base branch 'main'.",
    ]);
    expect(turns[1]?.response).toBe("No findings in the review.");
    expect(turns[0]?.toolCalls).toEqual([
      {
        name: "Edit",
        input: "docs/notes.md",
        filePath: "docs/notes.md",
        isError: true,
        linesAdded: 1,
        linesRemoved: 1,
      },
    ]);
  });

  test("a review sub-agent without a parent id is linked to the rollout that entered review mode", () => {
    const { session, turns } = parseId(ids.review);
    expect(session).toMatchObject({ isSubagent: true, parentSessionId: ids.old, turnCount: 1 });
    expect(turns[0]?.isSubagent).toBe(true);
  });

  test("a spawned sub-agent names its parent in source.subagent.thread_spawn", () => {
    expect(parseId(ids.spawn).session).toMatchObject({ isSubagent: true, parentSessionId: ids.main, turnCount: 1 });
  });

  test("a forked thread keeps its own identity and skips the copied parent history", () => {
    const { session, turns } = parseId(ids.fork);
    expect(session).toMatchObject({
      id: ids.fork,
      isSubagent: false,
      parentSessionId: null,
      title: "Trigram fork",
      turnCount: 1,
    });
    expect(session.startedAt).toBe(Date.parse("2026-03-03T09:00:00.000Z"));
    expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["Try a trigram index instead", "Switched to a trigram tokenizer."],
    ]);
  });

  test("broken lines, unknown kinds and a partial last line are skipped and counted, never thrown", () => {
    const result = parseId(ids.nested, [join(fixtures, "samples")]);
    expect(result.skipped.count).toBe(3);
    expect(result.skipped.first).toMatch(
      /rollout-2026-03-04T08-00-00-019c0000-9999-7000-8000-000000000099\.jsonl:2: not JSON$/,
    );
    expect(result.session.projectName).toBe("win-proj");
    expect(result.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["first question", "first answer"],
      ["second question", "second answer"],
    ]);
  });

  test("legacy unwrapped rollouts (no payload envelope) take prompts from user messages", () => {
    const { session, turns } = parseId(ids.legacy, [join(fixtures, "samples")]);
    expect(session.startedAt).toBe(Date.parse("2025-08-01T10:00:00.000Z"));
    expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([["legacy prompt", "legacy answer"]]);
    expect(turns[0]?.toolCalls).toEqual([{ name: "Bash", input: "ls", isError: true }]);
  });

  test("an unreadable rollout throws SourceError naming the file", () => {
    if (process.getuid?.() === 0) return; // root reads anything: nothing to prove here
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-eacces-"));
    try {
      const file = join(dir, `rollout-2026-01-01T00-00-00-${ids.main}.jsonl`);
      writeFileSync(file, "{}\n");
      const unit = codexParser.listUnits(codexParser.scan([dir]).containers)[0] as SourceUnit;
      chmodSync(file, 0o000);
      expect(() => codexParser.parse(unit)).toThrow(SourceError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("codex MCP tool-call status", () => {
  test("an MCP call is an error when its result is Err, or Ok with isError or is_error true (issue 39: dropping the check survived)", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-mcp-"));
    const id = "019c0000-abcd-7000-8000-0000000000e1";
    const line = (timestamp: string, type: string, payload: object) => JSON.stringify({ timestamp, type, payload });
    const results: Array<[string, object]> = [
      ["call_ok", { Ok: { content: [{ type: "text", text: "[]" }], isError: false } }],
      ["call_err", { Err: "tool call failed: connection refused" }],
      ["call_camel", { Ok: { content: [{ type: "text", text: "rate limited" }], isError: true } }],
      ["call_snake", { Ok: { content: [{ type: "text", text: "not found" }], is_error: true } }],
    ];
    try {
      const lines = [
        line("2026-03-05T10:00:00.000Z", "session_meta", {
          id,
          timestamp: "2026-03-05T10:00:00.000Z",
          cwd: "/home/dev/mcp",
        }),
        line("2026-03-05T10:00:01.000Z", "response_item", {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "look up the issues" }],
        }),
        ...results.flatMap(([callId, result], i) => [
          line(`2026-03-05T10:00:0${2 + i}.000Z`, "response_item", {
            type: "function_call",
            name: "search_issues",
            namespace: "github",
            arguments: '{"query": "fts5"}',
            call_id: callId,
          }),
          line(`2026-03-05T10:00:0${2 + i}.500Z`, "event_msg", {
            type: "mcp_tool_call_end",
            call_id: callId,
            invocation: { server: "github", tool: "search_issues", arguments: { query: "fts5" } },
            result,
          }),
        ]),
        line("2026-03-05T10:00:09.000Z", "response_item", {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "Three of four lookups failed." }],
        }),
      ];
      writeFileSync(join(dir, `rollout-2026-03-05T10-00-00-${id}.jsonl`), `${lines.join("\n")}\n`);
      const calls = parseId(id, [dir]).turns.flatMap((turn) => turn.toolCalls);
      expect(calls.map((call) => call.isError)).toEqual([false, true, true, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("codex tool output status", () => {
  test("exit codes in the header, JSON metadata and Codex failure texts set isError", () => {
    expect(decodeOutput("Exit code: 0\nOutput:\nExit code: 1\n").isError).toBe(false);
    expect(decodeOutput("Chunk ID: a\nProcess exited with code 2\nOutput:\n").isError).toBe(true);
    expect(decodeOutput(JSON.stringify({ output: "x", metadata: { exit_code: 1 } }))).toEqual({
      text: "x",
      isError: true,
    });
    expect(decodeOutput("execution error: sandbox denied").isError).toBe(true);
    expect(decodeOutput({ content: "nope", success: false })).toEqual({ text: "nope", isError: true });
    expect(decodeOutput([{ type: "input_text", text: "ok" }])).toEqual({ text: "ok", isError: false });
  });
});
