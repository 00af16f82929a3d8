import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { appendFileSync, copyFileSync, renameSync, statSync, symlinkSync, unlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { checkStaleness, databasePath, openIndex, runIndex, type IndexSummary } from "../../../src/index/index.ts";
import { capArchivedOutput, decodeTurnOutputs, encodeTurnOutputs } from "../../../src/index/store/archive.ts";
import { scanStateUpdate, planSource } from "../../../src/index/plan/plan.ts";
import { claudeCodeParser } from "../../../src/parsers/claude-code.ts";
import type { Parser } from "../../../src/parsers/index.ts";
import { findSession, readSessionTurns, searchIndex } from "../../../src/search/index.ts";
import { appendClaudeTurns, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { countTextRows } from "../../helpers/archive-dump.ts";
import { tempDirs } from "../../helpers/temp-dirs.ts";
import { restoreResumeStateColumn } from "../../helpers/old-schema.ts";

const tempDir = tempDirs("recall-archive-");

const rootsFor = (claudeRoot: string) => ({
  "claude-code": [claudeRoot],
  opencode: [join(claudeRoot, "no-opencode-here")],
});
const idA = "aaaaaaaa-1111-4111-8111-111111111111";
const idB = "bbbbbbbb-2222-4222-8222-222222222222";
const idC = "cccccccc-3333-4333-8333-333333333333";
const longOutput = Array.from({ length: 100 }, (_, i) => `line ${i} of the quokka listing`).join("\n");

/** Two sessions in project -p (one with a 100-line tool output), one in project -q. */
function writeCorpus(root: string): void {
  writeClaudeSession(join(root, "-p", `${idA}.jsonl`), {
    sessionId: idA,
    cwd: "/home/dev/p",
    turns: [
      {
        prompt: "why does the zanzibar compose fail",
        response: "The bridge network is missing.",
        tools: [{ name: "Bash", input: { command: "docker network ls" }, output: longOutput }],
      },
      { prompt: "create the network", response: "Created it." },
    ],
  });
  writeClaudeSession(join(root, "-p", `${idB}.jsonl`), {
    sessionId: idB,
    cwd: "/home/dev/p",
    turns: [{ prompt: "pelican migration routes", response: "ok" }],
  });
  writeClaudeSession(join(root, "-q", `${idC}.jsonl`), {
    sessionId: idC,
    cwd: "/home/dev/q",
    turns: [{ prompt: "ostrich feathers", response: "ok" }],
  });
}

function sourceStates(home: string): Record<string, string> {
  const db = new Database(databasePath(home), { readonly: true });
  const rows = db
    .query<{ session_id: string; source_status: string }, []>("SELECT session_id, source_status FROM sessions")
    .all();
  db.close();
  return Object.fromEntries(rows.map((row) => [row.session_id, row.source_status]));
}

async function index(home: string, root: string, warnings: string[] = []): Promise<IndexSummary> {
  return runIndex({
    recallHome: home,
    roots: rootsFor(root),
    hooks: { onWarning: (message) => warnings.push(message) },
  });
}

describe("the archive keeps what the sources lose (issue 9)", () => {
  test("a deleted session file stays searchable at both levels and readable from the archive; put back it is present again", async () => {
    const root = tempDir();
    const home = tempDir();
    writeCorpus(root);
    await index(home, root);
    const path = join(root, "-p", `${idA}.jsonl`);
    const backup = join(tempDir(), "backup.jsonl");
    copyFileSync(path, backup);
    const { mtime } = statSync(path);
    unlinkSync(path);

    const before = countTextRows(home);
    expect(await index(home, root)).toMatchObject({ deleted: 1, removed: 0, unchanged: 2, added: 0, updated: 0 });
    expect(countTextRows(home)).toEqual(before);
    expect(sourceStates(home)).toEqual({ [idA]: "deleted", [idB]: "present", [idC]: "present" });

    const db = openIndex(databasePath(home), { readonly: true });
    try {
      const sessions = await searchIndex(db, { query: "zanzibar", level: "session", filters: {}, mode: "keyword" });
      expect(sessions.results.map((result) => [result.sessionId, result.sourceStatus])).toEqual([[idA, "deleted"]]);
      expect(sessions.results[0]!.lastSeenAt).toBeGreaterThan(Date.now() - 60_000);
      const turns = await searchIndex(db, {
        query: "bridge",
        level: "turn",
        filters: { sessionId: idA },
        mode: "keyword",
      });
      expect(turns.results.map((result) => "turn" in result && result.turn)).toEqual([1]);

      const read = readSessionTurns(db, findSession(db, "aaaaaaaa"));
      expect(read).toMatchObject({ fromArchive: true, archiveReason: "source deleted" });
      expect(read.result.turns.map((turn) => turn.prompt)).toEqual([
        "why does the zanzibar compose fail",
        "create the network",
      ]);
      const call = read.result.turns[0]!.toolCalls[0]!;
      expect(call).toMatchObject({ name: "Bash", input: "docker network ls", isError: false });
      const lines = call.output!.split("\n");
      expect(lines.slice(0, 40)).toEqual(longOutput.split("\n").slice(0, 40));
      expect(lines[40]).toMatch(
        /^… \(recall archived the first 40 lines \/ 4 KB of this output: 100 lines, [\d,]+ bytes in all\)$/,
      );
    } finally {
      db.close();
    }

    // Put back as it was (its ctime moves, so the change key differs and it is parsed again, finding nothing new).
    copyFileSync(backup, path);
    utimesSync(path, mtime, mtime);
    expect(await index(home, root)).toMatchObject({ restored: 1, added: 0, deleted: 0, turns: 0 });
    expect(sourceStates(home)[idA]).toBe("present");
    const present = openIndex(databasePath(home), { readonly: true });
    expect(readSessionTurns(present, findSession(present, idA)).fromArchive).toBe(false);
    present.close();
  });

  test("a missing root marks its sessions deleted and keeps them; when the root is back they are present again without a re-parse", async () => {
    const parent = tempDir();
    const root = join(parent, "projects");
    const home = tempDir();
    writeCorpus(root);
    await index(home, root);
    const before = countTextRows(home);
    renameSync(root, join(parent, "moved-away"));
    const gone = await index(home, root);
    expect(gone).toMatchObject({ deleted: 3, removed: 0 });
    expect(gone.missingRoots["claude-code"]).toEqual([root]);
    expect(countTextRows(home)).toEqual(before);
    renameSync(join(parent, "moved-away"), root);
    expect(await index(home, root)).toMatchObject({ restored: 3, bytesRead: 0 });
    expect(Object.values(sourceStates(home))).toEqual(["present", "present", "present"]);
  });

  test("a re-created file with other content is re-parsed and present again", async () => {
    const root = tempDir();
    const home = tempDir();
    writeCorpus(root);
    await index(home, root);
    const path = join(root, "-q", `${idC}.jsonl`);
    unlinkSync(path);
    await index(home, root);
    const state = writeClaudeSession(path, {
      sessionId: idC,
      cwd: "/home/dev/q",
      turns: [{ prompt: "ostrich feathers", response: "ok" }],
    });
    appendClaudeTurns(path, state, [{ prompt: "emu eggs", response: "fine" }]);
    expect(await index(home, root)).toMatchObject({ updated: 1, restored: 1, added: 0 });
    expect(sourceStates(home)[idC]).toBe("present");
    expect(countTextRows(home).turns).toBe(5);
  });

  test("a folder that cannot be read (a symlink loop) keeps its sessions untouched, warns once per folder and is retried next run", async () => {
    const root = tempDir();
    const home = tempDir();
    writeCorpus(root);
    await index(home, root);
    const before = countTextRows(home);
    const folder = join(root, "-p");
    const aside = join(tempDir(), "aside");
    renameSync(folder, aside);
    symlinkSync(folder, folder); // ELOOP: exists, cannot be read
    const warnings: string[] = [];
    const summary = await index(home, root, warnings);
    expect(summary).toMatchObject({ unavailable: 1, kept: 2, deleted: 0, removed: 0, degraded: true });
    expect(warnings.filter((line) => line.includes(folder) && line.includes("unavailable"))).toHaveLength(1);
    expect(countTextRows(home)).toEqual(before);
    expect(Object.values(sourceStates(home))).toEqual(["present", "present", "present"]);
    const db = openIndex(databasePath(home), { readonly: true });
    expect(checkStaleness(db, rootsFor(root)).staleSources).toEqual(["claude-code"]); // the next search retries
    db.close();

    unlinkSync(folder);
    renameSync(aside, folder);
    expect(await index(home, root)).toMatchObject({
      unavailable: 0,
      unchanged: 3,
      added: 0,
      updated: 0,
      bytesRead: 0,
      degraded: false,
    });
    const after = openIndex(databasePath(home), { readonly: true });
    expect(checkStaleness(after, rootsFor(root)).stale).toBe(false);
    after.close();
  });

  test("a container reported unavailable by listUnits is neither re-parsed nor marked deleted, and keeps its old fingerprint", async () => {
    const root = tempDir();
    const home = tempDir();
    writeCorpus(root);
    await index(home, root);
    const locked = join(root, "-p", `${idA}.jsonl`);
    appendFileSync(locked, "{}\n"); // changed: would be re-parsed if it could be read
    unlinkSync(join(root, "-p", `${idB}.jsonl`));
    // The real Claude parser, except that it cannot read one container right now (as OpenCode's with a locked db).
    const parser: Parser = {
      ...claudeCodeParser,
      listUnits(containers, hooks) {
        hooks?.onUnavailable?.(locked, "database is locked");
        return claudeCodeParser.listUnits(
          containers.filter((container) => container.path !== locked),
          hooks,
        );
      },
    };
    const db = openIndex(databasePath(home));
    try {
      const plan = planSource(db, parser, [root]);
      expect(plan.toParse).toEqual([]);
      expect(plan.unavailable).toEqual([{ path: locked, reason: "database is locked" }]);
      expect(plan.keptByPath.get(locked)).toBe(1);
      expect(plan.toMarkDeleted).toHaveLength(1); // idB vanished for real
      const stored = db
        .query<{ fingerprint: string }, [string]>("SELECT fingerprint FROM containers WHERE path = ?")
        .get(locked)!.fingerprint;
      const next = scanStateUpdate(db, parser, plan, new Set())!;
      expect(next.retry).toBe(true);
      expect(next.upserts.some((container) => container.path === locked)).toBe(false); // keeps its stored row
      expect(next.deletes).not.toContain(locked);
      expect(stored).toBeString();
      expect(next.deletes.some((path) => path.endsWith(`${idB}.jsonl`))).toBe(true);
    } finally {
      db.close();
    }
  });

  test("an index written by schema v1 is migrated and re-parsed once to archive tool outputs, keeping its documents", async () => {
    const root = tempDir();
    const home = tempDir();
    writeCorpus(root);
    await index(home, root);
    // Turn the index back into a v1 one: no archive columns or tables, no outputs.
    const db = new Database(databasePath(home));
    restoreResumeStateColumn(db);
    db.exec(`DROP TABLE turn_outputs; DROP TABLE forgotten; DROP INDEX sessions_deleted;
      ALTER TABLE sessions DROP COLUMN source_status; ALTER TABLE sessions DROP COLUMN last_seen_at; PRAGMA user_version = 1`);
    const documentIds = db.query("SELECT id, text_hash FROM documents ORDER BY id").all();
    db.close();
    const summary = await index(home, root);
    expect(summary).toMatchObject({ updated: 3, added: 0, deleted: 0 });
    expect(countTextRows(home).outputs).toBe(1);
    const migrated = new Database(databasePath(home), { readonly: true });
    expect(migrated.query("SELECT id, text_hash FROM documents ORDER BY id").all()).toEqual(documentIds);
    expect(migrated.query("SELECT DISTINCT source_status FROM sessions").all()).toEqual([{ source_status: "present" }]);
    migrated.close();
  });
});

describe("archived tool outputs (issue 9)", () => {
  test("short outputs are kept whole; long ones are cut to 40 lines and 4 KB and say so", () => {
    expect(capArchivedOutput("one\ntwo")).toBe("one\ntwo");
    const oneLongLine = "é".repeat(10_000); // 20,000 bytes in UTF-8
    const cut = capArchivedOutput(oneLongLine);
    const [kept, note] = cut.split("\n");
    expect(Buffer.byteLength(kept!)).toBeLessThanOrEqual(4096);
    expect(kept).toBe("é".repeat(2048));
    expect(note).toBe("… (recall archived the first 40 lines / 4 KB of this output: 1 lines, 20,000 bytes in all)");
    expect(capArchivedOutput(cut)).toBe(cut); // already cut: kept as it is
    const manyLines = capArchivedOutput(Array.from({ length: 100 }, (_, i) => `row ${i}`).join("\n"));
    expect(manyLines.split("\n")).toHaveLength(41);
    expect(capArchivedOutput(manyLines)).toBe(manyLines);
  });

  test("outputs round-trip through the compressed column, aligned with the tool calls", () => {
    const turn = {
      toolCalls: [
        { name: "Read", input: "a", isError: false },
        { name: "Bash", input: "ls", isError: false, output: "x\ny" },
      ],
    };
    expect(decodeTurnOutputs(encodeTurnOutputs(turn)!)).toEqual([null, "x\ny"]);
    expect(encodeTurnOutputs({ toolCalls: [{ name: "Read", input: "a", isError: false }] })).toBeUndefined();
  });

  test("outputs are stored as zstd; a gzip row written before still reads, a damaged one throws", () => {
    const blob = encodeTurnOutputs({ toolCalls: [{ name: "Bash", input: "ls", isError: false, output: "é\n🐳" }] })!;
    expect([...blob.subarray(0, 4)]).toEqual([0x28, 0xb5, 0x2f, 0xfd]); // the zstd frame magic (RFC 8878 §3.1.1)
    const before = Bun.gzipSync(Buffer.from(JSON.stringify([null, "x\ny", "é"])), { level: 3 });
    expect(decodeTurnOutputs(before)).toEqual([null, "x\ny", "é"]);
    expect(() => decodeTurnOutputs(blob.subarray(0, blob.length - 3))).toThrow();
    expect(() => decodeTurnOutputs(new Uint8Array([1, 2, 3, 4]))).toThrow();
  });
});
