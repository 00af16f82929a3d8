/**
 * Convergence of the archive (issue 9): after sources lose sessions, get them back, or cannot be read for a run,
 * an incremental index must hold exactly what a clean `--full` index of the same sources holds for the sessions
 * present, and keep the others marked deleted. (test/index/convergence.test.ts covers the change kinds the
 * parsers detect; this file covers what the index does with vanished and unreadable sources.)
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runIndex, type IndexSummary } from "../../../src/index/index.ts";
import { closeOpencodeDatabases } from "../../../src/parsers/opencode.ts";
import { appendClaudeTurns, writeClaudeSession, type WriterState } from "../../helpers/claude-writer.ts";
import { dumpSessions } from "../../helpers/archive-dump.ts";
import { createSchema, insertExchange, insertSession } from "../../fixtures/opencode/make-db.ts";

const temps: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "recall-archive-converge-"));
  temps.push(dir);
  return dir;
};
afterEach(() => {
  closeOpencodeDatabases();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => closeOpencodeDatabases());

const words = ["zebra", "walrus", "okapi", "tapir", "marmot"];
const claudeIds = ["c1000000-0000-4000-8000-000000000001", "c2000000-0000-4000-8000-000000000002"] as const;

interface Sources {
  claude: string;
  opencode: string;
}

const run = (home: string, sources: Sources, full = false): Promise<IndexSummary> =>
  runIndex({ recallHome: home, roots: { "claude-code": [sources.claude], opencode: [sources.opencode] }, full });

/** Two Claude sessions (the first with a tool call) and one OpenCode database with two sessions. */
function makeSources(): { sources: Sources; states: WriterState[]; db: string } {
  const sources = { claude: tempDir(), opencode: tempDir() };
  const states = [
    writeClaudeSession(join(sources.claude, "-home-dev-zoo", `${claudeIds[0]}.jsonl`), {
      sessionId: claudeIds[0],
      cwd: "/home/dev/zoo",
      turns: [
        {
          prompt: "where does the zebra sleep",
          response: "In the north paddock.",
          tools: [{ name: "Bash", input: { command: "ls paddocks" }, output: "north\nsouth" }],
        },
        { prompt: "and the walrus", response: "By the pool." },
      ],
    }),
    writeClaudeSession(join(sources.claude, "-home-dev-zoo", `${claudeIds[1]}.jsonl`), {
      sessionId: claudeIds[1],
      cwd: "/home/dev/zoo",
      turns: [{ prompt: "feed the okapi", response: "Done." }],
    }),
  ];
  const db = join(sources.opencode, "opencode.db");
  const handle = new Database(db);
  createSchema(handle);
  insertSession(handle, {
    id: "ses_tapir",
    timeCreated: 1000,
    timeUpdated: 2000,
    directory: "/home/dev/zoo",
    title: "Tapir diet",
  });
  insertExchange(handle, "ses_tapir", "1", 1100, "what does the tapir eat", "Leaves and fruit.");
  insertSession(handle, {
    id: "ses_marmot",
    timeCreated: 3000,
    timeUpdated: 4000,
    directory: "/home/dev/zoo",
    title: "Marmot burrow",
  });
  insertExchange(handle, "ses_marmot", "2", 3100, "how deep is the marmot burrow", "About two metres.");
  handle.close();
  return { sources, states, db };
}

/** The present sessions of `home` equal a clean `--full` index of `sources`; returns the deleted sessions' dump. */
async function expectPresentConverged(home: string, sources: Sources): Promise<string[]> {
  const clean = tempDir();
  await run(clean, sources, true);
  expect(dumpSessions(home, { words })).toEqual(dumpSessions(clean, { words }));
  return dumpSessions(home, { status: "deleted" });
}

describe("issue 9: the archive converges to a clean --full index on the sessions present", () => {
  test("a deleted Claude file: kept as deleted, the rest equal; appended meanwhile, the other session still converges", async () => {
    const { sources, states } = makeSources();
    const home = tempDir();
    await run(home, sources);
    unlinkSync(join(sources.claude, "-home-dev-zoo", `${claudeIds[1]}.jsonl`));
    appendClaudeTurns(join(sources.claude, "-home-dev-zoo", `${claudeIds[0]}.jsonl`), states[0]!, [
      { prompt: "one more zebra question", response: "Sure." },
    ]);
    expect(await run(home, sources)).toMatchObject({ deleted: 1, updated: 1, removed: 0 });
    const deleted = await expectPresentConverged(home, sources);
    expect(deleted.some((line) => line.includes(claudeIds[1]) && line.includes("feed the okapi"))).toBe(true);
  });

  test("a deleted Claude file written again with other content: present, equal to a clean index, nothing left deleted", async () => {
    const { sources } = makeSources();
    const path = join(sources.claude, "-home-dev-zoo", `${claudeIds[1]}.jsonl`);
    const home = tempDir();
    await run(home, sources);
    unlinkSync(path);
    await run(home, sources);
    writeClaudeSession(path, {
      sessionId: claudeIds[1],
      cwd: "/home/dev/zoo",
      turns: [{ prompt: "feed the okapi twice", response: "Done twice." }],
    });
    expect(await run(home, sources)).toMatchObject({ restored: 1 });
    expect(await expectPresentConverged(home, sources)).toEqual([]);
  });

  test("an OpenCode session row deleted: kept as deleted, the other sessions equal", async () => {
    const { sources, db } = makeSources();
    const home = tempDir();
    await run(home, sources);
    const handle = new Database(db);
    for (const table of ["part", "message"]) handle.run(`DELETE FROM ${table} WHERE session_id = 'ses_marmot'`);
    handle.run("DELETE FROM session WHERE id = 'ses_marmot'");
    handle.close();
    closeOpencodeDatabases();
    expect(await run(home, sources)).toMatchObject({ deleted: 1, removed: 0 });
    expect((await expectPresentConverged(home, sources)).some((line) => line.includes("ses_marmot"))).toBe(true);
  });

  test("an OpenCode database that was zero bytes for one run: its sessions are kept, then read again, nothing deleted", async () => {
    const { sources, db } = makeSources();
    const home = tempDir();
    await run(home, sources);
    const before = dumpSessions(home, { words });
    const aside = join(tempDir(), "opencode.db");
    renameSync(db, aside);
    writeFileSync(db, "");
    closeOpencodeDatabases();
    const broken = await run(home, sources);
    expect(broken).toMatchObject({ deleted: 0, removed: 0, kept: 2, degraded: true });
    expect(broken.unavailable).toBeGreaterThan(0);
    expect(dumpSessions(home, { words })).toEqual(before);
    unlinkSync(db);
    renameSync(aside, db);
    closeOpencodeDatabases();
    expect(await run(home, sources)).toMatchObject({ unavailable: 0, degraded: false });
    expect(await expectPresentConverged(home, sources)).toEqual([]);
  });
});
