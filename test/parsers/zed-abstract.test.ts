/**
 * Zed abstract (issue 41): a thread's `detailed_summary` (the summary Zed's agent writes of the whole thread,
 * crates/agent/src/db.rs `DbThread`) is the session's abstract, an `agent_summary`; a thread without one has none.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zedParser } from "../../src/parsers/zed.ts";

const work = mkdtempSync(join(tmpdir(), "recall-zed-abstract-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const fixture = JSON.parse(readFileSync(join(import.meta.dir, "../fixtures/zed/threads.json"), "utf8")) as {
  threads: Array<{ id: string; thread: Record<string, unknown> }>;
};
const [first] = fixture.threads;

/** The abstract of the fixture's 0.3.0 thread stored (plain JSON) with `detailed_summary` set to `summary`. */
function abstractWith(name: string, summary: string | null): unknown {
  const dir = join(work, name, "zed", "threads");
  mkdirSync(dir, { recursive: true });
  const db = new Database(join(dir, "threads.db"), { create: true });
  db.run(
    "create table threads (id text primary key, summary text not null, updated_at text not null, data_type text not null, data blob not null)",
  );
  const thread: Record<string, unknown> = { ...first!.thread, detailed_summary: summary };
  db.run("insert into threads values (?, ?, ?, 'json', ?)", [
    first!.id,
    String(thread.title),
    String(thread.updated_at),
    Buffer.from(JSON.stringify(thread)),
  ]);
  db.close();
  const unit = zedParser.listUnits(zedParser.scan([join(work, name, "zed")]).containers)[0];
  if (!unit) throw new Error("no zed unit");
  return zedParser.parse(unit).session.abstract;
}

test("the detailed summary is the abstract; none without it", () => {
  expect(abstractWith("summed", "Fixed the panic on header-less requests; added a regression test.")).toEqual([
    { source: "agent_summary", text: "Fixed the panic on header-less requests; added a regression test.", at: 0 },
  ]);
  expect(abstractWith("plain", null)).toBeUndefined();
});
