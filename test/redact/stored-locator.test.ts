/**
 * Issue 37: the index stores each unit's locator (`sessions.unit_locator`) to re-read the source, and a Codex
 * locator carries the thread's title from `session_index.jsonl`: a secret typed into a renamed thread must not be
 * stored with it. Indexes a copy of the Codex fixture home whose main thread was renamed to a title holding a token,
 * then reads every byte under RECALL_HOME.
 */
import { afterAll, expect, test } from "bun:test";
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";

const work = mkdtempSync(join(tmpdir(), "recall-stored-locator-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A GitHub token of the documented shape (`ghp_` + 36 letters and digits), synthetic. */
const token = `ghp_${"Zk81mQx7Lp2Vb9Rt4Wy6Na3Kc5Hd0Fg2Js4E"}`;
const mainThread = "019c0000-aaaa-7000-8000-00000000000a";

test("a Codex thread title from session_index.jsonl is stored redacted, in the session row and in its locator", async () => {
  const home = join(work, "codex");
  cpSync(resolve(import.meta.dir, "../fixtures/codex/home"), home, { recursive: true });
  const rename = { id: mainThread, thread_name: `rotate ${token} today`, updated_at: "2026-03-09T00:00:00Z" };
  appendFileSync(join(home, "session_index.jsonl"), `\n${JSON.stringify(rename)}\n`);
  const recallHome = join(work, "recall-home");
  const summary = await runIndex({ recallHome, roots: { codex: [home] } });
  expect(summary.failedUnits).toBe(0);
  const db = openIndex(databasePath(recallHome), { readonly: true });
  try {
    const row = db
      .query<{ title: string; unit_locator: string }, [string]>(
        "SELECT title, unit_locator FROM sessions WHERE session_id = ?",
      )
      .get(mainThread)!;
    expect(row.title).toBe("rotate [REDACTED:github-token] today");
    expect(JSON.parse(row.unit_locator).indexTitle).toBe("rotate [REDACTED:github-token] today");
  } finally {
    db.close();
  }
  const files = readdirSync(recallHome, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  for (const file of files) {
    const bytes = readFileSync(join(file.parentPath, file.name)).toString("latin1");
    const leaked = bytes.includes(token.slice(4)) || bytes.includes(token.slice(4).toLowerCase());
    expect({ file: file.name, leaked }).toEqual({ file: file.name, leaked: false });
  }
}, 60_000);
