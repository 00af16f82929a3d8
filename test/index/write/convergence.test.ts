/**
 * Issue 9, "an incremental run must converge to what --full gives": for each kind of change QA
 * reproduced, index real fixture files, make the change, run an incremental index, and compare every
 * row of the index with a clean `--full` index of the same files (test/helpers/index-dump.ts).
 * Each test also checks that the change reached the index, so equality is not the trivial kind.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runIndex, type IndexSummary } from "../../../src/index/index.ts";
import { closeOpencodeDatabases } from "../../../src/parsers/opencode.ts";
import type { SourceRootMap } from "../../../src/parsers/types.ts";
import { createSchema, insertExchange, insertPart, insertSession } from "../../fixtures/opencode/make-db.ts";
import { appendClaudeTurns, fillerText, writeClaudeSession, type WriterState } from "../../helpers/claude-writer.ts";
import { dumpIndex } from "../../helpers/index-dump.ts";

const fixtures = resolve(import.meta.dir, "../../fixtures");
const S1 = "11111111-1111-4111-8111-111111111111";
const work = mkdtempSync(join(tmpdir(), "recall-converge-"));
afterAll(() => {
  closeOpencodeDatabases();
  rmSync(work, { recursive: true, force: true });
});

let caseNumber = 0;
const words = ["question", "cookie", "cart", "repo", "summary", "rewritten", "edited", "explore"];

interface Case {
  dir: string;
  roots: SourceRootMap;
}

function newCase(): Case {
  const dir = join(work, `case-${++caseNumber}`);
  return { dir, roots: { "claude-code": [join(dir, "claude")], opencode: [join(dir, "opencode")] } };
}

/**
 * Index, apply `change`, index again incrementally (by the freshness rule, or scanning whole with `scan`), index the
 * same files with `full` in a fresh home, and compare. @returns the incremental run's summary
 */
async function expectConvergence(
  c: Case,
  change: () => void | Promise<void>,
  scan: "quick" | "whole" = "quick",
): Promise<IndexSummary> {
  const home = join(c.dir, "home");
  const first = await runIndex({ recallHome: home, roots: c.roots });
  expect(first.failedUnits).toBe(0);
  const before = dumpIndex(home, { words });
  await Bun.sleep(5); // distinct timestamps for the change
  await change();
  const incremental = await runIndex({ recallHome: home, roots: c.roots, scan });
  const after = dumpIndex(home, { words });
  await runIndex({ recallHome: join(c.dir, "home-full"), roots: c.roots, full: true });
  expect(after).not.toEqual(before);
  expect(after).toEqual(dumpIndex(join(c.dir, "home-full"), { words }));
  return incremental;
}

/** A ~250 KB Claude session under the case's claude root. */
function bigClaudeSession(c: Case): { file: string; state: WriterState } {
  const file = join(c.dir, "claude", "-home-dev-shop", "22222222-2222-4222-8222-222222222222.jsonl");
  const turns = Array.from({ length: 60 }, (_, i) => ({
    prompt: `question ${i} about the cart ${fillerText(i, 20)}`,
    response: fillerText(i + 100, 300),
  }));
  const state = writeClaudeSession(file, {
    sessionId: "22222222-2222-4222-8222-222222222222",
    cwd: "/home/dev/shop",
    turns,
  });
  return { file, state };
}

/** Replace the first `from` by `to` (same byte length), keeping the size. */
function editInPlace(file: string, from: string, to: string): void {
  const bytes = readFileSync(file);
  const at = bytes.indexOf(from);
  expect(at).toBeGreaterThanOrEqual(0);
  bytes.write(to, at);
  writeFileSync(file, bytes);
}

/** A rollback-journal OpenCode db with one session of one exchange. */
function openCodeDb(c: Case): string {
  const path = join(c.dir, "opencode", "opencode.db");
  Bun.spawnSync(["mkdir", "-p", join(c.dir, "opencode")]);
  const db = new Database(path);
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
  return path;
}

describe("issue 9: an incremental index converges to a clean --full index", () => {
  test("a Claude transcript edited early and then appended (the old resume check read only the last 4 KiB)", async () => {
    const c = newCase();
    const { file, state } = bigClaudeSession(c);
    await expectConvergence(c, () => {
      editInPlace(file, "question 0 about", "edited 0 aboutXX");
      appendClaudeTurns(file, state, [{ prompt: "question 60 one more", response: "done" }]);
    });
  });

  test("a same-size rewrite of a Claude transcript with its mtime put back (touch -d)", async () => {
    const c = newCase();
    const { file } = bigClaudeSession(c);
    const stamp = new Date("2026-03-01T10:00:00Z"); // as `touch -d "2026-03-01 10:00"` sets it, before and after
    utimesSync(file, stamp, stamp);
    // A months-old file changed in place: the quick check leaves it to the next whole scan (test/index/freshness.test.ts).
    await expectConvergence(
      c,
      () => {
        const { ino, size } = statSync(file);
        editInPlace(file, "question 30 about", "rewritten 30 abou");
        utimesSync(file, stamp, stamp);
        expect(statSync(file)).toMatchObject({ ino, size, mtimeMs: stamp.getTime() });
      },
      "whole",
    );
  });

  test("a compaction copy agent whose parent transcript is written after it was indexed", async () => {
    const c = newCase();
    cpSync(join(fixtures, "claude-code", "dot-claude"), join(c.dir, "claude", ".claude"), { recursive: true });
    const parent = join(c.dir, "claude", ".claude", "projects", "-home-dev-proj", `${S1}.jsonl`);
    const content = readFileSync(parent);
    writeFileSync(parent, ""); // first run: the parent has no lines yet, so the copy looks like the agent's own
    await expectConvergence(c, () => writeFileSync(parent, content));
  });

  test("a nested sub-agent's meta.json (its title) written after its transcript was indexed", async () => {
    const c = newCase();
    cpSync(join(fixtures, "claude-code", "dot-claude"), join(c.dir, "claude", ".claude"), { recursive: true });
    const meta = join(
      c.dir,
      "claude",
      ".claude",
      "projects",
      "-home-dev-proj",
      S1,
      "subagents",
      "agent-a0123456789abcdef.meta.json",
    );
    const text = readFileSync(meta);
    unlinkSync(meta);
    await expectConvergence(c, () => writeFileSync(meta, text));
  });

  test("OpenCode parts added to the newest message while neither message nor session time_updated moves", async () => {
    const c = newCase();
    const path = openCodeDb(c);
    await expectConvergence(c, () => {
      const db = new Database(path);
      insertPart(db, "ses_cart", "msg_1v", "prt_1w", { type: "text", text: "Found it: the cookie is dropped." });
      db.close();
    });
  });

  test("an OpenCode part updated in place (a tool call completing)", async () => {
    const c = newCase();
    const path = openCodeDb(c);
    const setup = new Database(path);
    insertPart(setup, "ses_cart", "msg_1v", "prt_1t", {
      type: "tool",
      callID: "c1",
      tool: "bash",
      state: { status: "running", input: { command: "grep cookie" } },
    });
    setup.close();
    await expectConvergence(c, () => {
      const db = new Database(path);
      const done = {
        type: "tool",
        callID: "c1",
        tool: "bash",
        state: {
          status: "completed",
          input: { command: "grep cookie src/cart.ts" },
          output: "cookie",
          title: "grep",
          metadata: {},
        },
      };
      db.run("update part set data = ?, time_updated = 1700 where id = 'prt_1t'", [JSON.stringify(done)]);
      db.close();
    });
  });

  test("an OpenCode JSON storage part of the newest message rewritten in place", async () => {
    const c = newCase();
    cpSync(join(fixtures, "opencode", "json-storage", "storage"), join(c.dir, "opencode", "storage"), {
      recursive: true,
    });
    const part = join(c.dir, "opencode", "storage", "part", "msg_c02", "prt_c02b.json");
    await expectConvergence(c, () => {
      const value = JSON.parse(readFileSync(part, "utf8"));
      writeFileSync(part, JSON.stringify({ ...value, type: "text", text: "rewritten in place: the cookie" }, null, 2));
    });
  });

  test("an OpenCode JSON storage quiet for two days, then a message and its part added to a session", async () => {
    const c = newCase();
    const storage = join(c.dir, "opencode", "storage");
    cpSync(join(fixtures, "opencode", "json-storage", "storage"), storage, { recursive: true });
    const then = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    for (const name of readdirSync(storage, { recursive: true }) as string[])
      utimesSync(join(storage, name), then, then);
    const summary = await expectConvergence(c, () => {
      writeFileSync(
        join(storage, "message", "ses_child", "msg_c03.json"),
        JSON.stringify({ id: "msg_c03", role: "user", time: { created: 1400 } }, null, 2),
      );
      mkdirSync(join(storage, "part", "msg_c03"));
      writeFileSync(
        join(storage, "part", "msg_c03", "prt_c03a.json"),
        JSON.stringify({ id: "prt_c03a", type: "text", text: "a question about the cookie, two days later" }, null, 2),
      );
    });
    expect(summary).toMatchObject({ updated: 1, failedUnits: 0 });
  });

  test("a self-referencing link and five links to a parent folder appear next to an appended session", async () => {
    const c = newCase();
    const { file, state } = bigClaudeSession(c);
    const summary = await expectConvergence(c, () => {
      const project = join(c.dir, "claude", "-home-dev-shop");
      symlinkSync("loop", join(project, "loop"));
      for (let i = 0; i < 5; i++) symlinkSync("..", join(project, `up${i}`));
      appendClaudeTurns(file, state, [{ prompt: "question 61 after the links", response: "ok" }]);
    });
    expect(summary).toMatchObject({ added: 0, updated: 1, failedUnits: 0 });
  });
});
