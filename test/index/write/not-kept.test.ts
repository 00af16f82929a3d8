import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runIndex } from "../../../src/index/index.ts";
import { appendClaudeTurns, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { runCli } from "../../helpers/cli.ts";
import { tempDirs } from "../../helpers/temp-dirs.ts";

/**
 * Issue 26, "say what was not kept": a file rejected whole and records that could not be placed are stored with their
 * reasons and reported by `recall index --json`, `recall status` and `recall doctor`, not only as a stderr line; they
 * go away when the file is fixed.
 */
const tempDir = tempDirs("recall-not-kept-");

const sessionId = "11111111-1111-4111-8111-111111111111";

/** A Claude root with one session whose file also holds two lines that are not JSON and one that is not an object. */
function claudeWithBrokenLines(root: string): string {
  const file = join(root, "-home-dev-app", `${sessionId}.jsonl`);
  writeClaudeSession(file, {
    sessionId,
    cwd: "/home/dev/app",
    turns: [{ prompt: "why does the docker bridge fail", response: "The network is missing." }],
  });
  appendFileSync(file, 'this is not json\n{"broken": \n[1, 2, 3]\n');
  return file;
}

/** A Gemini chat file that names no session: rejected whole. */
function geminiWithoutSessionId(geminiHome: string): string {
  const chats = join(geminiHome, "tmp", "app", "chats");
  mkdirSync(chats, { recursive: true });
  writeFileSync(join(geminiHome, "tmp", "app", ".project_root"), "/home/dev/app");
  const file = join(chats, "session-2026-03-01T10-00-abcd1234.json");
  writeFileSync(file, JSON.stringify({ projectHash: "x", messages: [{ type: "user", content: "lost prompt" }] }));
  return file;
}

function roots(claudeRoot: string, geminiHome: string, empty: string) {
  return { "claude-code": [claudeRoot], "gemini-cli": [geminiHome], opencode: [empty], codex: [empty] };
}

describe("what the index could not keep (issue 26)", () => {
  test("a rejected file and unplaced records are counted with their reasons, and cleared once the files are fixed", async () => {
    const claudeRoot = tempDir();
    const geminiHome = tempDir();
    const empty = tempDir();
    const home = tempDir();
    const claudeFile = claudeWithBrokenLines(claudeRoot);
    const geminiFile = geminiWithoutSessionId(geminiHome);
    const first = await runIndex({ recallHome: home, roots: roots(claudeRoot, geminiHome, empty) });
    expect(first.notKept.rejectedFiles).toEqual([{ source: "gemini-cli", path: geminiFile, reason: "no sessionId" }]);
    expect(first.notKept.rejectedFileCount).toBe(1);
    const unplaced = first.notKept.unplacedRecords.map(({ sessionId, reason, count, first }) => ({
      sessionId,
      reason,
      count,
      first,
    }));
    expect(unplaced).toEqual([
      { sessionId, reason: "not JSON", count: 2, first: `${claudeFile}:3` },
      { sessionId, reason: "not a JSON object", count: 1, first: `${claudeFile}:5` },
    ]);
    expect(first.notKept.unplacedRecordCount).toBe(3);

    // A run that parses nothing still reports the state of the index.
    const again = await runIndex({ recallHome: home, roots: roots(claudeRoot, geminiHome, empty) });
    expect(again.added + again.updated).toBe(0);
    expect(again.notKept.rejectedFileCount).toBe(1);
    expect(again.notKept.unplacedRecordCount).toBe(3);

    // Fixed files: the rows go.
    writeFileSync(geminiFile, JSON.stringify({ sessionId: "abcd1234-0000-4000-8000-000000000000", messages: [] }));
    writeClaudeSession(claudeFile, {
      sessionId,
      cwd: "/home/dev/app",
      turns: [{ prompt: "why does the docker bridge fail", response: "The network is missing." }],
    });
    const fixed = await runIndex({ recallHome: home, roots: roots(claudeRoot, geminiHome, empty) });
    expect(fixed.notKept).toEqual({
      rejectedFiles: [],
      rejectedFileCount: 0,
      unplacedRecords: [],
      unplacedRecordCount: 0,
    });
  });

  test("an append parsed from the resume state still reports the records the earlier bytes could not place", async () => {
    const claudeRoot = tempDir();
    const empty = tempDir();
    const home = tempDir();
    const file = join(claudeRoot, "-home-dev-app", `${sessionId}.jsonl`);
    const state = writeClaudeSession(file, {
      sessionId,
      cwd: "/home/dev/app",
      turns: [{ prompt: "why does the docker bridge fail", response: "The network is missing." }],
    });
    appendFileSync(file, "this is not json\n");
    const roots = { "claude-code": [claudeRoot], opencode: [empty], "gemini-cli": [empty], codex: [empty] };
    const first = await runIndex({ recallHome: home, roots });
    expect(first.notKept.unplacedRecordCount).toBe(1);
    appendClaudeTurns(file, state, [{ prompt: "and the overlay network", response: "Also missing." }]);
    appendFileSync(file, "also not json\n");
    const second = await runIndex({ recallHome: home, roots });
    expect(second.updated).toBe(1);
    expect(second.bytesRead).toBeLessThan(Bun.file(file).size); // resumed: only the appended bytes were decoded
    expect(second.notKept.unplacedRecords).toEqual([
      { source: "claude-code", sessionId, path: file, reason: "not JSON", count: 2, first: `${file}:3` },
    ]);
  });

  test("index --json, status and doctor say the same thing", async () => {
    const claudeRoot = tempDir();
    const geminiHome = tempDir();
    const empty = tempDir();
    const home = tempDir();
    const claudeFile = claudeWithBrokenLines(claudeRoot);
    const geminiFile = geminiWithoutSessionId(geminiHome);
    const env = {
      ...process.env,
      RECALL_HOME: home,
      HOME: empty,
      RECALL_CLAUDE_DIRS: claudeRoot,
      RECALL_GEMINI_DIRS: geminiHome,
      RECALL_OPENCODE_DIRS: empty,
      RECALL_CODEX_DIRS: empty,
      RECALL_CURSOR_DIRS: empty,
      RECALL_AIDER_DIRS: empty,
      NO_COLOR: "1",
    };
    const run = (args: string[]) => runCli(args, env);
    const indexed = run(["index", "--json", "--keyword-only"]);
    expect(indexed.exitCode).toBe(0);
    const json = JSON.parse(indexed.stdout.toString());
    expect(json.rejected_files).toEqual([{ source: "gemini-cli", path: geminiFile, reason: "no sessionId" }]);
    expect(json.rejected_file_count).toBe(1);
    expect(json.unplaced_record_count).toBe(3);
    expect(json.unplaced_records[0]).toEqual({
      source: "claude-code",
      session_id: sessionId,
      path: claudeFile,
      reason: "not JSON",
      count: 2,
      first: `${claudeFile}:3`,
    });
    expect(indexed.stderr.toString()).toContain(`${geminiFile}: no sessionId; not indexed`);

    const status = run(["status"]);
    const statusText = status.stdout.toString();
    expect(statusText).toContain("not kept: 1 file rejected, 3 records unplaced");
    expect(statusText).toContain(`rejected  gemini-cli  ${geminiFile}: no sessionId`);
    expect(statusText).toContain(`unplaced  claude-code  2 records: not JSON (first at ${claudeFile}:3)`);
    const statusJson = JSON.parse(run(["status", "--json"]).stdout.toString());
    expect(statusJson.rejected_file_count).toBe(1);
    expect(statusJson.unplaced_record_count).toBe(3);

    const doctor = JSON.parse(run(["doctor", "--json"]).stdout.toString());
    const check = doctor.checks.find((entry: { id: string }) => entry.id === "not-kept");
    expect(check.status).toBe("warn");
    expect(check.message).toContain("1 file rejected whole, 3 records not placed");
    expect(check.message).toContain(`${geminiFile}: no sessionId`);
  }, 60_000);
});
