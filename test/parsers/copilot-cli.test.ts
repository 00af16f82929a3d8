/**
 * GitHub Copilot CLI (issue 40): the event log of test/fixtures/copilot-cli (SOURCE.md) read into a session and its
 * turns, both folder layouts found by the scan, and the whole path through the CLI from the agent's default folder.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copilotCliParser } from "../../src/parsers/copilot-cli.ts";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const fixtures = join(import.meta.dir, "../fixtures/copilot-cli");
const sessionId = "5f0c3a2e-8d41-4b6f-9a3e-2c7d1e9b4f60";
const work = mkdtempSync(join(tmpdir(), "recall-copilot-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function unitsBelow(root: string, rejected: string[] = []): SourceUnit[] {
  const scan = copilotCliParser.scan([root]);
  return copilotCliParser.listUnits(scan.containers, { onRejected: (_path, reason) => rejected.push(reason) });
}

describe("copilot-cli parse", () => {
  const [unit] = unitsBelow(fixtures);
  const result = copilotCliParser.parse(unit!, { withOutputs: true });

  test("the session: id from session.start, project and branch from its context, title, times", () => {
    expect(result.session).toMatchObject({
      id: sessionId,
      source: "copilot-cli",
      projectPath: "/home/dev/invoice-service",
      projectName: "invoice-service",
      gitBranch: "fix/rounding",
      title: "Fix invoice rounding drift",
      turnCount: 2,
      isSubagent: false,
      startedAt: Date.parse("2026-07-14T09:12:03.118Z"),
      endedAt: Date.parse("2026-07-14T09:15:02.874Z"),
    });
    expect(result.skipped.count).toBe(0);
  });

  test("each user.message is a turn; replies joined; tool calls in the shared vocabulary with errors and outputs", () => {
    const [first, second] = result.turns;
    expect(first!.prompt).toStartWith("The invoice totals are off by a cent");
    expect(first!.timestamp).toBe(Date.parse("2026-07-14T09:12:31.977Z"));
    expect(first!.response).toBe(
      "I'll look at how line totals are computed first.\n\nThe line total no longer rounds, but invoiceTotal still sums unrounded values without rounding the result. I'll round once in invoiceTotal with banker's rounding so the half-cent case matches the ledger.",
    );
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Read", "/home/dev/invoice-service/src/totals.ts", false],
      ["Grep", "Math.round /home/dev/invoice-service/src", false],
      ["Edit", "/home/dev/invoice-service/src/totals.ts", false],
      ["Bash", "npm test -- --run totals", true],
    ]);
    const edit = first!.toolCalls[2]!;
    expect([edit.linesAdded, edit.linesRemoved, edit.change?.kind]).toEqual([2, 1, "edit"]);
    expect(edit.output).toStartWith("diff --git a/src/totals.ts"); // detailedContent, not the one-line summary
    expect(first!.toolCalls[3]!.output).toContain("Expected: 87.51");
    expect(first!.files).toEqual(["/home/dev/invoice-service/src/totals.ts"]);
    expect(first!.usage).toEqual([
      { model: "claude-sonnet-4.6", input: null, output: 489, cacheRead: null, cacheWrite: null, costUsd: null },
    ]);
    // The sub-agent's call and reply stay in the turn whose task call started it; the model changed before it.
    expect(second!.toolCalls.map((call) => `${call.name} ${call.input}`)).toEqual([
      "Task Audit currency rounding",
      "Grep toFixed\\(2\\) /home/dev/invoice-service/src/currency",
    ]);
    expect(second!.response).toStartWith("convertLine in src/currency/convert.ts rounds each converted line to cents");
    expect(second!.response).toContain("until the ledger team confirms");
    expect(second!.usage?.map((entry) => [entry.model, entry.output])).toEqual([["gpt-5.3-codex", 129]]);
  });

  test("an event of an unknown kind that carries text is counted, not dropped; a broken line too", () => {
    const dir = join(work, "unknown", "session-state", "s-unknown");
    mkdirSync(dir, { recursive: true });
    const lines = [
      { type: "session.start", data: { sessionId: "s-unknown", context: { cwd: "/w/app" } } },
      { type: "user.message", data: { content: "rename the flag" }, timestamp: "2026-07-01T10:00:00Z" },
      { type: "assistant.note", data: { content: "a kind recall does not know" } },
    ];
    writeFileSync(join(dir, "events.jsonl"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n{"type":\n`);
    const parsed = copilotCliParser.parse(unitsBelow(join(work, "unknown"))[0]!);
    expect(parsed.turns.map((turn) => turn.prompt)).toEqual(["rename the flag"]);
    expect(Object.keys(parsed.skipped.reasons ?? {}).sort()).toEqual(["not JSON", "unknown event type assistant.note"]);
  });
});

describe("copilot-cli scan", () => {
  test("a Copilot home: both layouts are sessions; other JSONL there is rejected, config and logs are not walked", () => {
    const home = join(work, "layouts", ".copilot");
    cpSync(join(fixtures, "session-state"), join(home, "session-state"), { recursive: true });
    const start = (id: string) => JSON.stringify({ type: "session.start", data: { sessionId: id } });
    writeFileSync(join(home, "session-state", "0b9e-flat.jsonl"), `${start("0b9e-flat")}\n`);
    writeFileSync(join(home, "session-state", "notes.jsonl"), '{"role":"user","content":"hi"}\n');
    mkdirSync(join(home, "logs"));
    writeFileSync(join(home, "logs", "events.jsonl"), `${start("not-a-session")}\n`);
    const rejected: string[] = [];
    const units = unitsBelow(home, rejected);
    expect(units.map((unit) => unit.sessionId).sort()).toEqual(["0b9e-flat", sessionId]);
    expect(rejected).toEqual(["not a Copilot CLI event log"]);
    const [container] = copilotCliParser.scan([home]).containers;
    expect(copilotCliParser.scan([container!.path]).containers).toEqual([container!]); // scansContainerPaths holds
  });

  test("a log without session.start takes its folder's name as the session id", () => {
    const dir = join(work, "no-start", "session-state", "4c5e9a9e-0000-4abc-9def-000000000042");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "events.jsonl"), `${JSON.stringify({ type: "user.message", data: { content: "hi" } })}\n`);
    expect(unitsBelow(join(work, "no-start")).map((unit) => unit.sessionId)).toEqual([
      "4c5e9a9e-0000-4abc-9def-000000000042",
    ]);
  });

  test("default folder $COPILOT_HOME else ~/.copilot; resume is `copilot --resume <id>` in the project folder", () => {
    expect(sourceInfo("copilot-cli").defaultRoots({}, "/home/ada")).toEqual(["/home/ada/.copilot"]);
    expect(sourceInfo("copilot-cli").defaultRoots({ COPILOT_HOME: "~/cp" }, "/home/ada")).toEqual(["/home/ada/cp"]);
    expect(parserFor("copilot-cli").resumeInvocation(sessionId, "/home/dev/invoice-service")).toEqual({
      cwd: "/home/dev/invoice-service",
      argv: ["copilot", "--resume", sessionId],
    });
  });
});

describe("copilot-cli end to end", () => {
  const home = join(work, "e2e-home");
  const recallHome = join(work, "e2e-recall");
  cpSync(join(fixtures, "session-state"), join(home, ".copilot", "session-state"), { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the log and from recall's copy", () => {
    const indexed = run(["index", "--keyword-only"]);
    expect(indexed.exitCode).toBe(0);
    const status = run(["status"]).stdout;
    expect(status).toMatch(/copilot-cli\s+1 session\s+2 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("off by a cent")).toContain("Q: The invoice totals are off by a cent");
    expect(search("banker's rounding ledger")).toContain("[copilot-cli] turn=5f0c3a2e-8d4:1");
    expect(search("npm")).toContain("tools: Read, Grep, Edit, Bash");
    const fromLog = run(["show", "5f0c3a2e:1", "--no-reindex"]).stdout;
    expect(fromLog).toContain(
      "resume: cd /home/dev/invoice-service && copilot --resume 5f0c3a2e-8d41-4b6f-9a3e-2c7d1e9b4f60",
    );
    expect(fromLog).toContain("Received: 87.5");
    rmSync(join(home, ".copilot"), { recursive: true });
    const fromCopy = run(["show", "5f0c3a2e:1", "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("[Bash] npm test -- --run totals");
    expect(fromCopy.stdout).toContain("shown from recall's archive");
  });
});
