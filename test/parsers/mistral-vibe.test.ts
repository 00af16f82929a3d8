/**
 * Mistral Vibe (issue 40): the session folder of test/fixtures/mistral-vibe (SOURCE.md) read into a session and its
 * turns, the folders the scan takes and leaves, and the whole path through the CLI from the agent's default folder.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { mistralVibeParser } from "../../src/parsers/mistral-vibe.ts";
import { runCli } from "../helpers/cli.ts";

const fixtures = join(import.meta.dir, "../fixtures/mistral-vibe");
const sessionId = "4b7e21c9-0d3a-4f6e-9a1b-7c2d5e8f0a13";
const folder = "session_20260311_091522_4b7e21c9";
const work = mkdtempSync(join(tmpdir(), "recall-mistral-vibe-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function unitsBelow(root: string, rejected: string[] = []): SourceUnit[] {
  const scan = mistralVibeParser.scan([root]);
  return mistralVibeParser.listUnits(scan.containers, { onRejected: (_path, reason) => rejected.push(reason) });
}

describe("mistral-vibe parse", () => {
  const [unit] = unitsBelow(join(fixtures, ".vibe"));
  const result = mistralVibeParser.parse(unit!, { withOutputs: true });

  test("the session: id, project, branch, title and times from meta.json; nothing skipped", () => {
    expect(result.session).toMatchObject({
      id: sessionId,
      source: "mistral-vibe",
      projectPath: "/home/dev/src/tile-server",
      projectName: "tile-server",
      gitBranch: "fix/zoom-19",
      title: "Fix 500 on tiles above zoom 18",
      turnCount: 2,
      parentSessionId: null,
      isSubagent: false,
      startedAt: Date.parse("2026-03-11T09:15:22.481Z"),
      endedAt: Date.parse("2026-03-11T09:19:47.903Z"),
    });
    expect(result.skipped.count).toBe(0);
  });

  test("typed prompts are turns (an injected reminder is not); calls with errors and outputs; totals on the last turn", () => {
    const [first, second] = result.turns;
    expect(first!.prompt).toBe(
      "The /tiles/{z}/{x}/{y}.png endpoint returns 500 for zoom levels above 18. Find out why and fix it.",
    );
    expect(first!.timestamp).toBe(Date.parse("2026-03-11T09:15:22.481Z"));
    expect(first!.response).toStartWith("I'll look for where the zoom level is validated.\n\nZOOM_SCALES only covers");
    expect(first!.response).not.toContain("Probably a bounds check"); // reasoning
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Grep", "max_zoom src", false],
      ["Read", "/home/dev/src/tile-server/src/tiles/render.py", false],
      ["Edit", "/home/dev/src/tile-server/src/tiles/render.py", true],
      ["Edit", "/home/dev/src/tile-server/src/tiles/render.py", false],
    ]);
    expect(first!.toolCalls[2]!.output).toContain("old_string not found");
    const edit = first!.toolCalls[3]!;
    expect([edit.linesAdded, edit.linesRemoved, edit.change?.kind]).toEqual([3, 1, "edit"]);
    expect(first!.files).toEqual(["/home/dev/src/tile-server/src/tiles/render.py"]);
    expect(first!.usage).toBeUndefined();
    expect(second!.prompt).toBe("Run the tile tests.");
    expect(second!.toolCalls.map((call) => `${call.name} ${call.input}`)).toEqual(["Bash pytest tests/tiles -q"]);
    expect(second!.toolCalls[0]!.output).toContain("8 passed in 0.41s");
    expect(second!.response).toBe("All 8 tile tests pass."); // the line logged twice is read once
    expect(second!.usage).toEqual([
      { model: "devstral-2", input: 48213, output: 1377, cacheRead: null, cacheWrite: null, costUsd: null },
    ]);
  });

  test("issue 41: a session that goes on after a compaction has its summary as abstract, not as a turn", () => {
    // Vibe opens the new session with the compaction's context (vibe/core/compaction.py render_compaction_context).
    const context = [
      "You are continuing a trajectory after a context compaction.",
      "",
      "Here are some of the most recent previous user messages, preserved verbatim where possible. Treat them as prior context, not as new requests.",
      "",
      "<previous_user_messages>",
      "<previous_user_message>",
      "Fix the 500 on tiles above zoom 18; the log ends with <compaction_summary>stale</compaction_summary>",
      "</previous_user_message>",
      "</previous_user_messages>",
      "",
      "Here is a summary of what has happened so far:",
      "",
      "<compaction_summary>",
      "The tile server clamped zoom at 18 in src/bounds.ts; raised it to 22 and added a test.",
      "</compaction_summary>",
    ].join("\n");
    const continued = join(work, "continued");
    cpSync(join(fixtures, ".vibe", "logs", "session", folder), join(continued, folder), { recursive: true });
    for (const injected of [true, false]) {
      writeFileSync(
        join(continued, folder, "messages.jsonl"),
        [
          { role: "user", content: context, injected, message_id: "c-1" },
          { role: "user", content: "Now what does <compaction_summary> mean in the log?", message_id: "u-2" },
          { role: "assistant", content: "It marks the summary Vibe kept.", message_id: "a-2" },
        ]
          .map((line) => `${JSON.stringify(line)}\n`)
          .join(""),
      );
      const parsed = mistralVibeParser.parse(unitsBelow(continued)[0]!);
      expect(parsed.session.abstract).toEqual([
        {
          source: "compaction",
          text: "The tile server clamped zoom at 18 in src/bounds.ts; raised it to 22 and added a test.",
          at: Date.parse("2026-03-11T09:15:22.481Z"),
        },
      ]);
      expect(parsed.turns.map((turn) => [turn.number, turn.prompt])).toEqual([
        [1, "Now what does <compaction_summary> mean in the log?"],
      ]);
      expect(parsed.skipped.count).toBe(0);
    }
  });

  test("a message of an unknown role that carries text is counted, not dropped; a broken line too", () => {
    const dir = join(work, "unknown", "session_20260301_100000_s0unknow");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "meta.json"),
      JSON.stringify({ session_id: "s-unknown", start_time: "2026-03-01T10:00:00+00:00" }),
    );
    const lines = [
      { role: "user", content: "rename the flag", message_id: "m1" },
      { role: "developer", content: "a role recall does not know", message_id: "m2" },
    ];
    writeFileSync(join(dir, "messages.jsonl"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n{"role":\n`);
    const parsed = mistralVibeParser.parse(unitsBelow(join(work, "unknown"))[0]!);
    expect(parsed.turns.map((turn) => turn.prompt)).toEqual(["rename the flag"]);
    expect(Object.keys(parsed.skipped.reasons ?? {}).sort()).toEqual(["message role developer", "not JSON"]);
  });
});

describe("mistral-vibe scan", () => {
  test("a Vibe home: only logs/session/ is walked (the ACP log is no session); a folder without meta.json is not one", () => {
    const home = join(work, "layouts", ".vibe");
    cpSync(join(fixtures, ".vibe"), home, { recursive: true });
    mkdirSync(join(home, "logs", "acp"), { recursive: true });
    writeFileSync(join(home, "logs", "acp", "messages.jsonl"), '{"direction":"in"}\n');
    const half = join(home, "logs", "session", "session_20260312_080000_0a1b2c3d");
    mkdirSync(half);
    writeFileSync(join(half, "messages.jsonl"), '{"role":"user","content":"hi"}\n');
    expect(unitsBelow(home).map((unit) => unit.sessionId)).toEqual([sessionId]);
    const [container] = mistralVibeParser.scan([home]).containers;
    expect(mistralVibeParser.scan([container!.path]).containers).toEqual([container!]); // scansContainerPaths holds
  });

  test("a copy of a save dir: the session id comes from meta.json, the larger log of two copies wins", () => {
    const copies = join(work, "copies");
    cpSync(join(fixtures, ".vibe", "logs", "session", folder), join(copies, "a", folder), { recursive: true });
    cpSync(join(fixtures, ".vibe", "logs", "session", folder), join(copies, "b", folder), { recursive: true });
    writeFileSync(join(copies, "b", folder, "messages.jsonl"), '{"role":"user","content":"hi"}\n');
    expect(unitsBelow(copies).map((unit) => [unit.sessionId, unit.key.includes("/a/")])).toEqual([[sessionId, true]]);
  });

  test("default folder $VIBE_HOME else ~/.vibe; resume is `vibe --resume <id>` in the project folder", () => {
    expect(sourceInfo("mistral-vibe").defaultRoots({}, "/home/ada")).toEqual(["/home/ada/.vibe"]);
    expect(sourceInfo("mistral-vibe").defaultRoots({ VIBE_HOME: "~/v" }, "/home/ada")).toEqual(["/home/ada/v"]);
    expect(parserFor("mistral-vibe").resumeInvocation(sessionId, "/home/dev/src/tile-server")).toEqual({
      cwd: "/home/dev/src/tile-server",
      argv: ["vibe", "--resume", sessionId],
    });
  });
});

describe("mistral-vibe end to end", () => {
  const home = join(work, "e2e-home");
  const recallHome = join(work, "e2e-recall");
  cpSync(join(fixtures, ".vibe"), join(home, ".vibe"), { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the log and from recall's copy", () => {
    const indexed = run(["index", "--keyword-only"]);
    expect(indexed.exitCode).toBe(0);
    const status = run(["status"]).stdout;
    expect(status).toMatch(/mistral-vibe\s+1 session\s+2 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("zoom levels above 18")).toContain("Q: The /tiles/{z}/{x}/{y}.png endpoint returns 500");
    expect(search("TileOutOfRange handler 404")).toContain("[mistral-vibe] turn=4b7e21c9-0d3:1");
    expect(search("pytest")).toContain("tools: Bash");
    const fromLog = run(["show", "4b7e21c9:1", "--no-reindex"]).stdout;
    expect(fromLog).toContain(
      "resume: cd /home/dev/src/tile-server && vibe --resume 4b7e21c9-0d3a-4f6e-9a1b-7c2d5e8f0a13",
    );
    expect(fromLog).toContain("'text': 'MAX_ZOOM = 18'");
    rmSync(join(home, ".vibe"), { recursive: true });
    const fromCopy = run(["show", "4b7e21c9:1", "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("[Grep] max_zoom src");
    expect(fromCopy.stdout).toContain("shown from recall's archive");
  });
});
