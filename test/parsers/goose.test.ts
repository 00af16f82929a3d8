/**
 * Goose (issue 40): a `sessions.db` built from test/fixtures/goose/sessions.sql (Goose's own schema, see SOURCE.md),
 * parsed into sessions and turns with tool calls, results, model and token totals, and the whole path through the
 * CLI from Goose's default data folder.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { gooseParser } from "../../src/parsers/goose.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";
import { runCli } from "../helpers/cli.ts";
import { databaseFromScript } from "../helpers/sql-fixture.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/goose");
const project = "/home/dev/projects/invoice-api";
const work = mkdtempSync(join(tmpdir(), "recall-goose-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A Goose data folder `<dir>/sessions/sessions.db` built from the fixture script. */
function gooseData(dir: string): string {
  databaseFromScript("goose/sessions.sql", join(dir, "sessions", "sessions.db"));
  return dir;
}

describe("Goose sessions.db", () => {
  const data = gooseData(join(work, "data"));
  const { containers } = gooseParser.scan([data]);
  const units: SourceUnit[] = gooseParser.listUnits(containers);
  const parse = (id: string, withOutputs = true): ParseResult =>
    gooseParser.parse(units.find((unit) => unit.sessionId === id)!, { withOutputs });
  const main = parse("20251108_1");
  const worker = parse("20251108_2");

  test("the scan finds the database below the data folder; each session with messages is one unit", () => {
    expect(containers.map((container) => container.path)).toEqual([join(data, "sessions", "sessions.db")]);
    expect(units.map((unit) => unit.sessionId).sort()).toEqual(["20251108_1", "20251108_2"]); // _3 has no message
    expect(units[0]!.key).toBe(`${join(data, "sessions", "sessions.db")}#${units[0]!.sessionId}`);
    // the quick freshness check re-stats one container: the same fingerprint as the walk (scansContainerPaths)
    expect(gooseParser.scan([containers[0]!.path]).containers).toEqual(containers);
  });

  test("the session row gives project, title and times; a sub_agent session is a sub-agent", () => {
    expect(main.session).toMatchObject({
      source: "goose",
      projectPath: project,
      projectName: "invoice-api",
      gitBranch: null,
      title: "Fix invoice discount",
      turnCount: 2,
      isSubagent: false,
      parentSessionId: null,
      startedAt: 1762596000_000,
      endedAt: 1762596142_000,
    });
    expect(worker.session).toMatchObject({ isSubagent: true, parentSessionId: null, title: "Changelog entry" });
    expect(worker.turns[0]!.isSubagent).toBe(true);
  });

  test("turns hold the prompt, the reply and the developer tools' calls with their results", () => {
    const [first, second] = main.turns;
    expect(first!.prompt).toBe("The totals in invoice_total() ignore the discount; fix it and add a test");
    expect(first!.timestamp).toBe(1762596000_000);
    expect(first!.response).toBe(
      "Let me look at how the invoice total is computed.\n\n" +
        "invoice_total() now subtracts the discount from the subtotal, and the billing tests pass.",
    );
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Read", `${project}/src/billing.py`, false],
      ["Edit", `${project}/src/billing.py`, false],
      ["Bash", "python -m pytest tests/test_billing.py -q", false],
    ]);
    expect(first!.toolCalls[0]!.output).toContain("def invoice_total(lines, discount=0):");
    expect(first!.toolCalls[2]!.output).toContain("4 passed in 0.12s"); // an older result: the content list itself
    expect(first!.toolCalls[1]!.change).toEqual({
      path: `${project}/src/billing.py`,
      kind: "edit",
      edits: [
        {
          before: "    return sum(line.amount for line in lines)\n",
          after: "    subtotal = sum(line.amount for line in lines)\n    return subtotal - subtotal * discount\n",
        },
      ],
    });
    expect(first!.files).toEqual([`${project}/src/billing.py`]);
    expect(second!.toolCalls[0]).toMatchObject({ name: "Bash", isError: true });
    expect(second!.toolCalls[0]!.output).toBe("-32603: Command timed out after 30 seconds");
    expect(worker.turns[0]!.toolCalls[0]!.change).toEqual({
      path: `${project}/CHANGELOG.md`,
      kind: "write",
      content: "## 1.4.1\n\n- invoice_total() applies the discount.\n",
    });
  });

  test("the session's model is on every turn and its accumulated tokens on the last", () => {
    const none = { input: null, output: null, cacheRead: null, cacheWrite: null, costUsd: null };
    expect(main.turns.map((turn) => turn.usage)).toEqual([
      [{ model: "claude-sonnet-4-5", ...none }],
      [{ model: "claude-sonnet-4-5", ...none, input: 39870, output: 1662 }],
    ]);
    expect(worker.turns[0]!.usage).toBeUndefined(); // no model, no totals recorded
  });

  test("the system notification is counted as not kept; thinking is not prose; nothing else is skipped", () => {
    expect(main.skipped.count).toBe(1);
    expect(Object.keys(main.skipped.reasons ?? {})).toEqual(["system notification"]);
    expect(main.turns.some((turn) => turn.response.includes("discount argument is never applied"))).toBe(false);
    expect(worker.skipped.count).toBe(0);
  });

  test("without outputs the index parse keeps no tool output or change", () => {
    const lean = parse("20251108_1", false);
    expect(lean.turns.flatMap((turn) => turn.toolCalls).some((call) => call.output || call.change)).toBe(false);
  });

  test("a new message moves the session's change key; a database without Goose's tables is unavailable", () => {
    const path = join(work, "grow", "sessions", "sessions.db");
    gooseData(join(work, "grow"));
    const before = gooseParser.listUnits(gooseParser.scan([path]).containers);
    const db = new Database(path);
    db.run(
      `insert into messages (session_id, role, content_json, created_timestamp, metadata_json)
       values ('20251108_2', 'user', '[{"type":"text","text":"also mention it in the README"}]', 1762597100, null)`,
    );
    db.close();
    const after = gooseParser.listUnits(gooseParser.scan([path]).containers);
    const key = (list: SourceUnit[]) => list.find((unit) => unit.sessionId === "20251108_2")!.changeKey;
    expect(key(after)).not.toBe(key(before));
    expect(key(after)).toEndWith(":5:17");
    const other = join(work, "other", "sessions", "sessions.db");
    mkdirSync(join(work, "other", "sessions"), { recursive: true });
    new Database(other).run("create table notes (id integer)");
    const unavailable: string[] = [];
    gooseParser.listUnits(gooseParser.scan([other]).containers, {
      onUnavailable: (at, reason) => unavailable.push(`${at}: ${reason}`),
    });
    expect(unavailable).toEqual([`${other}: not a goose database (no sessions, messages table)`]);
  });

  test("a legacy .jsonl session (before sessions.db) is read by its metadata line and message lines", () => {
    const legacy = gooseParser.listUnits(gooseParser.scan([join(fixtures, "legacy")]).containers);
    expect(legacy.map((unit) => unit.sessionId)).toEqual(["20250620_013617"]);
    const parsed = gooseParser.parse(legacy[0]!, { withOutputs: true });
    expect(parsed.session).toMatchObject({
      id: "20250620_013617",
      projectPath: project,
      title: "Add invoice PDF export",
      turnCount: 1,
      startedAt: 1750383377_000,
      endedAt: 1750383399_000,
    });
    const [turn] = parsed.turns;
    expect(turn!.prompt).toBe("Add a /invoices/{id}/pdf endpoint that renders the invoice with weasyprint");
    expect(turn!.response).toBe(
      "I'll add the route next to the JSON one.\n\n" +
        "The PDF route renders the invoice template with weasyprint and returns application/pdf.",
    );
    expect(turn!.toolCalls).toEqual([
      expect.objectContaining({
        name: "Bash",
        input: 'rg -n "def get_invoice" src',
        output: "src/routes/invoices.py:41:def get_invoice(invoice_id: int):",
      }),
    ]);
    expect(turn!.usage).toEqual([
      { model: "unknown", input: 13800, output: 410, cacheRead: null, cacheWrite: null, costUsd: null },
    ]);
    expect(parsed.skipped.count).toBe(0);
  });

  test("a legacy file whose session Goose imported into sessions.db is read from the database; an empty one is rejected", () => {
    const both = gooseData(join(work, "both"));
    cpSync(
      join(fixtures, "legacy", "sessions", "20250620_013617.jsonl"),
      join(both, "sessions", "20251108_1.jsonl"), // imported under its file name
    );
    cpSync(
      join(fixtures, "legacy", "sessions", "20250620_013617.jsonl"),
      join(both, "sessions", "20250620_013617.jsonl"),
    );
    writeFileSync(join(both, "sessions", "20250101_000000.jsonl"), "");
    const rejected: string[] = [];
    const listed = gooseParser.listUnits(gooseParser.scan([both]).containers, {
      onRejected: (path, reason) => rejected.push(`${basename(path)}: ${reason}`),
    });
    expect(listed.map((unit) => [unit.sessionId, basename(unit.containerPath)]).sort()).toEqual([
      ["20250620_013617", "20250620_013617.jsonl"],
      ["20251108_1", "sessions.db"],
      ["20251108_2", "sessions.db"],
    ]);
    expect(rejected).toEqual(["20250101_000000.jsonl: empty file"]);
  });

  test("Goose resumes a session by its id in its folder (goose session --resume --session-id <id>)", () => {
    expect(gooseParser.resumeInvocation("20251108_1", project)).toEqual({
      cwd: project,
      argv: ["goose", "session", "--resume", "--session-id", "20251108_1"],
    });
  });
});

describe("Goose through the CLI, from ~/.local/share/goose", () => {
  const home = join(work, "home");
  const data =
    process.platform === "darwin"
      ? join(home, "Library", "Application Support", "Block", "goose")
      : join(home, ".local", "share", "goose");
  gooseData(data);
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, RECALL_HOME: join(work, "recall") };
  for (const key of sourceLocationVariables) delete env[key];
  const recall = (args: string[]) => runCli(args, env);

  test("index, then status lists Goose with its sessions", () => {
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(recall(["status"]).stdout).toMatch(/^ {2}goose +2 sessions +3 turns/m);
  });

  test("a prompt, a reply and a tool call are each found at depth 2, with Goose's resume command", () => {
    for (const phrase of ["Run the whole suite with coverage", "run it in the background", "pytest --cov=src"]) {
      const run = recall(["search", phrase, "--depth", "2", "--json", "--no-reindex"]);
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout).results[0]).toMatchObject({ source: "goose", session_id: "20251108_1", turn: 2 });
    }
    const session = JSON.parse(recall(["search", "pytest --cov=src", "--json", "--no-reindex"]).stdout).results[0];
    expect(session.resume_command).toBe(`cd ${project} && goose session --resume --session-id 20251108_1`);
  });

  test("recall show reads a turn from the database, and from recall's own copy once Goose's database is gone", () => {
    const shown = recall(["show", "20251108_1:2", "--no-reindex"]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain("> Run the whole suite with coverage");
    expect(shown.stdout).toContain("[Bash] python -m pytest --cov=src -q");
    expect(shown.stdout).toContain("Command timed out after 30 seconds"); // the output, read from the database
    rmSync(join(data, "sessions"), { recursive: true });
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    const kept = recall(["show", "20251108_1:2", "--no-reindex"]);
    expect(kept.exitCode).toBe(0);
    expect(kept.stdout).toContain("> Run the whole suite with coverage");
  });
});
