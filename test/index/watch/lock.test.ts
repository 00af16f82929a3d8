import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  databasePath,
  homeFiles,
  openIndex,
  runIndex,
  startWatcher,
  tryAcquireIndexLock,
  type Watcher,
} from "../../../src/index/index.ts";
import { appendClaudeTurns, writeClaudeSession, type WriterState } from "../../helpers/claude-writer.ts";
import {
  makeWorkspace,
  startRecorded,
  waitFor,
  waitUntilSearchable,
  type Recorded,
  type Workspace,
} from "./helpers.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function workspaceWithLiveSession(): { workspace: Workspace; file: string; state: WriterState } {
  const workspace = makeWorkspace();
  cleanups.push(() => workspace.cleanup());
  const sessionId = "10c4ed00-0000-4000-8000-000000000001";
  const file = join(workspace.claude, "-home-dev-locks", `${sessionId}.jsonl`);
  const state = writeClaudeSession(file, {
    sessionId,
    cwd: "/home/dev/locks",
    turns: [{ prompt: "start", response: "ok" }],
  });
  return { workspace, file, state };
}

async function startTracked(workspace: Workspace, debounceMs = 300): Promise<{ watcher: Watcher; recorded: Recorded }> {
  const started = await startRecorded(workspace, { debounceMs });
  cleanups.push(() => started.watcher.close());
  return started;
}

function countSessions(workspace: Workspace, idPattern = "%"): number {
  if (!existsSync(databasePath(workspace.recallHome))) return 0;
  try {
    const db = openIndex(databasePath(workspace.recallHome), { readonly: true });
    try {
      return db
        .query<{ n: number }, [string]>("SELECT count(*) AS n FROM sessions WHERE session_id LIKE ?")
        .get(idPattern)!.n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // being created by the first run
  }
}

describe("one writer at a time, and a clean stop (issue 10)", () => {
  test("two watchers on one index never index at the same time, both keep working, and neither warns", async () => {
    const { workspace, file, state } = workspaceWithLiveSession();
    const first = await startTracked(workspace);
    const second = await startTracked(workspace);
    await waitFor(() => first.recorded.indexed.length + second.recorded.indexed.length >= 1, 10_000, 20);
    for (const word of ["ibex", "gecko", "heron"]) {
      appendClaudeTurns(file, state, [{ prompt: `tell me about the ${word} deploy`, response: "ok" }]);
      await Bun.sleep(700);
    }
    expect(await waitUntilSearchable(workspace, "heron deploy", "heron deploy")).toBeLessThan(5000);
    // Runs are [end - elapsed, end] intervals; those of different watchers must not overlap.
    const runs = (recorded: Recorded) =>
      recorded.indexed.map(({ at, summary }) => [at - summary.elapsedMs, at] as const);
    for (const [start, end] of runs(first.recorded)) {
      for (const [otherStart, otherEnd] of runs(second.recorded))
        expect(end <= otherStart + 5 || otherEnd <= start + 5).toBe(true);
    }
    expect(first.recorded.indexed.length + second.recorded.indexed.length).toBeGreaterThanOrEqual(2);
    expect([...first.recorded.warnings, ...second.recorded.warnings]).toEqual([]);
    expect(
      [...first.recorded.notices, ...second.recorded.notices].filter((line) => !line.startsWith("keyword-only")),
    ).toEqual([]);
  }, 20_000);

  test("while another process holds the index lock, cycles are skipped quietly with a growing back-off, and the change is indexed once it is free", async () => {
    const { workspace, file, state } = workspaceWithLiveSession();
    const { recorded } = await startTracked(workspace);
    await waitFor(() => recorded.indexed.length === 1, 10_000, 20);
    const lock = tryAcquireIndexLock(join(workspace.recallHome, homeFiles.lock))!;
    expect(lock).not.toBeNull();
    appendClaudeTurns(file, state, [{ prompt: "rotate the jackal credentials", response: "Rotated." }]);
    await Bun.sleep(3500);
    lock.release();
    // Debounce 0.3 s, then retries at +2 s and +4 s: two or three skips in 3.5 s, never a busy loop.
    expect(recorded.skipped.length).toBeGreaterThanOrEqual(1);
    expect(recorded.skipped.length).toBeLessThanOrEqual(3);
    expect(recorded.skipped[0]).toContain(`process ${process.pid}`);
    expect(recorded.indexed.length).toBe(1);
    expect(await waitUntilSearchable(workspace, "jackal credentials", "jackal credentials", 8000)).toBeLessThan(6000);
    expect(recorded.warnings).toEqual([]);
  }, 20_000);

  test("close() during a large first index stops after the batch in flight, frees the lock, and the next run finishes the rest", async () => {
    const workspace = makeWorkspace();
    cleanups.push(() => workspace.cleanup());
    const total = 1500;
    for (let i = 0; i < total; i++) {
      const id = `b0000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
      writeClaudeSession(join(workspace.claude, `-home-dev-bulk-${i % 20}`, `${id}.jsonl`), {
        sessionId: id,
        cwd: `/home/dev/bulk-${i % 20}`,
        turns: [{ prompt: `bulk task ${i}`, response: "done" }],
      });
    }
    // Close as soon as the first batch (100 sessions) is committed: the run stops after the batch then in flight.
    let closing: Promise<number> | undefined;
    const recorded = { indexed: [] as unknown[], warnings: [] as string[] };
    const watcher: Watcher = await startWatcher({
      recallHome: workspace.recallHome,
      roots: workspace.roots,
      hooks: {
        onProgress: () => {
          const started = performance.now();
          closing ??= watcher.close().then(() => performance.now() - started);
        },
        onIndexed: (summary) => recorded.indexed.push(summary),
        onWarning: (message) => recorded.warnings.push(message),
      },
    });
    await waitFor(() => closing !== undefined, 20_000, 5);
    expect(await closing!).toBeLessThan(2000);
    const committed = countSessions(workspace);
    expect(committed).toBe(200);
    expect(recorded.indexed).toEqual([]); // the stopped run reports nothing
    expect(recorded.warnings).toEqual([]);
    const lock = tryAcquireIndexLock(join(workspace.recallHome, homeFiles.lock));
    expect(lock).not.toBeNull();
    lock!.release();
    const rest = await runIndex({ recallHome: workspace.recallHome, roots: workspace.roots });
    expect(rest.added).toBe(countSessions(workspace) - committed);
    expect(countSessions(workspace, "b0000000-%")).toBe(total);
  }, 60_000);
});
