/**
 * Droid abstract (issue 41): a `compaction_state {summaryText}` record is the session's abstract (`compaction`), not a
 * turn and no longer a skipped record.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { droidParser } from "../../src/parsers/droid.ts";

const work = mkdtempSync(join(tmpdir(), "recall-droid-abstract-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("a compaction_state summary is the abstract, newest first, in no turn and not skipped", () => {
  const id = "6f0c2d1e-5a4b-4c3d-8e9f-0a1b2c3d4e5f";
  const folder = join(work, "sessions", "-w-app");
  mkdirSync(folder, { recursive: true });
  const message = (role: string, text: string, timestamp: string) => ({
    type: "message",
    id: `${role}-${timestamp}`,
    timestamp,
    message: { role, content: [{ type: "text", text }] },
  });
  const lines = [
    { type: "session_start", id, title: "Paginate orders", owner: "dev", version: 2, cwd: "/w/app" },
    message("user", "Add pagination to /orders", "2026-05-01T10:00:00.000Z"),
    message("assistant", "Added it.", "2026-05-01T10:00:05.000Z"),
    { type: "compaction_state", timestamp: "2026-05-01T10:05:00.000Z", summaryText: "Goal: paginate /orders." },
    message("user", "Now the tests", "2026-05-01T10:06:00.000Z"),
    { type: "compaction_state", timestamp: "2026-05-01T10:09:00.000Z", summaryText: "Pagination is tested." },
  ];
  writeFileSync(join(folder, `${id}.jsonl`), lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  const unit = droidParser.listUnits(droidParser.scan([join(work, "sessions")]).containers)[0];
  if (!unit) throw new Error("no droid unit");
  const { session, turns, skipped } = droidParser.parse(unit);
  expect(session.abstract).toEqual([
    { source: "compaction", text: "Pagination is tested.", at: Date.parse("2026-05-01T10:09:00.000Z") },
    { source: "compaction", text: "Goal: paginate /orders.", at: Date.parse("2026-05-01T10:05:00.000Z") },
  ]);
  expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([
    ["Add pagination to /orders", "Added it."],
    ["Now the tests", ""],
  ]);
  expect(skipped.count).toBe(0);
});
