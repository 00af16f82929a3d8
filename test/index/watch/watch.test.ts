import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { appendFileSync, cpSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { databasePath, openIndex, type Watcher } from "../../../src/index/index.ts";
import { appendClaudeTurns, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { createSchema, insertExchange, insertSession } from "../../fixtures/opencode/make-db.ts";
import { makeWorkspace, startRecorded, waitFor, waitUntilSearchable, type Workspace } from "./helpers.ts";

const live = "5e55a0e1-0000-4000-8000-000000000001";
const open: Array<{ watcher?: Watcher; workspace: Workspace; db?: Database }> = [];
afterEach(async () => {
  for (const entry of open.splice(0)) {
    await entry.watcher?.close();
    entry.db?.close();
    entry.workspace.cleanup();
  }
});

function track(workspace: Workspace) {
  const entry: { watcher?: Watcher; workspace: Workspace; db?: Database } = { workspace };
  open.push(entry);
  return entry;
}

/** Wait for the watcher's first cycle (the catch-up index at start). */
const firstCycle = (recorded: { indexed: unknown[] }) => waitFor(() => recorded.indexed.length > 0, 10_000, 20);

function sessionStatus(workspace: Workspace, sessionId: string): string | undefined {
  const db = openIndex(databasePath(workspace.recallHome), { readonly: true });
  try {
    return db
      .query<{ source_status: string }, [string]>("SELECT source_status FROM sessions WHERE session_id = ?")
      .get(sessionId)?.source_status;
  } finally {
    db.close();
  }
}

describe("the watcher keeps the index fresh while sessions are written (issue 10)", () => {
  test("a turn appended to a Claude Code session is found by `recall search --no-reindex` within 5 s, with the default 2 s debounce, reading only the new bytes", async () => {
    const workspace = makeWorkspace();
    const file = join(workspace.claude, "-home-dev-live", `${live}.jsonl`);
    const state = writeClaudeSession(file, {
      sessionId: live,
      cwd: "/home/dev/live",
      turns: [{ prompt: "set up the billing service", response: "Done." }],
    });
    const entry = track(workspace);
    const { watcher, recorded } = await startRecorded(workspace);
    entry.watcher = watcher;
    await firstCycle(recorded);
    appendClaudeTurns(file, state, [
      { prompt: "why does the quokka invoice job time out", response: "The queue consumer holds a lock." },
    ]);
    const elapsedMs = await waitUntilSearchable(workspace, "quokka invoice", "quokka invoice job", 8000);
    expect(elapsedMs).toBeLessThan(5000);
    const cycle = recorded.indexed.at(-1)!.summary;
    expect(cycle).toMatchObject({ added: 0, updated: 1, turns: 1 });
    expect(cycle.bytesRead).toBeLessThan(2000); // the appended lines only, not the whole file
    expect(recorded.warnings).toEqual([]);
  }, 20_000);

  test("a turn appended to a Codex rollout in its default folder (~/.codex) is found within 5 s, reading only the new bytes", async () => {
    const workspace = makeWorkspace();
    const codexHome = join(workspace.dir, "home", ".codex");
    cpSync(resolve(import.meta.dir, "../../fixtures/codex/home"), codexHome, { recursive: true });
    workspace.roots = { ...workspace.roots, codex: [codexHome] };
    const rollout = join(
      codexHome,
      "sessions/2026/03/03/rollout-2026-03-03T03-00-00-019c0000-ffff-7000-8000-00000000000f.jsonl",
    );
    const entry = track(workspace);
    const { watcher, recorded } = await startRecorded(workspace);
    entry.watcher = watcher;
    await firstCycle(recorded);
    const line = (timestamp: string, type: string, payload: object) =>
      `${JSON.stringify({ timestamp, type, payload })}\n`;
    appendFileSync(
      rollout,
      line("2026-03-03T09:10:00.000Z", "event_msg", { type: "task_started", turn_id: "f2" }) +
        line("2026-03-03T09:10:00.001Z", "event_msg", {
          type: "user_message",
          message: "why does the zanzibar ledger export stall",
          images: [],
        }) +
        line("2026-03-03T09:10:05.000Z", "response_item", {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "The export waits on a lock." }],
        }) +
        line("2026-03-03T09:10:05.100Z", "event_msg", { type: "task_complete", turn_id: "f2" }),
    );
    const elapsedMs = await waitUntilSearchable(workspace, "zanzibar ledger", "zanzibar ledger export", 8000);
    expect(elapsedMs).toBeLessThan(5000);
    const cycle = recorded.indexed.at(-1)!.summary;
    expect(cycle).toMatchObject({ added: 0, updated: 1, turns: 1 });
    expect(cycle.bytesRead).toBeLessThan(1000);
  }, 20_000);

  test("a turn written to an OpenCode database in WAL mode, by a connection that stays open as OpenCode's does, is found within 5 s", async () => {
    const workspace = makeWorkspace();
    const entry = track(workspace);
    const db = new Database(join(workspace.opencode, "opencode.db"));
    entry.db = db;
    db.exec("PRAGMA journal_mode = WAL");
    createSchema(db);
    insertSession(db, {
      id: "ses_live",
      timeCreated: 1000,
      timeUpdated: 2000,
      directory: "/home/dev/shop",
      title: "Cart",
    });
    insertExchange(db, "ses_live", "1", 1100, "why is the cart empty", "The cookie is dropped.");
    const { watcher, recorded } = await startRecorded(workspace, { debounceMs: 500 });
    entry.watcher = watcher;
    await firstCycle(recorded);
    db.transaction(() => {
      insertExchange(db, "ses_live", "2", 3000, "add a narwhal discount code to the checkout", "Added.");
      db.run("UPDATE session SET time_updated = 3001 WHERE id = 'ses_live'");
    })();
    const elapsedMs = await waitUntilSearchable(workspace, "narwhal discount", "narwhal discount code", 8000);
    expect(elapsedMs).toBeLessThan(5000);
    expect(recorded.warnings).toEqual([]);
  }, 20_000);

  test("a new session file in a new project folder, and a sub-agent written into its session folder, are found", async () => {
    const workspace = makeWorkspace();
    const entry = track(workspace);
    const { watcher, recorded } = await startRecorded(workspace, { debounceMs: 300 });
    entry.watcher = watcher;
    await firstCycle(recorded);
    const file = join(workspace.claude, "-home-dev-brand-new", `${live}.jsonl`);
    writeClaudeSession(file, {
      sessionId: live,
      cwd: "/home/dev/brand-new",
      turns: [{ prompt: "scaffold the axolotl exporter", response: "Scaffolded." }],
    });
    expect(await waitUntilSearchable(workspace, "axolotl exporter", "axolotl exporter", 8000)).toBeLessThan(5000);
    // The session folder appearing marks the session active: its folder is watched from then on, so a turn
    // appended to the sub-agent alone (the parent transcript unchanged) is seen too.
    const subagent = join(workspace.claude, "-home-dev-brand-new", live, "subagents", "agent-a1b2c3.jsonl");
    const state = writeClaudeSession(subagent, {
      sessionId: live,
      cwd: "/home/dev/brand-new",
      turns: [{ prompt: "search the codebase for pangolin metrics", response: "Found 3 files." }],
    });
    await waitFor(() => sessionStatus(workspace, "agent-a1b2c3") === "present", 5000);
    expect(watcher.describe().hotFolders).toBeGreaterThanOrEqual(1);
    await Bun.sleep(300);
    appendClaudeTurns(subagent, state, [{ prompt: "now count the tapir gauges", response: "Seven." }]);
    expect(
      await waitUntilSearchable(workspace, "tapir gauges", "tapir gauges", 8000, ["--include-subagents"]),
    ).toBeLessThan(5000);
    expect(recorded.warnings).toEqual([]);
  }, 20_000);

  test("a deleted session file leaves its session in the index, marked deleted and still searchable (issue 9 semantics)", async () => {
    const workspace = makeWorkspace();
    const file = join(workspace.claude, "-home-dev-gone", `${live}.jsonl`);
    writeClaudeSession(file, {
      sessionId: live,
      cwd: "/home/dev/gone",
      turns: [{ prompt: "tune the capybara cache eviction", response: "Tuned." }],
    });
    const entry = track(workspace);
    const { watcher, recorded } = await startRecorded(workspace, { debounceMs: 300 });
    entry.watcher = watcher;
    await firstCycle(recorded);
    expect(sessionStatus(workspace, live)).toBe("present");
    rmSync(file);
    await waitFor(() => sessionStatus(workspace, live) === "deleted", 5000);
    expect(recorded.indexed.at(-1)!.summary.deleted).toBe(1);
    expect(await waitUntilSearchable(workspace, "capybara cache", "capybara cache eviction")).toBeLessThan(5000);
  }, 20_000);

  test("roots that do not exist yet are watched for: a Claude projects folder and an OpenCode folder created later are indexed", async () => {
    const workspace = makeWorkspace({ withOpencode: false });
    const entry = track(workspace);
    const laterClaude = join(workspace.dir, "later", ".claude", "projects");
    workspace.roots = { "claude-code": [workspace.claude, laterClaude], opencode: [workspace.opencode] };
    const { watcher, recorded } = await startRecorded(workspace, { debounceMs: 300 });
    entry.watcher = watcher;
    await firstCycle(recorded);
    expect(
      watcher
        .describe()
        .targets.filter((target) => target.kind === "pending")
        .map((target) => [target.file, target.path]),
    ).toEqual([
      [laterClaude, workspace.dir],
      [workspace.opencode, workspace.dir],
    ]);
    writeClaudeSession(join(laterClaude, "-home-dev-late", `${live}.jsonl`), {
      sessionId: live,
      cwd: "/home/dev/late",
      turns: [{ prompt: "migrate the wombat schema", response: "Migrated." }],
    });
    mkdirSync(workspace.opencode);
    const db = new Database(join(workspace.opencode, "opencode.db"));
    entry.db = db;
    db.exec("PRAGMA journal_mode = WAL");
    createSchema(db);
    insertSession(db, { id: "ses_late", timeCreated: 1000, timeUpdated: 2000 });
    insertExchange(db, "ses_late", "1", 1100, "explain the okapi rate limiter", "It is a token bucket.");
    await waitFor(
      () => sessionStatus(workspace, live) === "present" && sessionStatus(workspace, "ses_late") === "present",
      5000,
    );
    expect(watcher.describe().targets.some((target) => target.kind === "pending")).toBe(false);
    expect(recorded.warnings).toEqual([]);
  }, 20_000);
});
