/**
 * Issue 14: the freshness rule (src/index/plan/freshness.ts). Each kind of change a user or an agent makes is found by
 * the next search (`openFreshIndex`, what `recall search` runs), or, for the one kind the quick check leaves to the
 * whole scan (an in-place change of a file quiet for a day), reported by the check and found once the whole scan is
 * due. The same rule at 20,000 sessions is exercised by `bun run bench index-search` (its freshness.* rows).
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openFreshIndex, type HistoryContext } from "../../../src/service/context.ts";
import { checkStaleness, databasePath, openIndex, runIndex } from "../../../src/index/index.ts";
import { longLivedPageCacheKibibytes, oneShotPageCacheKibibytes } from "../../../src/index/schema.ts";
import { createBackend } from "../../../src/service/backend.ts";
import { freshnessDefaults, quickCheck, type QuickCheck } from "../../../src/index/plan/freshness.ts";
import { containersBelow, planSource } from "../../../src/index/plan/plan.ts";
import { claudeCodeParser } from "../../../src/parsers/claude-code.ts";
import { codexParser } from "../../../src/parsers/codex.ts";
import { closeOpencodeDatabases } from "../../../src/parsers/opencode.ts";
import { parsers, watchedFingerprint, type SourceRootMap } from "../../../src/parsers/index.ts";
import { searchIndex } from "../../../src/search/api.ts";
import { createSchema, insertExchange, insertSession } from "../../fixtures/opencode/make-db.ts";
import { appendClaudeTurns, writeClaudeSession, type WriterState } from "../../helpers/claude-writer.ts";
import { allCorpusRoots, hasCorpus } from "../../helpers/corpus.ts";
import { databaseFromScript } from "../../helpers/sql-fixture.ts";
import { restoreResumeStateColumn } from "../../helpers/old-schema.ts";
import { readChatFixture, writeChatStore } from "../../parsers/cursor-agent-store.ts";
import { makeCursorUserFolder } from "../../fixtures/cursor/make-db.ts";

const work = mkdtempSync(join(tmpdir(), "recall-freshness-"));
const fixtures = resolve(import.meta.dir, "../../fixtures");
afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => {
  closeOpencodeDatabases();
  delete process.env.RECALL_FULL_SCAN_INTERVAL_MS;
});

const dayMs = 24 * 60 * 60 * 1000;
let caseNumber = 0;

/** A history of three Claude Code sessions (one old, two recent, one with a sub-agent) and an OpenCode database. */
interface History {
  dir: string;
  context: HistoryContext;
  roots: SourceRootMap;
  project: string;
  old: { file: string; state: WriterState };
  live: { file: string; state: WriterState };
  opencodeDb: string;
}

function makeHistory(): History {
  const dir = join(work, `case-${++caseNumber}`);
  const project = join(dir, "claude", "-home-dev-shop");
  const old = join(project, "11111111-1111-4111-8111-111111111111.jsonl");
  const oldState = writeClaudeSession(old, {
    sessionId: "11111111-1111-4111-8111-111111111111",
    cwd: "/home/dev/shop",
    startMs: Date.now() - 90 * dayMs,
    turns: [{ prompt: "fix the checkout total", response: "rounded the tax" }],
  });
  utimesSync(old, new Date(Date.now() - 90 * dayMs), new Date(Date.now() - 90 * dayMs)); // last touched three months ago
  const live = join(project, "22222222-2222-4222-8222-222222222222.jsonl");
  const liveState = writeClaudeSession(live, {
    sessionId: "22222222-2222-4222-8222-222222222222",
    cwd: "/home/dev/shop",
    turns: [{ prompt: "start the cart refactor", response: "on it" }],
  });
  mkdirSync(join(project, "22222222-2222-4222-8222-222222222222", "subagents"), { recursive: true });
  writeClaudeSession(join(project, "22222222-2222-4222-8222-222222222222", "subagents", "agent-a1.jsonl"), {
    sessionId: "22222222-2222-4222-8222-222222222222",
    cwd: "/home/dev/shop",
    turns: [{ prompt: "explore the cart module", response: "found cart.ts" }],
  });
  const opencodeDb = join(dir, "opencode", "opencode.db");
  mkdirSync(join(dir, "opencode"), { recursive: true });
  const db = new Database(opencodeDb);
  createSchema(db);
  insertSession(db, {
    id: "ses_cart",
    timeCreated: 1000,
    timeUpdated: 2000,
    directory: "/home/dev/shop",
    title: "Cart bug",
  });
  insertExchange(db, "ses_cart", "1", 1100, "why is the cart empty", "Looking.");
  db.close();
  const roots: SourceRootMap = { "claude-code": [join(dir, "claude")], opencode: [join(dir, "opencode")] };
  const home = join(dir, "home");
  const context: HistoryContext = {
    recallHome: home,
    paths: { data: home, config: home, cache: home, overridden: true },
    roots,
    usingExamples: false,
    scanned: {},
  };
  return {
    dir,
    context,
    roots,
    project,
    old: { file: old, state: oldState },
    live: { file: live, state: liveState },
    opencodeDb,
  };
}

/** Run what a search runs before answering, then the keyword search; @returns the session ids found for `query`. */
async function nextSearchFinds(history: History, query: string): Promise<string[]> {
  const db = await openFreshIndex(history.context, { reindex: true });
  try {
    const response = await searchIndex(db, {
      query,
      level: "session",
      filters: { includeSubagents: true },
      mode: "keyword",
    });
    return response.results.map((result) => ("sessionId" in result ? String(result.sessionId) : ""));
  } finally {
    db.close();
  }
}

/** How the index run of a search would learn about the current state of Claude Code (without indexing). */
function claudePlanBasis(history: History): string {
  const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
  try {
    return planSource(db, claudeCodeParser, history.roots["claude-code"]!, {
      quick: { nowMs: Date.now(), fullScanIntervalMs: freshnessDefaults.fullScanIntervalMs },
    }).basis;
  } finally {
    db.close();
  }
}

/** The quick check of Claude Code against the stored state (without indexing). */
function claudeQuickCheck(history: History): QuickCheck {
  const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
  try {
    return quickCheck(db, claudeCodeParser, history.roots["claude-code"]!, {
      nowMs: Date.now(),
      fullScanIntervalMs: freshnessDefaults.fullScanIntervalMs,
    });
  } finally {
    db.close();
  }
}

/** What the index stores of a source's scan (default Claude Code): container rows, digest, watched paths, sessions. */
function storedScanState(recallHome: string, source = "claude-code"): unknown {
  const db = openIndex(databasePath(recallHome), { readonly: true });
  try {
    return {
      containers: db
        .query("SELECT path, fingerprint, size_bytes FROM containers WHERE source = ? ORDER BY path")
        .all(source),
      digest: db.query("SELECT value FROM meta WHERE key = ?").get(`containers_digest:${source}`),
      watched: db
        .query("SELECT path, fingerprint, owner FROM watched_paths WHERE source = ? ORDER BY path")
        .all(source),
      sessions: db
        .query("SELECT session_id, source_status, change_key FROM sessions WHERE source = ? ORDER BY 1")
        .all(source),
    };
  } finally {
    db.close();
  }
}

function staleSources(history: History, nowMs = Date.now()): string[] {
  const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
  try {
    return checkStaleness(db, history.roots, {}, { nowMs }).staleSources;
  } finally {
    db.close();
  }
}

describe("issue 14: the freshness rule, each kind of change found by the next search", () => {
  test("nothing changed: the check re-stats only the recent containers and the watched folders, and finds nothing", async () => {
    const history = makeHistory();
    expect(await nextSearchFinds(history, "checkout")).toEqual(["11111111-1111-4111-8111-111111111111"]);
    expect(staleSources(history)).toEqual([]);
    const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
    try {
      const check = quickCheck(db, claudeCodeParser, history.roots["claude-code"]!, {
        nowMs: Date.now(),
        fullScanIntervalMs: freshnessDefaults.fullScanIntervalMs,
      });
      // the live transcript and its sub-agent; not the three-month-old one
      expect(check).toMatchObject({ kind: "unchanged", checkedContainers: 2 });
      const watched = db
        .query<{ path: string; owner: string | null }, []>(
          "SELECT path, owner FROM watched_paths WHERE source = 'claude-code' ORDER BY path",
        )
        .all();
      expect(watched).toContainEqual({
        path: join(history.project, "22222222-2222-4222-8222-222222222222", "subagents"),
        owner: history.live.file,
      });
      expect(watched).toContainEqual({ path: history.project, owner: null });
    } finally {
      db.close();
    }
  });

  test("an appended live session: found, re-indexed from the re-stat'ed container alone (no walk)", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    appendClaudeTurns(history.live.file, history.live.state, [
      { prompt: "now rename the basket module", response: "renamed" },
    ]);
    expect(staleSources(history)).toEqual(["claude-code"]);
    expect(claudePlanBasis(history)).toBe("recent");
    expect(await nextSearchFinds(history, "basket")).toEqual(["22222222-2222-4222-8222-222222222222"]);
    expect(staleSources(history)).toEqual([]);
  });

  test("a new session file: its folder changed, so that folder alone is walked again and the session found", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    const file = join(history.project, "33333333-3333-4333-8333-333333333333.jsonl");
    writeClaudeSession(file, {
      sessionId: "33333333-3333-4333-8333-333333333333",
      cwd: "/home/dev/shop",
      turns: [{ prompt: "add a wishlist page", response: "added" }],
    });
    const check = claudeQuickCheck(history);
    expect(check.kind === "changed" && check.rescan?.folders).toEqual([history.project]);
    expect(
      check.kind === "changed" && check.changed.map((entry) => [entry.container.path, entry.previousFingerprint]),
    ).toEqual([[file, undefined]]);
    expect(claudePlanBasis(history)).toBe("recent");
    expect(await nextSearchFinds(history, "wishlist")).toEqual(["33333333-3333-4333-8333-333333333333"]);
    // the folder's new stats were stored with the session: the next check walks nothing
    expect(claudeQuickCheck(history).kind).toBe("unchanged");
  });

  test("a due whole scan that finds nothing is stored by the next search, so the checks after it are quick again", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    process.env.RECALL_FULL_SCAN_INTERVAL_MS = "1000";
    await Bun.sleep(1100);
    const check = () => {
      const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
      try {
        return checkStaleness(db, history.roots);
      } finally {
        db.close();
      }
    };
    const due = check();
    expect(due.stale).toBe(false);
    // walked whole, nothing changed (so are the sources without roots here); OpenCode is always walked whole
    expect(due.unrecorded).toContain("claude-code");
    expect(due.unrecorded).not.toContain("opencode");
    expect(await nextSearchFinds(history, "cart")).toContain("22222222-2222-4222-8222-222222222222");
    const after = check();
    expect(after.unrecorded).toEqual([]);
    expect(after.wholeScans["claude-code"]).toBeUndefined(); // checked quickly, not walked
    expect(claudeQuickCheck(history).kind).toBe("unchanged");
  });

  test("issue 42: a due walk that finds every container as stored is stored as it is (its folders, its time), leaving what a fresh index of the same files leaves", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    process.env.RECALL_FULL_SCAN_INTERVAL_MS = "1000";
    const home = history.context.recallHome;
    const storeDueWalk = async (): Promise<void> => {
      await Bun.sleep(1100);
      const db = openIndex(databasePath(home), { readonly: true });
      let report: ReturnType<typeof checkStaleness>;
      try {
        report = checkStaleness(db, history.roots);
        const walk = report.wholeScans["claude-code"]!;
        const plan = planSource(db, claudeCodeParser, history.roots["claude-code"]!, {
          quick: { nowMs: Date.now(), fullScanIntervalMs: 1000 },
          wholeScan: walk,
        });
        expect(plan).toMatchObject({ basis: "walked", containers: [], vanished: [], toParse: [], toMarkDeleted: [] });
      } finally {
        db.close();
      }
      expect(report.unrecorded).toContain("claude-code");
      await runIndex({ recallHome: home, roots: history.roots, prescanned: report.wholeScans });
    };
    type ScanState = { watched: Array<{ path: string }> };
    const freshIndexState = async (): Promise<ScanState> => {
      const fresh = join(history.dir, `fresh-${Date.now()}`);
      await runIndex({ recallHome: fresh, roots: history.roots });
      return storedScanState(fresh) as ScanState;
    };
    // a folder that holds no session appears: the containers are as stored, the folders are not
    const notes = join(history.dir, "claude", "-home-dev-notes");
    mkdirSync(notes);
    await storeDueWalk();
    const afterAdding = storedScanState(home) as ScanState;
    expect(afterAdding.watched.map((row) => row.path)).toContain(notes);
    expect(afterAdding).toEqual(await freshIndexState());
    expect(claudeQuickCheck(history).kind).toBe("unchanged");
    // it goes again: its row goes with the next walk
    rmSync(notes, { recursive: true });
    await storeDueWalk();
    const afterRemoving = storedScanState(home) as ScanState;
    expect(afterRemoving.watched.map((row) => row.path)).not.toContain(notes);
    expect(afterRemoving).toEqual(await freshIndexState());
    expect(claudeQuickCheck(history).kind).toBe("unchanged");
  });

  test("an entry that is no session (a memory folder) changes the folder: walked again once, its stats stored, then quiet", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    mkdirSync(join(history.project, "memory"));
    const check = claudeQuickCheck(history);
    expect(check).toMatchObject({ kind: "changed", changed: [], rescan: { folders: [history.project], vanished: [] } });
    const run = await runIndex({ recallHome: history.context.recallHome, roots: history.roots });
    expect(run).toMatchObject({ added: 0, updated: 0, deleted: 0 });
    expect(claudeQuickCheck(history).kind).toBe("unchanged");
  });

  test("changes met by walking folders again converge with a whole walk: same sessions, containers, digest and watched folders", async () => {
    const history = makeHistory();
    await runIndex({ recallHome: history.context.recallHome, roots: history.roots });
    const newId = "33333333-3333-4333-8333-333333333333";
    writeClaudeSession(join(history.project, `${newId}.jsonl`), {
      sessionId: newId,
      cwd: "/home/dev/shop",
      turns: [{ prompt: "add a wishlist page", response: "added" }],
    });
    expect(await runIndex({ recallHome: history.context.recallHome, roots: history.roots })).toMatchObject({
      added: 1,
    });
    const subagents = join(history.project, "22222222-2222-4222-8222-222222222222", "subagents");
    writeClaudeSession(join(subagents, "agent-b2.jsonl"), {
      sessionId: "22222222-2222-4222-8222-222222222222",
      cwd: "/home/dev/shop",
      turns: [{ prompt: "review the coupon code", response: "looks fine" }],
    });
    expect(claudePlanBasis(history)).toBe("recent");
    expect(await runIndex({ recallHome: history.context.recallHome, roots: history.roots })).toMatchObject({
      added: 1,
    });
    unlinkSync(history.old.file);
    mkdirSync(join(history.project, newId, "subagents"), { recursive: true });
    expect(claudePlanBasis(history)).toBe("recent");
    expect(await runIndex({ recallHome: history.context.recallHome, roots: history.roots })).toMatchObject({
      added: 0,
      deleted: 1,
    });
    const quickState = storedScanState(history.context.recallHome);
    const whole = await runIndex({ recallHome: history.context.recallHome, roots: history.roots, scan: "whole" });
    expect(whole).toMatchObject({ added: 0, updated: 0, deleted: 0 });
    expect(storedScanState(history.context.recallHome)).toEqual(quickState);
  });

  test("a new Codex rollout: only its day folder is walked again; the result converges with a whole walk", async () => {
    const dir = join(work, `case-${++caseNumber}`);
    const codexHome = join(dir, ".codex");
    cpSync(resolve(fixtures, "codex", "home"), codexHome, { recursive: true });
    const recallHome = join(dir, "home");
    const roots: SourceRootMap = { codex: [codexHome] };
    await runIndex({ recallHome, roots });
    const id = "019c0000-eeee-7000-8000-00000000000e";
    const day = join(codexHome, "sessions", "2026", "03", "02");
    const line = (type: string, payload: unknown) =>
      JSON.stringify({ timestamp: "2026-03-02T09:00:00.000Z", type, payload });
    writeFileSync(
      join(day, `rollout-2026-03-02T09-00-00-${id}.jsonl`),
      `${[
        line("session_meta", {
          id,
          timestamp: "2026-03-02T09:00:00.000Z",
          cwd: "/home/dev/proj",
          originator: "codex_cli_rs",
          cli_version: "0.77.0",
        }),
        line("response_item", {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "tune the zeppelin cache" }],
        }),
        line("response_item", {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "tuned" }],
        }),
      ].join("\n")}\n`,
    );
    const db = openIndex(databasePath(recallHome), { readonly: true });
    const plan = planSource(db, codexParser, roots.codex!, {
      quick: { nowMs: Date.now(), fullScanIntervalMs: freshnessDefaults.fullScanIntervalMs },
    });
    db.close();
    expect(plan.basis).toBe("recent");
    expect(plan.toParse.map((planned) => planned.unit.sessionId)).toEqual([id]);
    expect(await runIndex({ recallHome, roots })).toMatchObject({ added: 1, updated: 0, deleted: 0 });
    const quickState = storedScanState(recallHome, "codex");
    expect(await runIndex({ recallHome, roots, scan: "whole" })).toMatchObject({ added: 0, updated: 0, deleted: 0 });
    expect(storedScanState(recallHome, "codex")).toEqual(quickState);
  });

  test("issue 42: the index run after a stale check plans from the check's walk, and what the walk missed comes next", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    const session = (id: string, prompt: string) =>
      writeClaudeSession(join(history.dir, "claude", "-home-dev-blog", `${id}.jsonl`), {
        sessionId: id,
        cwd: "/home/dev/shop",
        turns: [{ prompt, response: "done" }],
      });
    session("44444444-4444-4444-8444-444444444444", "add a wishlist page");
    expect(claudePlanBasis(history)).toBe("whole"); // a new project folder: its root changed, walked whole
    const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
    const report = checkStaleness(db, history.roots);
    db.close();
    expect(report.staleSources).toEqual(["claude-code"]);
    expect(report.wholeScans["claude-code"]?.roots).toEqual(history.roots["claude-code"]!);
    // written after the check walked: the run that plans from that walk does not see it…
    session("55555555-5555-4555-8555-555555555555", "add a gift card page");
    await runIndex({ recallHome: history.context.recallHome, roots: history.roots, prescanned: report.wholeScans });
    const indexed = openIndex(databasePath(history.context.recallHome), { readonly: true });
    const ids = indexed.query<{ session_id: string }, []>("SELECT session_id FROM sessions").all();
    indexed.close();
    expect(ids.map((row) => row.session_id)).toContain("44444444-4444-4444-8444-444444444444");
    expect(ids.map((row) => row.session_id)).not.toContain("55555555-5555-4555-8555-555555555555");
    // …and the next search does: the folder it was written to changed after the walk the run stored
    expect(await nextSearchFinds(history, "gift")).toEqual(["55555555-5555-4555-8555-555555555555"]);
  });

  test("a new project folder and a root that did not exist yet are found", async () => {
    const history = makeHistory();
    const later = join(history.dir, "later-root");
    history.roots["claude-code"] = [...history.roots["claude-code"]!, later];
    await nextSearchFinds(history, "cart");
    writeClaudeSession(join(history.dir, "claude", "-home-dev-blog", "44444444-4444-4444-8444-444444444444.jsonl"), {
      sessionId: "44444444-4444-4444-8444-444444444444",
      cwd: "/home/dev/blog",
      turns: [{ prompt: "write the pagination", response: "done" }],
    });
    expect(await nextSearchFinds(history, "pagination")).toEqual(["44444444-4444-4444-8444-444444444444"]);
    writeClaudeSession(join(later, "-home-dev-api", "55555555-5555-4555-8555-555555555555.jsonl"), {
      sessionId: "55555555-5555-4555-8555-555555555555",
      cwd: "/home/dev/api",
      turns: [{ prompt: "throttle the webhook", response: "done" }],
    });
    expect(await nextSearchFinds(history, "webhook")).toEqual(["55555555-5555-4555-8555-555555555555"]);
  });

  test("a new sub-agent of the live session appears in its subagents folder and is found", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    writeClaudeSession(join(history.project, "22222222-2222-4222-8222-222222222222", "subagents", "agent-b2.jsonl"), {
      sessionId: "22222222-2222-4222-8222-222222222222",
      cwd: "/home/dev/shop",
      turns: [{ prompt: "audit the coupon code", response: "two bugs" }],
    });
    expect(await nextSearchFinds(history, "coupon")).toEqual(["agent-b2"]);
  });

  test("the first sub-agent of a live session (a new subagents folder inside its session folder) is found", async () => {
    const history = makeHistory();
    const sessionFolder = join(history.project, "66666666-6666-4666-8666-666666666666");
    const state = writeClaudeSession(`${sessionFolder}.jsonl`, {
      sessionId: "66666666-6666-4666-8666-666666666666",
      cwd: "/home/dev/shop",
      turns: [{ prompt: "profile the search page", response: "slow query" }],
    });
    mkdirSync(join(sessionFolder, "tool-results"), { recursive: true }); // the folder exists before any sub-agent
    await nextSearchFinds(history, "profile");
    appendClaudeTurns(`${sessionFolder}.jsonl`, state, [{ prompt: "spawn an explorer", response: "spawned" }]);
    writeClaudeSession(join(sessionFolder, "subagents", "agent-c3.jsonl"), {
      sessionId: "66666666-6666-4666-8666-666666666666",
      cwd: "/home/dev/shop",
      turns: [{ prompt: "map the indexes of orders", response: "three" }],
    });
    expect(await nextSearchFinds(history, "orders")).toEqual(["agent-c3"]);
  });

  test("a file rewritten by rename (an editor's save): found", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    const text = readFileSync(history.old.file, "utf8").replace("rounded the tax", "rounded the vat");
    writeFileSync(`${history.old.file}.tmp`, text);
    utimesSync(`${history.old.file}.tmp`, statSync(history.old.file).atime, statSync(history.old.file).mtime); // even with the old mtime
    renameSync(`${history.old.file}.tmp`, history.old.file);
    expect(await nextSearchFinds(history, "vat")).toEqual(["11111111-1111-4111-8111-111111111111"]);
  });

  test("a deleted session file: the next search marks the session deleted and keeps it (the archive)", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    unlinkSync(history.old.file);
    expect(await nextSearchFinds(history, "checkout")).toEqual(["11111111-1111-4111-8111-111111111111"]);
    const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
    try {
      expect(
        db
          .query<{ source_status: string }, []>(
            "SELECT source_status FROM sessions WHERE session_id = '11111111-1111-4111-8111-111111111111'",
          )
          .get(),
      ).toEqual({ source_status: "deleted" });
    } finally {
      db.close();
    }
  });

  test("an OpenCode database change: found (its few files are stat'ed whole every time)", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    const db = new Database(history.opencodeDb);
    insertSession(db, {
      id: "ses_tax",
      timeCreated: 3000,
      timeUpdated: 4000,
      directory: "/home/dev/shop",
      title: "Tax",
    });
    insertExchange(db, "ses_tax", "2", 3100, "why is the invoice tax doubled", "Found it.");
    db.close();
    expect(staleSources(history)).toEqual(["opencode"]);
    expect(await nextSearchFinds(history, "invoice")).toEqual(["ses_tax"]);
  });

  test("an append to a file quiet for months is left to the whole scan: reported pending until it is due, then found", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    const { mtime } = statSync(history.old.file);
    appendClaudeTurns(history.old.file, history.old.state, [
      { prompt: "resume: the refund rounding", response: "fixed" },
    ]);
    utimesSync(history.old.file, mtime, mtime); // the stored stats say months old; nothing says it moved except its size
    const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
    let wholeScanAt: number | undefined;
    try {
      const report = checkStaleness(db, history.roots);
      expect(report.staleSources).toEqual([]);
      wholeScanAt = report.wholeScanAt; // what a front end can tell: changes to old files since then are not in yet
      expect(wholeScanAt).toBeGreaterThan(Date.now() - 60_000);
      // once the interval has passed, the same check walks the source and sees it
      expect(
        checkStaleness(db, history.roots, {}, { nowMs: wholeScanAt! + freshnessDefaults.fullScanIntervalMs })
          .staleSources,
      ).toEqual(["claude-code"]);
    } finally {
      db.close();
    }
    expect(await nextSearchFinds(history, "refund")).toEqual([]);
    process.env.RECALL_FULL_SCAN_INTERVAL_MS = "0"; // the interval has passed
    expect(await nextSearchFinds(history, "refund")).toEqual(["11111111-1111-4111-8111-111111111111"]);
  });

  test.each([
    ["the config folder as the root", false],
    ["its parent as the root, the config folder changed too (walked again alone)", true],
  ])(
    "a session resumed weeks later: its prompt in history.jsonl names it, so the next search finds the append (%s)",
    async (_, fromParent) => {
      const dir = join(work, `case-${++caseNumber}`);
      const config = join(dir, ".claude");
      const transcript = join(config, "projects", "-home-dev-shop", "77777777-7777-4777-8777-777777777777.jsonl");
      const longAgo = new Date(Date.now() - 40 * dayMs);
      const state = writeClaudeSession(transcript, {
        sessionId: "77777777-7777-4777-8777-777777777777",
        cwd: "/home/dev/shop",
        startMs: longAgo.getTime(),
        turns: [{ prompt: "tune the image cache", response: "tuned" }],
      });
      utimesSync(transcript, longAgo, longAgo);
      const historyLine = (sessionId: string, display: string) =>
        `${JSON.stringify({ display, pastedContents: {}, timestamp: Date.now(), project: "/home/dev/shop", sessionId })}\n`;
      writeFileSync(
        join(config, "history.jsonl"),
        historyLine("77777777-7777-4777-8777-777777777777", "tune the image cache"),
      );
      const home = join(dir, "home");
      const roots = { "claude-code": [fromParent ? dir : config] };
      const history = {
        dir,
        roots,
        context: {
          recallHome: home,
          paths: { data: home, config: home, cache: home, overridden: true },
          roots,
          usingExamples: false,
          scanned: {},
        },
      } as unknown as History;
      expect(await nextSearchFinds(history, "image")).toEqual(["77777777-7777-4777-8777-777777777777"]);
      // `claude -r 7777…`: the old transcript is appended (its mtime is now, but the index last saw it 40 days old) …
      appendClaudeTurns(transcript, state, [{ prompt: "now evict the thumbnails", response: "evicted" }]);
      utimesSync(transcript, longAgo, longAgo); // … even a file whose mtime says nothing is found through the history line
      appendFileSync(
        join(config, "history.jsonl"),
        historyLine("77777777-7777-4777-8777-777777777777", "now evict the thumbnails"),
      );
      if (fromParent) {
        writeFileSync(join(config, "settings.json"), "{}"); // the config folder's entries changed: it is walked again
        expect(claudePlanBasis(history)).toBe("recent");
      }
      expect(await nextSearchFinds(history, "thumbnails")).toEqual(["77777777-7777-4777-8777-777777777777"]);
    },
  );

  test("`recall index --rescan` walks every folder at once and finds the append to an old file; plain `recall index` leaves it", async () => {
    const history = makeHistory();
    const flags = [
      "--keyword-only",
      "--json",
      "--claude-dir",
      history.roots["claude-code"]![0]!,
      "--opencode-dir",
      history.roots.opencode![0]!,
    ];
    const cli = (args: string[]) => {
      const result = Bun.spawnSync([process.execPath, resolve(import.meta.dir, "../../../src/cli.ts"), ...args], {
        env: { ...process.env, RECALL_HOME: history.context.recallHome },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(result.exitCode).toBe(0);
      return JSON.parse(result.stdout.toString()) as { updated: number };
    };
    cli(["index", ...flags]);
    const { mtime } = statSync(history.old.file);
    appendClaudeTurns(history.old.file, history.old.state, [
      { prompt: "resume: the loyalty points", response: "fixed" },
    ]);
    utimesSync(history.old.file, mtime, mtime);
    expect(cli(["index", ...flags]).updated).toBe(0);
    // the answer says how current it is: when every file was last stat'ed (before the append), and that it was checked
    const before = cli(["search", "loyalty", ...flags]) as unknown as {
      index: { indexed_at: string; full_scan_at: string; checked: boolean };
      results: unknown[];
    };
    expect(before.results).toEqual([]);
    expect(before.index.checked).toBe(true);
    expect(Date.parse(before.index.full_scan_at)).toBeLessThan(statSync(history.old.file).ctimeMs);
    // `recall status` stats every file, so it reports the source stale right away
    const status = cli([
      "status",
      "--json",
      "--claude-dir",
      history.roots["claude-code"]![0]!,
      "--opencode-dir",
      history.roots.opencode![0]!,
    ]) as unknown as Record<string, unknown>;
    expect(JSON.stringify(status)).toContain('"claude-code"');
    expect(status).toMatchObject({ stale: true });
    expect(cli(["index", "--rescan", ...flags]).updated).toBe(1);
    const after = cli(["search", "loyalty", "--no-reindex", ...flags]) as unknown as {
      index: { full_scan_at: string; checked: boolean };
      results: unknown[];
    };
    expect(after.results).toHaveLength(1);
    expect(after.index.checked).toBe(false);
    expect(Date.parse(after.index.full_scan_at)).toBeGreaterThan(Date.parse(before.index.full_scan_at));
  });

  test("the watcher's changed paths make the quick check re-stat an old file at once", async () => {
    const history = makeHistory();
    await runIndex({ recallHome: history.context.recallHome, roots: history.roots });
    const { mtime } = statSync(history.old.file);
    appendClaudeTurns(history.old.file, history.old.state, [
      { prompt: "resume: the gift card balance", response: "fixed" },
    ]);
    utimesSync(history.old.file, mtime, mtime);
    const quiet = await runIndex({ recallHome: history.context.recallHome, roots: history.roots });
    expect(quiet.updated).toBe(0);
    const told = await runIndex({
      recallHome: history.context.recallHome,
      roots: history.roots,
      changedPaths: [history.old.file],
    });
    expect(told.updated).toBe(1);
    expect(await nextSearchFinds(history, "gift")).toEqual(["11111111-1111-4111-8111-111111111111"]);
  });

  test("different roots than the last whole scan's: the source is walked whole", async () => {
    const history = makeHistory();
    await nextSearchFinds(history, "cart");
    const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
    try {
      const check = quickCheck(db, claudeCodeParser, [join(history.dir, "claude"), join(history.dir, "elsewhere")], {
        nowMs: Date.now(),
        fullScanIntervalMs: freshnessDefaults.fullScanIntervalMs,
      });
      expect(check).toEqual({ kind: "whole", reason: "roots changed" });
    } finally {
      db.close();
    }
  });

  test("a quick plan after an append converges with a whole scan of the same files", async () => {
    const history = makeHistory();
    await runIndex({ recallHome: history.context.recallHome, roots: history.roots });
    appendClaudeTurns(history.live.file, history.live.state, [
      { prompt: "extract the price formatter", response: "extracted" },
    ]);
    appendFileSync(history.live.file, ""); // no-op: the size moved once
    const quick = await runIndex({ recallHome: history.context.recallHome, roots: history.roots });
    expect(quick).toMatchObject({ updated: 1, added: 0 });
    const whole = await runIndex({ recallHome: history.context.recallHome, roots: history.roots, scan: "whole" });
    expect(whole).toMatchObject({ updated: 0, added: 0, deleted: 0 }); // the whole scan finds nothing the quick run missed
  });
});

describe("issue 14: schema 5", () => {
  test("an index written by schema 4 is migrated: the next run scans whole once and fills the watched folders; the one after re-parses nothing", async () => {
    const history = makeHistory();
    await runIndex({ recallHome: history.context.recallHome, roots: history.roots });
    const old = new Database(databasePath(history.context.recallHome));
    restoreResumeStateColumn(old);
    old.exec(`DROP TABLE watched_paths; DROP INDEX containers_recent; ALTER TABLE containers DROP COLUMN mtime_ms;
      DELETE FROM meta WHERE key LIKE 'whole_scan:%'; PRAGMA user_version = 4;`);
    old.close();
    // The migration goes on to schema 11, which re-parses every session once (issue 37: redaction finds more); the run
    // after it re-parses nothing.
    const migrated = await runIndex({ recallHome: history.context.recallHome, roots: history.roots });
    expect(migrated).toMatchObject({ added: 0, deleted: 0 });
    const next = await runIndex({ recallHome: history.context.recallHome, roots: history.roots });
    expect(next).toMatchObject({ added: 0, updated: 0, deleted: 0 });
    const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
    try {
      expect(
        db.query<{ n: number }, []>("SELECT count(*) AS n FROM watched_paths WHERE source = 'claude-code'").get()!.n,
      ).toBeGreaterThan(2);
      expect(
        db
          .query<{ n: number }, []>(
            "SELECT count(*) AS n FROM containers WHERE mtime_ms IS NULL AND source = 'claude-code'",
          )
          .get()!.n,
      ).toBe(0);
      expect(
        quickCheck(db, claudeCodeParser, history.roots["claude-code"]!, {
          nowMs: Date.now(),
          fullScanIntervalMs: freshnessDefaults.fullScanIntervalMs,
        }).kind,
      ).toBe("unchanged");
    } finally {
      db.close();
    }
  });
});

describe("issue 14: what the quick check relies on", () => {
  test("issue 42: a scan of roots that do not exist lists nothing, for every parser (the check settles such a source by a stat of its roots)", () => {
    const file = join(work, "a-file");
    writeFileSync(file, "not a folder");
    const roots = [join(work, "no-such-folder"), join(work, "no-such-folder", ".local", "share"), join(file, "below")];
    for (const parser of parsers) {
      const scan = parser.scan(roots);
      expect({ source: parser.id, containers: scan.containers, unavailable: scan.unavailable }).toEqual({
        source: parser.id,
        containers: [],
        unavailable: [],
      });
    }
  });

  test("issue 42: a source whose roots all vanished is stale while the index holds its sessions, and one never present is not", async () => {
    const history = makeHistory();
    const roots: SourceRootMap = { ...history.roots, codex: [join(history.dir, "no-codex")] };
    await runIndex({ recallHome: history.context.recallHome, roots });
    const check = () => {
      const db = openIndex(databasePath(history.context.recallHome), { readonly: true });
      try {
        return checkStaleness(db, roots).staleSources;
      } finally {
        db.close();
      }
    };
    expect(check()).toEqual([]);
    closeOpencodeDatabases();
    rmSync(join(history.dir, "opencode"), { recursive: true });
    expect(check()).toEqual(["opencode"]); // its database is gone: the next run marks its session deleted
  });

  test("a folder stat'ed in the same second it changed, on a file system with 1-second times, is never trusted", () => {
    const dir = join(work, "coarse");
    mkdirSync(dir, { recursive: true });
    const now = Math.floor(Date.now() / 1000) * 1000;
    utimesSync(dir, new Date(now), new Date(now));
    const stats = statSync(dir);
    const coarse = Object.assign(Object.create(Object.getPrototypeOf(stats)), stats, { ctimeMs: now, mtimeMs: now });
    expect(watchedFingerprint(coarse, now + 500)).toBe("?");
    expect(watchedFingerprint(coarse, now + 5000)).not.toBe("?");
    expect(watchedFingerprint(stats, now + 500)).not.toBe("?"); // a real ctime has sub-second digits here
  });

  test("containersBelow finds exactly the containers under a folder prefix of a sorted list (copy agents of a transcript)", () => {
    const paths = [
      "/p/a.jsonl",
      "/p/a/subagents/agent-1.jsonl",
      "/p/a/subagents/agent-2.jsonl",
      "/p/a/subagentsX.jsonl",
      "/p/b.jsonl",
      "/p/b/subagents/agent-3.jsonl",
    ];
    const sorted = paths.map((path) => ({ source: "claude-code" as const, path, fingerprint: "f", sizeBytes: 1 }));
    expect(containersBelow(sorted, "/p/a/subagents/").map((container) => container.path)).toEqual([
      "/p/a/subagents/agent-1.jsonl",
      "/p/a/subagents/agent-2.jsonl",
    ]);
    expect(containersBelow(sorted, "/p/b/subagents/").map((container) => container.path)).toEqual([
      "/p/b/subagents/agent-3.jsonl",
    ]);
    expect(containersBelow(sorted, "/p/c/subagents/")).toEqual([]);
  });

  // Goose's and Crush's fixtures are SQL scripts: their databases are built in the temp folder
  const built = join(work, "sql-fixtures");
  databaseFromScript("goose/sessions.sql", join(built, "goose", "sessions", "sessions.db"));
  databaseFromScript("crush/crush.sql", join(built, "crush", "project", ".crush", "crush.db"));
  writeChatStore(join(built, "cursor-agent", "chats"), readChatFixture());
  makeCursorUserFolder(join(built, "cursor"));
  // the corpus holds no sessions of the agents issue 40 added: their fixtures stand in
  const addedSources: SourceRootMap = {
    "copilot-cli": [join(fixtures, "copilot-cli")],
    "qwen-code": [join(fixtures, "qwen-code", ".qwen")],
    "kimi-cli": [join(fixtures, "kimi-cli", ".kimi")],
    pi: [join(fixtures, "pi")],
    droid: [join(fixtures, "droid")],
    goose: [join(built, "goose")],
    crush: [join(built, "crush")],
    continue: [join(fixtures, "continue")],
    openclaw: [join(fixtures, "openclaw", ".openclaw")],
    "mistral-vibe": [join(fixtures, "mistral-vibe", ".vibe")],
    codebuff: [join(fixtures, "codebuff", ".config", "manicode")],
    cline: [join(fixtures, "cline", "data")],
    "roo-code": [join(fixtures, "roo-code")],
    "kilo-code": [join(fixtures, "kilo-code")],
    "copilot-chat": [join(fixtures, "copilot-chat")],
    "cursor-agent": [join(built, "cursor-agent", "chats")],
    cursor: [join(built, "cursor", "User")],
  };
  const sources = [
    [
      "the fixtures",
      {
        "claude-code": [join(fixtures, "claude-code")],
        codex: [join(fixtures, "codex")],
        "gemini-cli": [join(fixtures, "gemini-cli")],
        ...addedSources,
      } as SourceRootMap,
    ],
    ...(hasCorpus ? [["the real corpus", { ...allCorpusRoots(), ...addedSources }] as const] : []),
  ] as const;
  for (const [label, roots] of sources) {
    test(`scanning one container path gives the fingerprint the whole walk gave it (${label})`, () => {
      let checked = 0;
      for (const parser of parsers.filter((candidate) => candidate.scansContainerPaths)) {
        const whole = parser.scan(roots[parser.id] ?? []);
        expect(whole.watched?.length ?? 0).toBeGreaterThan(0);
        for (const container of whole.containers) {
          const single = parser.scan([container.path]);
          expect(single.containers.map((entry) => [entry.path, entry.fingerprint])).toEqual([
            [container.path, container.fingerprint],
          ]);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(hasCorpus && label === "the real corpus" ? 200 : 10);
    });
  }
  if (!hasCorpus) test.skip("the real corpus (../shared/corpus is absent)", () => {});
});

describe("issue 42: the page cache of a search's connection", () => {
  /** The connection's page cache as SQLite reports it: negative = KiB. */
  const cacheSize = (db: Database) => db.query<{ cache_size: number }, []>("PRAGMA cache_size").get()!.cache_size;

  test("openFreshIndex's connection keeps the cache it was asked for, whether the index ran or not", async () => {
    const history = makeHistory();
    const options = { reindex: true, pageCacheKibibytes: oneShotPageCacheKibibytes };
    const first = await openFreshIndex(history.context, options); // the first index run, then a new connection
    const unchanged = await openFreshIndex(history.context, options); // nothing changed: the checking connection
    appendClaudeTurns(history.live.file, history.live.state, [{ prompt: "a sleeve for the cart", response: "ok" }]);
    const appended = await openFreshIndex(history.context, options); // an index run in between
    const withoutCheck = await openFreshIndex(history.context, { ...options, reindex: false });
    const longLived = await openFreshIndex(history.context, { reindex: false });
    try {
      for (const db of [first, unchanged, appended, withoutCheck])
        expect(cacheSize(db)).toBe(-oneShotPageCacheKibibytes);
      expect(cacheSize(longLived)).toBe(-2000); // SQLite's default
      const sleeve = "SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH 'sleeve'";
      expect(appended.query<{ n: number }, []>(sleeve).get()!.n).toBeGreaterThan(0); // the run came first
    } finally {
      for (const db of [first, unchanged, appended, withoutCheck, longLived]) db.close();
    }
  });

  test("a watching server's shared connection (recall ui, recall mcp) keeps 16 MiB of pages between searches", async () => {
    const history = makeHistory();
    await runIndex({ recallHome: history.context.recallHome, roots: history.context.roots });
    for (const watching of [true, false]) {
      const backend = createBackend({ context: history.context, embedder: undefined, watching, cwd: history.dir });
      try {
        expect({ watching, cache: await backend.withIndex(cacheSize) }).toEqual({
          watching,
          cache: watching ? -longLivedPageCacheKibibytes : -2000, // a connection per call otherwise: SQLite's default
        });
      } finally {
        await backend.close();
      }
    }
  });
});
