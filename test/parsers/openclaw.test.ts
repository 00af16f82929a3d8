/**
 * OpenClaw (issue 40): the transcripts of test/fixtures/openclaw (SOURCE.md) read into sessions and turns, the
 * sub-agent linked to its parent through sessions.json, archived and copied transcripts found by the scan, and the
 * whole path through the CLI from the agent's default folder.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openclawParser } from "../../src/parsers/openclaw.ts";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const fixtures = join(import.meta.dir, "../fixtures/openclaw");
const mainId = "7c2e4b1a-5d3f-4e8a-9b6c-1f0a2d3e4c5b";
const subId = "3e9d0f6a-2b7c-4d1e-8f5a-6c0b9e2d7a41";
const work = mkdtempSync(join(tmpdir(), "recall-openclaw-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function unitsBelow(root: string, rejected: string[] = []): SourceUnit[] {
  const scan = openclawParser.scan([root]);
  return openclawParser.listUnits(scan.containers, { onRejected: (_path, reason) => rejected.push(reason) });
}

describe("openclaw parse", () => {
  const units = unitsBelow(join(fixtures, ".openclaw"));
  const unitOf = (id: string) => units.find((unit) => unit.sessionId === id)!;
  const main = openclawParser.parse(unitOf(mainId), { withOutputs: true });
  const sub = openclawParser.parse(unitOf(subId), { withOutputs: true });

  test("the session: id and project from the header, title from session_info, times; nothing skipped", () => {
    expect(units.map((unit) => unit.sessionId).sort()).toEqual([subId, mainId]);
    expect(main.session).toMatchObject({
      id: mainId,
      source: "openclaw",
      projectPath: "/home/dev/projects/billing-api",
      projectName: "billing-api",
      gitBranch: null,
      title: "Fix nightly invoice export encoding",
      turnCount: 2,
      parentSessionId: null,
      isSubagent: false,
      startedAt: Date.parse("2026-03-02T14:05:11.204Z"),
      endedAt: Date.parse("2026-03-02T14:08:40.500Z"),
    });
    expect(main.skipped.count).toBe(0);
  });

  test("each user message is a turn; replies joined (thinking left out); calls in the shared vocabulary with results", () => {
    const [first, second] = main.turns;
    expect(first!.prompt).toStartWith("[Mon 2026-03-02 15:05 GMT+1] The nightly invoice export failed again.");
    expect(first!.timestamp).toBe(Date.parse("2026-03-02T14:05:12.031Z"));
    expect(first!.response).toStartWith("I'll start with the export job's log.\n\nThe writer opens the file");
    expect(first!.response).toContain("names like Zoë Brennan");
    expect(first!.response).not.toContain("Start from the job log"); // the thinking block
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Bash", "tail -n 20 logs/export-nightly.log", false],
      ["Read", "/home/dev/projects/billing-api/src/export/csv_writer.py", false],
      ["Edit", "/home/dev/projects/billing-api/src/export/csv_writer.py", false],
    ]);
    expect(first!.toolCalls[0]!.output).toContain("UnicodeEncodeError: 'ascii' codec");
    const edit = first!.toolCalls[2]!;
    expect([edit.linesAdded, edit.linesRemoved, edit.change?.kind]).toEqual([1, 1, "edit"]);
    expect(first!.files).toEqual(["/home/dev/projects/billing-api/src/export/csv_writer.py"]);
    expect(first!.usage).toEqual([
      { model: "claude-sonnet-4-5", input: 18, output: 419, cacheRead: 36727, cacheWrite: 12834, costUsd: 0.0645 },
    ]);
    // A string prompt; the sub-agent spawn as Task; a failed test run; the user's own `!git diff --stat`.
    expect(second!.prompt).toBe(
      "Good. Spawn a helper to check the other exporters for the same bug while you run the export tests.",
    );
    expect(second!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Task", "Audit exporters for missing encoding", false],
      ["Bash", "python -m pytest tests/export -q", true],
      ["Bash", "git diff --stat", false],
    ]);
    expect(second!.toolCalls[1]!.output).toContain("1 failed, 11 passed");
    expect(second!.response).toContain("switch the encoding to utf-8-sig");
  });

  test("the sub-agent's transcript is its own session, linked to its parent by sessions.json", () => {
    expect(sub.session).toMatchObject({
      id: subId,
      parentSessionId: mainId,
      isSubagent: true,
      title: "Audit exporters for missing encoding",
      turnCount: 1,
    });
    const [turn] = sub.turns;
    expect(turn!.isSubagent).toBe(true);
    expect(turn!.toolCalls.map((call) => `${call.name} ${call.input}`)).toEqual(['Grep open\\(.*"w" src/reports']);
    expect(turn!.response).toContain("src/reports/aging.py line 31");
  });

  test("an entry or role of an unknown kind that carries text is counted, not dropped; a broken line too", () => {
    const dir = join(work, "unknown", "agents", "main", "sessions");
    mkdirSync(dir, { recursive: true });
    const lines = [
      { type: "session", version: 3, id: "s-unknown", timestamp: "2026-03-01T10:00:00Z", cwd: "/w/app" },
      { type: "message", timestamp: "2026-03-01T10:00:01Z", message: { role: "user", content: "rename the flag" } },
      {
        type: "message",
        message: { role: "custom", customType: "reminder", content: "stand-up at 10", display: true },
      },
      { type: "note", content: "an entry kind recall does not know" },
      {
        type: "custom_message",
        customType: "reminder",
        content: [{ type: "text", text: "deploy freeze" }],
        display: true,
      },
      { type: "compaction", summary: "restates earlier turns", firstKeptEntryId: "x", tokensBefore: 9000 },
    ];
    writeFileSync(join(dir, "s-unknown.jsonl"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n{"type":\n`);
    const parsed = openclawParser.parse(unitsBelow(join(work, "unknown"))[0]!);
    expect(parsed.turns.map((turn) => turn.prompt)).toEqual(["rename the flag"]);
    expect(Object.keys(parsed.skipped.reasons ?? {}).sort()).toEqual([
      "message role custom",
      "not JSON",
      "unknown entry type custom_message",
      "unknown entry type note",
    ]);
  });
});

describe("openclaw scan", () => {
  test("a state dir: transcripts and reset archives are read, checkpoints, trajectories and the workspace are not", () => {
    const state = join(work, "layouts", ".openclaw");
    cpSync(join(fixtures, ".openclaw"), state, { recursive: true });
    const sessions = join(state, "agents", "main", "sessions");
    const header = (id: string) => `${JSON.stringify({ type: "session", version: 3, id, cwd: "/w" })}\n`;
    writeFileSync(join(sessions, "0b9e.jsonl.reset.2026-02-17T09-39-39.691Z"), header("0b9e"));
    writeFileSync(join(sessions, `${mainId}.checkpoint.0b6e2f4a-1c3d-4e5f-8a9b-0c1d2e3f4a5b.jsonl`), header(mainId));
    writeFileSync(join(sessions, `${mainId}.trajectory.jsonl`), '{"kind":"step"}\n');
    writeFileSync(join(sessions, "notes.jsonl"), '{"role":"user","content":"hi"}\n');
    mkdirSync(join(state, "workspace", "sessions"), { recursive: true });
    writeFileSync(join(state, "workspace", "sessions", "mine.jsonl"), header("not-a-session"));
    const rejected: string[] = [];
    const units = unitsBelow(state, rejected);
    expect(units.map((unit) => unit.sessionId).sort()).toEqual(["0b9e", subId, mainId]);
    expect(units.find((unit) => unit.sessionId === mainId)!.key).toBe(join(sessions, `${mainId}.jsonl`));
    expect(rejected).toEqual(["not an OpenClaw transcript"]);
    const [container] = openclawParser.scan([state]).containers;
    expect(openclawParser.scan([container!.path]).containers).toEqual([container!]); // scansContainerPaths holds
  });

  test("a transcript and its larger copy are one session; without a header the file name gives the id", () => {
    const dir = join(work, "copies", "backup", "agents", "work", "sessions");
    mkdirSync(dir, { recursive: true });
    const prompt = { type: "message", message: { role: "user", content: "hi" } };
    writeFileSync(join(dir, "c0ffee.jsonl"), `${JSON.stringify(prompt)}\n`);
    writeFileSync(join(dir, "c0ffee.jsonl.deleted.2026-02-19T08-59-24.951Z"), `${JSON.stringify(prompt)}\n`.repeat(2));
    const units = unitsBelow(join(work, "copies"));
    expect(units.map((unit) => [unit.sessionId, unit.key.endsWith("951Z")])).toEqual([["c0ffee", true]]);
  });

  test("default folder $OPENCLAW_STATE_DIR else ~/.openclaw and the legacy ones; resume opens `openclaw resume`", () => {
    expect(sourceInfo("openclaw").defaultRoots({}, "/home/ada")).toEqual([
      "/home/ada/.openclaw",
      "/home/ada/.clawdbot",
      "/home/ada/.moltbot",
      "/home/ada/.moldbot",
    ]);
    expect(sourceInfo("openclaw").defaultRoots({ OPENCLAW_STATE_DIR: "~/claw" }, "/home/ada")).toEqual([
      "/home/ada/claw",
    ]);
    expect(sourceInfo("openclaw").defaultRoots({ CLAWDBOT_STATE_DIR: "/srv/bot" }, "/home/ada")).toEqual(["/srv/bot"]);
    expect(parserFor("openclaw").resumeInvocation(mainId, "/home/dev/projects/billing-api")).toEqual({
      cwd: undefined,
      argv: ["openclaw", "resume"],
    });
  });
});

describe("openclaw end to end", () => {
  const home = join(work, "e2e-home");
  const recallHome = join(work, "e2e-recall");
  cpSync(join(fixtures, ".openclaw"), join(home, ".openclaw"), { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the transcript and from recall's copy", () => {
    const indexed = run(["index", "--keyword-only"]);
    expect(indexed.exitCode).toBe(0);
    const status = run(["status"]).stdout;
    expect(status).toMatch(/openclaw\s+2 sessions\s+3 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("chokes on some customer names")).toContain("Q: [Mon 2026-03-02 15:05 GMT+1] The nightly invoice");
    expect(search("utf-8-sig Excel")).toContain("[openclaw] turn=7c2e4b1a-5d3:2");
    expect(search("pytest")).toContain("tools: Task, Bash");
    const fromLog = run(["show", "7c2e4b1a:1", "--no-reindex"]).stdout;
    expect(fromLog).toContain("resume: openclaw resume");
    expect(fromLog).toContain("ordinal not in range(128)");
    rmSync(join(home, ".openclaw"), { recursive: true });
    const fromCopy = run(["show", "7c2e4b1a:1", "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("[Bash] tail -n 20 logs/export-nightly.log");
    expect(fromCopy.stdout).toContain("shown from recall's archive");
  });
});
