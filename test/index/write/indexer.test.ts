import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { databasePath, runIndex, tryAcquireIndexLock } from "../../../src/index/index.ts";
import { appendClaudeTurns, fillerText, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { tempDirs } from "../../helpers/temp-dirs.ts";
import { restoreJsonResumeStates, restoreResumeStateColumn } from "../../helpers/old-schema.ts";
import { decodeResumeState } from "../../../src/index/store/resume-state.ts";
import { schemaVersion } from "../../../src/index/schema.ts";

const tempDir = tempDirs("recall-indexer-");

const rootsFor = (claudeRoot: string) => ({
  "claude-code": [claudeRoot],
  opencode: [join(claudeRoot, "no-opencode-here")],
});

function countRows(home: string): { sessions: number; turns: number; documents: number; fts: number } {
  const db = new Database(databasePath(home), { readonly: true });
  const one = (sql: string) => (db.query(sql).get() as { n: number }).n;
  const counts = {
    sessions: one("SELECT count(*) AS n FROM sessions"),
    turns: one("SELECT count(*) AS n FROM turns"),
    documents: one("SELECT count(*) AS n FROM documents"),
    fts: one("SELECT count(*) AS n FROM documents_fts"),
  };
  db.close();
  return counts;
}

/** A Claude Code session of 400 long turns (over 500 kB) at `<root>/-home-dev-big/<id>.jsonl`: its path and writer state. */
function writeLongSession(root: string, id: string, responseSeed = 0) {
  const path = join(root, "-home-dev-big", `${id}.jsonl`);
  const state = writeClaudeSession(path, {
    sessionId: id,
    cwd: "/home/dev/big",
    turns: Array.from({ length: 400 }, (_, i) => ({
      prompt: `step ${i}: ${fillerText(i, 40)}`,
      response: fillerText(i + responseSeed, 200),
    })),
  });
  return { path, state };
}

/**
 * Append one turn to a session {@link writeLongSession} wrote and index again: the run updates it reading only the new
 * bytes plus a small verification window before the old end, and the index holds its 401 turns.
 * @returns the bytes appended and the run's bytes read
 */
async function appendAndIndex(
  root: string,
  home: string,
  { path, state }: ReturnType<typeof writeLongSession>,
): Promise<{ appendedBytes: number; bytesRead: number }> {
  const sizeBefore = statSync(path).size;
  appendClaudeTurns(path, state, [{ prompt: "one more question about the zeppelin cache", response: "Answered." }]);
  const appendedBytes = statSync(path).size - sizeBefore;
  const summary = await runIndex({ recallHome: home, roots: rootsFor(root) });
  expect(summary).toMatchObject({ added: 0, updated: 1 });
  expect(summary.bytesRead).toBeLessThan(appendedBytes + 64 * 1024);
  expect(countRows(home).turns).toBe(401);
  return { appendedBytes, bytesRead: summary.bytesRead };
}

describe("runIndex", () => {
  test("indexes new sessions, then finds nothing to do when no file changed", async () => {
    const root = tempDir();
    const home = tempDir();
    writeClaudeSession(join(root, "-home-dev-app", "11111111-1111-4111-8111-111111111111.jsonl"), {
      sessionId: "11111111-1111-4111-8111-111111111111",
      cwd: "/home/dev/app",
      turns: [
        {
          prompt: "why does docker compose fail",
          response: "The bridge network is missing.",
          tools: [{ name: "Bash", input: { command: "docker network ls" }, output: "bridge" }],
        },
        { prompt: "create it", response: "Created the network." },
      ],
    });
    const first = await runIndex({ recallHome: home, roots: rootsFor(root) });
    expect(first).toMatchObject({ added: 1, updated: 0, removed: 0, unchanged: 0, turns: 2 });
    expect(countRows(home)).toEqual({ sessions: 1, turns: 2, documents: 3, fts: 3 });
    const second = await runIndex({ recallHome: home, roots: rootsFor(root) });
    expect(second).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 1, turns: 0, bytesRead: 0 });
  });

  test("an appended turn re-reads only the new bytes of a large session", async () => {
    const root = tempDir();
    const home = tempDir();
    const session = writeLongSession(root, "22222222-2222-4222-8222-222222222222", 1000);
    await runIndex({ recallHome: home, roots: rootsFor(root) });
    expect(statSync(session.path).size).toBeGreaterThan(500_000);
    // Only the new bytes plus a small verification window before the old end are read.
    const { appendedBytes, bytesRead } = await appendAndIndex(root, home, session);
    expect(bytesRead).toBeGreaterThanOrEqual(appendedBytes);
    const db = new Database(databasePath(home), { readonly: true });
    const hit = db
      .query(
        "SELECT d.turn_number AS turn FROM documents_fts f JOIN documents d ON d.id = f.rowid WHERE documents_fts MATCH 'zeppelin' AND d.level = 'turn'",
      )
      .get() as { turn: number };
    db.close();
    expect(hit.turn).toBe(401);
  });

  test("an index of schema 16 keeps its resume states: the next append is still read from where the last run stopped", async () => {
    const root = tempDir();
    const home = tempDir();
    const session = writeLongSession(root, "33333333-3333-4333-8333-333333333333");
    await runIndex({ recallHome: home, roots: rootsFor(root) });
    // What schema 16 looks like: the resume state inside the session row, no resume_states table.
    const old = new Database(databasePath(home));
    expect(old.query("SELECT state FROM resume_states").all()).toHaveLength(1);
    restoreResumeStateColumn(old);
    const stored = old.query<{ state: string }, []>("SELECT resume_state AS state FROM sessions").all();
    old.exec("PRAGMA user_version = 16");
    old.close();
    await appendAndIndex(root, home, session);
    const db = new Database(databasePath(home), { readonly: true });
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(sessions)").all();
    expect(columns.map((column) => column.name)).not.toContain("resume_state");
    const resumed = db.query<{ state: Uint8Array }, []>("SELECT state FROM resume_states").all();
    db.close();
    expect(resumed).toHaveLength(1);
    // the state of the run that read the appended turn, stored as schema 20 stores it
    expect(resumed[0]!.state).toBeInstanceOf(Uint8Array);
    expect(decodeResumeState(resumed[0]!.state)).not.toEqual(JSON.parse(stored[0]!.state));
  });

  test("a resume state stored as JSON text (schema 19) resumes the parse, and comes back as zstd (schema 20)", async () => {
    const root = tempDir();
    const home = tempDir();
    const session = writeLongSession(root, "55555555-5555-4555-8555-555555555555");
    await runIndex({ recallHome: home, roots: rootsFor(root) });
    const old = new Database(databasePath(home));
    const [written] = old.query<{ state: Uint8Array }, []>("SELECT state FROM resume_states").all();
    expect(written!.state).toBeInstanceOf(Uint8Array);
    const json = JSON.stringify(decodeResumeState(written!.state));
    expect(written!.state.byteLength).toBeLessThan(json.length / 2);
    restoreJsonResumeStates(old);
    old.exec("PRAGMA user_version = 19");
    old.close();
    // a resumed parse: only the appended bytes (and a window before them) were read, not the 400 turns
    await appendAndIndex(root, home, session);
    const db = new Database(databasePath(home), { readonly: true });
    const [now] = db.query<{ state: Uint8Array }, []>("SELECT state FROM resume_states").all();
    expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()!.user_version).toBe(schemaVersion);
    db.close();
    expect(now!.state).toBeInstanceOf(Uint8Array);
    expect(decodeResumeState(now!.state)).not.toEqual(JSON.parse(json));
  });

  test("a session whose file vanished stays in the index, marked deleted with all its rows (issue 9)", async () => {
    const root = tempDir();
    const home = tempDir();
    const keep = join(root, "-p", "33333333-3333-4333-8333-333333333333.jsonl");
    const gone = join(root, "-p", "44444444-4444-4444-8444-444444444444.jsonl");
    writeClaudeSession(keep, {
      sessionId: "33333333-3333-4333-8333-333333333333",
      cwd: "/p",
      turns: [{ prompt: "keep me", response: "ok" }],
    });
    writeClaudeSession(gone, {
      sessionId: "44444444-4444-4444-8444-444444444444",
      cwd: "/p",
      turns: [{ prompt: "delete me", response: "ok" }],
    });
    await runIndex({ recallHome: home, roots: rootsFor(root) });
    unlinkSync(gone);
    const summary = await runIndex({ recallHome: home, roots: rootsFor(root) });
    expect(summary).toMatchObject({ removed: 0, deleted: 1, unchanged: 1 });
    expect(countRows(home)).toEqual({ sessions: 2, turns: 2, documents: 4, fts: 4 });
    const db = new Database(databasePath(home), { readonly: true });
    const states = db.query("SELECT session_id, source_status FROM sessions ORDER BY session_id").all();
    db.close();
    expect(states).toEqual([
      { session_id: "33333333-3333-4333-8333-333333333333", source_status: "present" },
      { session_id: "44444444-4444-4444-8444-444444444444", source_status: "deleted" },
    ]);
  });

  test("a second index run while one holds the lock fails with a clear message", async () => {
    const root = tempDir();
    const home = tempDir();
    const lock = tryAcquireIndexLock(join(home, "index.lock"));
    expect(lock).not.toBeNull();
    // The lock above belongs to this (live) process, so another run must refuse it.
    await expect(runIndex({ recallHome: home, roots: rootsFor(root), lockWaitMs: 0 })).rejects.toThrow(
      /another recall index run/,
    );
    lock!.release();
    await expect(runIndex({ recallHome: home, roots: rootsFor(root) })).resolves.toMatchObject({ added: 0 });
  });

  test("the index folder is private: 0700 folder, 0600 database", async () => {
    const root = tempDir();
    const home = join(tempDir(), "nested", "recall");
    await runIndex({ recallHome: home, roots: rootsFor(root) });
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(databasePath(home)).mode & 0o777).toBe(0o600);
  });
});
