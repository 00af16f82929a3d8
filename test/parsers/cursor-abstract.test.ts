/**
 * Cursor abstract (issue 41): a global composer's `latestConversationSummary {lastBubbleId, summary: {summary,
 * truncationLastBubbleIdInclusive, …}}` (the summary Cursor writes when it summarizes the conversation to free
 * context; field names as a reader of composerData types them) is the session's abstract, a `compaction` with no time.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeCursorDatabases, cursorParser } from "../../src/parsers/cursor.ts";
import { makeCursorUserFolder } from "../fixtures/cursor/make-db.ts";

const work = mkdtempSync(join(tmpdir(), "recall-cursor-abstract-"));
afterAll(() => {
  closeCursorDatabases();
  rmSync(work, { recursive: true, force: true });
});

test("a composer's latest conversation summary is the abstract; a composer without one has none", () => {
  const folder = makeCursorUserFolder(work);
  const before = cursorParser.listUnits(cursorParser.scan([folder.user]).containers);
  const unitOf = (units: typeof before) => units.find((unit) => unit.sessionId === "comp-global")!;
  expect(cursorParser.parse(unitOf(before)).session.abstract).toBeUndefined();
  const db = new Database(folder.globalDb);
  const query = db.query<{ value: string }, []>(
    "select value from cursorDiskKV where key = 'composerData:comp-global'",
  );
  const composer = JSON.parse(String(query.get()!.value));
  query.finalize();
  composer.latestConversationSummary = {
    lastBubbleId: "a2",
    summary: { summary: "The user wants health checks; /healthz was added.", truncationLastBubbleIdInclusive: "a2" },
  };
  composer.lastUpdatedAt += 1000;
  db.run("update cursorDiskKV set value = ? where key = 'composerData:comp-global'", [JSON.stringify(composer)]);
  db.close();
  closeCursorDatabases();
  const after = cursorParser.listUnits(cursorParser.scan([folder.user]).containers);
  const parsed = cursorParser.parse(unitOf(after));
  expect(parsed.session.abstract).toEqual([
    { source: "compaction", text: "The user wants health checks; /healthz was added.", at: 0 },
  ]);
  expect(parsed.turns.some((turn) => turn.response.includes("health checks;"))).toBe(false);
});
