/**
 * Issue 40, "never silent about history it cannot read": folders where an agent recall knows of keeps sessions in a
 * format it does not read (Amp's threads, Cline's SDK sessions, Windsurf's encrypted Cascade files) are named with their
 * file count by `recall status` (text and JSON), `recall index --json` and `recall doctor`, found at the agents'
 * default places under HOME; a HOME without them reports none.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDoctor } from "../../src/doctor/index.ts";
import { findUnreadHistory } from "../../src/parsers/unread-history.ts";
import { runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-unread-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A HOME holding each kind of unread history: 2 Amp threads, 1 Cline SDK session, 3 Windsurf files. */
function homeWithUnreadHistory(): string {
  const home = join(work, "home");
  const amp = join(home, ".local", "share", "amp", "threads");
  mkdirSync(amp, { recursive: true });
  writeFileSync(join(amp, "T-0a1b.json"), '{"id":"T-0a1b","messages":[]}');
  writeFileSync(join(amp, "T-0a1c.json"), '{"id":"T-0a1c","messages":[]}');
  writeFileSync(join(amp, "notes.txt"), "not a thread");
  const cline = join(home, ".cline", "data", "sessions", "s1");
  mkdirSync(cline, { recursive: true });
  writeFileSync(join(cline, "s1.messages.json"), "[]");
  writeFileSync(join(cline, "s1.json"), "{}");
  const windsurf = join(home, ".codeium", "windsurf", "cascade");
  mkdirSync(windsurf, { recursive: true });
  for (const name of ["a.pb", "b.pb", "c.pb"]) writeFileSync(join(windsurf, name), "\u0000\u0001");
  return home;
}

describe("history recall does not read is named, not ignored (issue 40)", () => {
  const home = homeWithUnreadHistory();
  const env = { ...process.env, HOME: home, RECALL_HOME: join(work, "recall") };

  test("found at the default places with their file counts; a HOME without them has none", () => {
    expect(findUnreadHistory({}, home)).toEqual([
      expect.objectContaining({ agent: "Amp", folder: join(home, ".local/share/amp/threads"), files: 2 }),
      expect.objectContaining({ agent: "Cline (SDK sessions)", files: 1 }),
      expect.objectContaining({ agent: "Windsurf", files: 3 }),
    ]);
    // Amp follows XDG_DATA_HOME, Cline its CLINE_DATA_DIR
    expect(
      findUnreadHistory({ XDG_DATA_HOME: join(work, "elsewhere"), CLINE_DATA_DIR: join(work, "x") }, home),
    ).toEqual([expect.objectContaining({ agent: "Windsurf" })]);
    expect(findUnreadHistory({}, join(work, "empty-home"))).toEqual([]);
  });

  test("recall index --json and recall status (JSON and text) name them", () => {
    const index = runCli(["index", "--json"], env);
    expect(index.exitCode).toBe(0);
    const unread = JSON.parse(index.stdout).unread_history as Array<{ agent: string; files: number; reason: string }>;
    expect(unread.map((entry) => [entry.agent, entry.files])).toEqual([
      ["Amp", 2],
      ["Cline (SDK sessions)", 1],
      ["Windsurf", 3],
    ]);
    expect(unread.every((entry) => entry.reason.length > 10)).toBe(true);
    const status = runCli(["status", "--json"], env);
    expect(JSON.parse(status.stdout).unread_history).toEqual(JSON.parse(index.stdout).unread_history);
    const text = runCli(["status"], env).stdout;
    expect(text).toContain(`not read: Amp, 2 files in ${join(home, ".local/share/amp/threads")} (`);
    expect(text).toContain("not read: Windsurf, 3 files in");
    const none = runCli(["status", "--json"], { ...env, HOME: join(work, "empty-home") });
    expect(JSON.parse(none.stdout).unread_history).toEqual([]);
  });

  test("recall doctor warns with each folder", async () => {
    const checks = await runDoctor({ recallHome: join(work, "recall"), roots: {}, env: {}, home });
    const unread = checks.find((check) => check.id === "unread")!;
    expect(unread.status).toBe("warn");
    expect(unread.message).toContain("Amp, 2 files in");
    expect(unread.message).toContain("Cline (SDK sessions), 1 file in");
    const clean = await runDoctor({ recallHome: join(work, "recall"), roots: {}, env: {}, home: join(work, "empty") });
    expect(clean.find((check) => check.id === "unread")?.status).toBe("ok");
  });
});
