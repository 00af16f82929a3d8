/**
 * Issue 11: prompt-history files in the index. A session known only from `history.jsonl` / `logs.json` is indexed
 * as prompt-only (marked in every output, no resume command); it never duplicates or replaces a transcript session,
 * present or deleted; a transcript that appears later replaces it; appended prompts keep the turn numbers.
 * Untitled sessions show their first real prompt, never a Claude Code slug.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex, type IndexSummary } from "../../../src/index/index.ts";
import { codexParser } from "../../../src/parsers/codex.ts";
import { geminiCliParser } from "../../../src/parsers/gemini-cli.ts";
import { sourceLocationVariables } from "../../../src/parsers/index.ts";
import { isInterfaceCommand } from "../../../src/parsers/shared/prompt-history.ts";
import { titleFromPrompt } from "../../../src/index/write/derived-title.ts";
import { writeClaudeSession } from "../../helpers/claude-writer.ts";
import { runCli } from "../../helpers/cli.ts";
import { restoreResumeStateColumn } from "../../helpers/old-schema.ts";

const work = mkdtempSync(join(tmpdir(), "recall-prompt-only-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const idKept = "aaaaaaaa-1111-4111-8111-111111111111"; // transcript + history prompts
const idPrompts = "bbbbbbbb-2222-4222-8222-222222222222"; // history only
const idProbe = "cccccccc-3333-4333-8333-333333333333"; // history with nothing but /usage and /status
const t0 = Date.parse("2026-05-01T10:00:00Z");

const historyLine = (sessionId: string, display: string, offsetMs: number, pasted: Record<string, unknown> = {}) =>
  `${JSON.stringify({ display, pastedContents: pasted, timestamp: t0 + offsetMs, project: "/home/dev/harbor", sessionId })}\n`;

/** A `.claude` folder: one transcript, and a history holding its prompts plus two sessions without transcript. */
function writeClaudeHome(dir: string): string {
  const claude = join(dir, ".claude");
  writeClaudeSession(join(claude, "projects", "-home-dev-harbor", `${idKept}.jsonl`), {
    sessionId: idKept,
    cwd: "/home/dev/harbor",
    startMs: t0,
    turns: [{ prompt: "rotate the quokka registry credentials", response: "Rotated them with the vault CLI." }],
  });
  writeFileSync(
    join(claude, "history.jsonl"),
    historyLine(idKept, "rotate the quokka registry credentials", 0) +
      historyLine(idPrompts, "/usage", 1000) +
      historyLine(idPrompts, "why is the narwhal webhook dropping events", 2000) +
      historyLine(idPrompts, "check this log [Pasted text #1 +2 lines]", 3000, {
        "1": { id: 1, type: "text", content: "ERROR axolotl timeout\nretrying" },
      }) +
      historyLine(idProbe, "/usage", 4000) +
      historyLine(idProbe, "/status", 5000),
  );
  return claude;
}

interface Row {
  session_id: string;
  prompt_only: number;
  source_status: string;
  turn_count: number;
  title: string | null;
}
function rows(home: string): Row[] {
  const db = new Database(databasePath(home), { readonly: true });
  const out = db
    .query<Row, []>(
      "SELECT session_id, prompt_only, source_status, turn_count, title FROM sessions ORDER BY session_id",
    )
    .all();
  db.close();
  return out;
}
function turns(home: string, sessionId: string): Array<{ number: number; prompt: string; response: string }> {
  const db = new Database(databasePath(home), { readonly: true });
  const out = db
    .query<{ number: number; prompt: string; response: string }, [string]>(
      "SELECT t.number, t.prompt, t.response FROM turns t JOIN sessions s ON s.id = t.session_rowid WHERE s.session_id = ? ORDER BY t.number",
    )
    .all(sessionId);
  db.close();
  return out;
}

function recall(home: string, claude: string, args: string[]) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: join(work, "user-home"),
    RECALL_HOME: home,
    RECALL_OFFLINE: "1",
  };
  for (const key of sourceLocationVariables) delete env[key];
  const { exitCode: code, stdout, stderr } = runCli([...args, "--claude-dir", claude], env);
  return { code, stdout, stderr };
}

describe("prompt-history sessions in the index (issue 11)", () => {
  const claude = writeClaudeHome(join(work, "claude-home"));
  const home = join(work, "index");
  const index = (): Promise<IndexSummary> => runIndex({ recallHome: home, roots: { "claude-code": [claude] } });

  test("only a session without transcript becomes prompt-only; interface commands are left out, pasted text is expanded", async () => {
    await index();
    expect(rows(home).map((row) => [row.session_id, row.prompt_only, row.turn_count])).toEqual([
      [idKept, 0, 1],
      [idPrompts, 1, 2],
    ]);
    expect(turns(home, idKept)[0]?.response).toBe("Rotated them with the vault CLI."); // the transcript, not the history line
    expect(turns(home, idPrompts)).toEqual([
      { number: 1, prompt: "why is the narwhal webhook dropping events", response: "" },
      { number: 2, prompt: "check this log ERROR axolotl timeout\nretrying", response: "" },
    ]);
  });

  test("search, sessions, show and status mark it; it has no resume command", () => {
    const search = JSON.parse(recall(home, claude, ["search", "narwhal webhook", "--json"]).stdout);
    expect(search.results[0]).toMatchObject({
      session_id: idPrompts,
      prompt_only: true,
      resume_command: null,
      title: "why is the narwhal webhook dropping events",
    });
    const transcript = JSON.parse(recall(home, claude, ["search", "quokka registry", "--json"]).stdout);
    expect(transcript.results[0]).toMatchObject({
      session_id: idKept,
      prompt_only: false,
      resume_command: `cd /home/dev/harbor && claude --resume ${idKept}`,
    });
    const turnHit = JSON.parse(recall(home, claude, ["search", "axolotl timeout", "--depth", "2", "--json"]).stdout);
    expect(turnHit.results[0]).toMatchObject({ session_id: idPrompts, turn: 2, prompt_only: true });
    const text = recall(home, claude, ["search", "narwhal webhook"]).stdout;
    expect(text).toContain("(prompts only: no transcript on this machine)");
    const sessions = JSON.parse(recall(home, claude, ["sessions", "--json"]).stdout).sessions as Array<{
      session_id: string;
      prompt_only: boolean;
    }>;
    expect(sessions.map((session) => [session.session_id, session.prompt_only]).sort()).toEqual([
      [idKept, false],
      [idPrompts, true],
    ]);
    const show = recall(home, claude, ["show", `${idPrompts}:1-2`]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("resume: none (prompts only: no transcript on this machine)");
    expect(show.stdout).toContain("> check this log ERROR axolotl timeout");
    expect(JSON.parse(recall(home, claude, ["show", idPrompts, "--json"]).stdout).session).toMatchObject({
      prompt_only: true,
      resume_command: null,
    });
    expect(JSON.parse(recall(home, claude, ["status", "--json"]).stdout)).toMatchObject({
      sessions: 2,
      prompt_only_sessions: 1,
    });
  });

  test("an appended prompt adds a turn and keeps the numbers; nothing else is re-parsed", async () => {
    appendFileSync(join(claude, "history.jsonl"), historyLine(idPrompts, "and the retry queue too", 6000));
    const summary = await index();
    expect(summary).toMatchObject({ added: 0, updated: 1 });
    expect(turns(home, idPrompts).map((turn) => [turn.number, turn.prompt])).toEqual([
      [1, "why is the narwhal webhook dropping events"],
      [2, "check this log ERROR axolotl timeout\nretrying"],
      [3, "and the retry queue too"],
    ]);
  });

  test("a deleted transcript stays a transcript session (marked deleted), never replaced by its history prompts", async () => {
    unlinkSync(join(claude, "projects", "-home-dev-harbor", `${idKept}.jsonl`));
    await index();
    expect(rows(home).find((row) => row.session_id === idKept)).toMatchObject({
      prompt_only: 0,
      source_status: "deleted",
      turn_count: 1,
    });
    expect(turns(home, idKept)[0]?.response).toBe("Rotated them with the vault CLI.");
  });

  test("a transcript that appears later replaces the prompt-only session of its id (one row)", async () => {
    writeClaudeSession(join(claude, "projects", "-home-dev-harbor", `${idPrompts}.jsonl`), {
      sessionId: idPrompts,
      cwd: "/home/dev/harbor",
      startMs: t0 + 2000,
      turns: [
        {
          prompt: "why is the narwhal webhook dropping events",
          response: "The signing secret rotated; re-register it.",
        },
      ],
    });
    await index();
    expect(rows(home).filter((row) => row.session_id === idPrompts)).toMatchObject([
      { prompt_only: 0, source_status: "present", turn_count: 1 },
    ]);
    expect(turns(home, idPrompts)[0]?.response).toBe("The signing secret rotated; re-register it.");
  });

  test("an index of schema 3 is migrated: the prompt_only column, and Claude Code slugs are no longer titles", async () => {
    const db = new Database(databasePath(home));
    restoreResumeStateColumn(db);
    db.exec(`UPDATE sessions SET title = 'cuddly-floating-comet' WHERE session_id = '${idPrompts}';
      ALTER TABLE sessions DROP COLUMN prompt_only; PRAGMA user_version = 3`);
    db.close();
    openIndex(databasePath(home)).close();
    expect(rows(home).find((row) => row.session_id === idPrompts)).toMatchObject({ title: null, prompt_only: 0 });
    const summary = await index(); // the slug-titled session is re-parsed once, its session document without the slug
    expect(summary.updated).toBe(1);
    const listed = JSON.parse(recall(home, claude, ["sessions", "--json"]).stdout).sessions as Array<{
      session_id: string;
      title: string;
    }>;
    expect(listed.find((session) => session.session_id === idPrompts)?.title).toBe(
      "why is the narwhal webhook dropping events",
    );
  });
});

describe("prompt-history readers (issue 11)", () => {
  test("a Codex home whose rollouts were all deleted still yields its threads from history.jsonl (seconds → ms)", () => {
    const codexHome = join(work, "codex-only-history", ".codex");
    mkdirSync(codexHome, { recursive: true });
    const id = "019d0000-0000-7000-8000-0000000000aa";
    writeFileSync(
      join(codexHome, "history.jsonl"),
      `${JSON.stringify({ session_id: id, ts: 1774829400, text: "bump the pelican parser to v2" })}\nnot json\n`,
    );
    const units = codexParser.listUnits(codexParser.scan([codexHome]).containers);
    expect(units.map((unit) => [unit.sessionId, unit.promptOnly])).toEqual([[id, true]]);
    const { session, turns: parsed } = codexParser.parse(units[0]!);
    expect(session).toMatchObject({
      source: "codex",
      promptOnly: true,
      startedAt: 1774829400000,
      projectPath: "",
      turnCount: 1,
    });
    expect(parsed[0]?.prompt).toBe("bump the pelican parser to v2");
  });

  test("a Gemini logs.json that is not a JSON array (being rewritten) yields nothing and throws nothing", () => {
    const project = join(work, "gemini", ".gemini", "tmp", "shop");
    mkdirSync(join(project, "chats"), { recursive: true });
    writeFileSync(join(project, "logs.json"), '[{"sessionId": "x", "message": "half writ');
    const scan = geminiCliParser.scan([join(work, "gemini", ".gemini")]);
    expect(scan.containers.map((container) => container.path)).toEqual([join(project, "logs.json")]);
    expect(geminiCliParser.listUnits(scan.containers)).toEqual([]);
  });

  test("interface commands: a slash command with at most one argument word; longer ones are real prompts", () => {
    for (const text of ["/usage", "/status", "/model set", "/resume 3f2a", "", "   ", "/"])
      expect(isInterfaceCommand(text)).toBe(true);
    for (const text of ["/review the auth middleware", "fix /usr/bin path", "hello"])
      expect(isInterfaceCommand(text)).toBe(false);
  });

  test("derived titles: one line, cut at a word boundary with an ellipsis", () => {
    expect(titleFromPrompt("fix the\n\nlogin   bug")).toBe("fix the login bug");
    const long = titleFromPrompt("word ".repeat(40))!;
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long.endsWith("word…")).toBe(true);
    expect(titleFromPrompt("调".repeat(100))).toBe(`${"调".repeat(79)}…`);
    expect(titleFromPrompt(" \n")).toBeNull();
  });
});
