/**
 * Issue 41: a session's abstract (what its agent wrote about it) is kept, searched at level 1 and shown, and a
 * compaction summary is not a turn. On the Claude Code fixtures of test/fixtures/claude-code/compaction (a reduced
 * compaction with its acompact run, and a real transcript with two `away_summary` recaps; SOURCE.md there), placed at
 * a HOME's default folder and indexed by the CLI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/claude-code/compaction/projects");
const compacted = "5c1e9a20-7b3d-4f62-9d0e-2a8b6c4f1e37";
const recapped = "ef958aa1-0e93-49f0-bb71-150f63befcd1";
const hostileId = "a41a41a4-0000-4000-8000-000000000041";
/** A compaction summary written to attack the terminal: a screen clear, a forged result line, a bidi override. */
const hostileSummary = "Fixed the zorblax cache.\n\u001b[2J[0.99] [claude-code] session=deadbeef forged\u202eevil";

let work: string;
let env: Record<string, string | undefined>;

type Json = Record<string, unknown>;
const json = (args: string[]): Json => {
  const run = runCli([...args, "--json"], env);
  expect(run.stderr).not.toContain("Error");
  return JSON.parse(run.stdout) as Json;
};
const sessionsOf = (answer: Json) => answer.results as Array<{ session_id: string; abstract: Json[] }>;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "recall-abstracts-"));
  const projects = join(work, "home/.claude/projects");
  cpSync(fixtures, projects, { recursive: true });
  // a session whose compaction summary is hostile text
  const path = join(projects, "-home-dev-ops", `${hostileId}.jsonl`);
  writeClaudeSession(path, {
    sessionId: hostileId,
    cwd: "/home/dev/ops",
    turns: [{ prompt: "look at the cache layer", response: "Looking." }],
  });
  const line = (value: Json) => appendFileSync(path, `${JSON.stringify(value)}\n`);
  line({
    type: "system",
    subtype: "compact_boundary",
    parentUuid: null,
    logicalParentUuid: null,
    uuid: "b0000000-0000-4000-8000-000000000001",
    timestamp: "2026-03-01T10:00:00.000Z",
    sessionId: hostileId,
    cwd: "/home/dev/ops",
    content: "Conversation compacted",
    compactMetadata: { trigger: "auto", preTokens: 160000 },
  });
  line({
    type: "user",
    parentUuid: "b0000000-0000-4000-8000-000000000001",
    uuid: "b0000000-0000-4000-8000-000000000002",
    timestamp: "2026-03-01T10:00:01.000Z",
    sessionId: hostileId,
    cwd: "/home/dev/ops",
    isCompactSummary: true,
    isVisibleInTranscriptOnly: true,
    message: {
      role: "user",
      content: `This session is being continued from a previous conversation.\n\nSummary:\n${hostileSummary}`,
    },
  });
  env = { ...process.env, HOME: join(work, "home"), RECALL_HOME: join(work, "recall") };
  const index = runCli(["index"], env);
  expect(index.exitCode).toBe(0);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("issue 41: abstracts from what Claude Code wrote", () => {
  test("a word only in a compaction summary finds its session first at level 1, which lists the abstract", () => {
    const answer = json(["search", "opaque cursor paginate"]);
    const first = sessionsOf(answer)[0]!;
    expect(first.session_id).toBe(compacted);
    expect(first.abstract[0]).toMatchObject({ source: "compaction" });
    const text = first.abstract[0]!.text as string;
    expect(text).toStartWith("1. Primary Request and Intent:");
    // the instructions around the summary are not the agent's words about the session
    expect(text).not.toContain("This session is being continued");
    expect(text).not.toContain("Continue the conversation");
  });

  test("the compaction summary is not a turn: no level-2 result and no turn of show holds it", () => {
    const turns = json(["search", "opaque cursor paginate", "--depth", "2"]).results as Array<{ prompt: string }>;
    for (const turn of turns) expect(turn.prompt).not.toContain("Primary Request and Intent");
    const shown = json(["show", compacted]);
    expect(JSON.stringify(shown.turns)).not.toContain("Primary Request and Intent");
    expect((shown.session as Json).abstract).toEqual([
      expect.objectContaining({ source: "compaction", text: expect.stringContaining("opaque cursor") }),
    ]);
  });

  test("recaps are the abstract of a session without a compaction, newest first, their config hint cut", () => {
    const listed = json(["sessions"]).sessions as Array<{ session_id: string; abstract: Json[] }>;
    const session = listed.find((entry) => entry.session_id === recapped)!;
    expect(session.abstract.map((part) => part.source)).toEqual(["recap", "recap"]);
    expect(session.abstract[0]!.text).toStartWith("Three teammates");
    expect(JSON.stringify(session.abstract)).not.toContain("disable recaps");
  });

  test("the text listings show the abstract's first part under the title", () => {
    const search = runCli(["search", "opaque cursor paginate"], env);
    expect(search.stdout).toContain("compaction summary: 1. Primary Request and Intent:");
    const sessions = runCli(["sessions"], env);
    expect(sessions.stdout).toContain("recap: Three teammates");
  });

  test("a hostile abstract is data on every text surface: no escape reaches the terminal, no line is forged", () => {
    for (const args of [["search", "zorblax"], ["sessions"], ["show", hostileId]]) {
      const run = runCli(args, env);
      expect(run.stdout).toContain("zorblax");
      expect(run.stdout).not.toContain("\u001b");
      expect(run.stdout).not.toContain("\u202e");
      expect(run.stdout.split("\n").some((line) => line.startsWith("[0.99] [claude-code] session=deadbeef"))).toBe(
        false,
      );
    }
    const found = sessionsOf(json(["search", "zorblax"]))[0]!;
    expect(found.session_id).toBe(hostileId);
    expect(found.abstract[0]!.text).toBe(hostileSummary); // JSON keeps the text as written (escaped by JSON itself)
  });
});
