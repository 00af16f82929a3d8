/**
 * Issue 38, item 1: a Latin word glued to Chinese text is found (`recall search kimi-cli` finds the session titled
 * `我本地安装了kimi-cli 帮我看看他的配置`). Real sessions are written as Claude Code JSONL with the issue's exact strings,
 * indexed with the real indexer and searched with the real lexical leg at levels 1 and 2, and through the real CLI.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { makePreview, parseLexicalQuery, searchLexical, type SearchLevel } from "../../src/search/index.ts";
import type { SearchFilters } from "../../src/search/listing/filters.ts";
import { writeClaudeSession, type TestSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-cjk-latin-"));
mkdirSync(join(work, "no-opencode"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sessions: TestSession[] = [
  {
    sessionId: "22222222-0000-4000-8000-000000000001",
    cwd: "/home/dev/agents",
    title: "我本地安装了kimi-cli 帮我看看他的配置",
    turns: [
      { prompt: "我本地安装了kimi-cli 帮我看看他的配置", response: "配置文件在 ~/.kimi/config.toml。" },
      { prompt: "你应该使用ripgrep代替所有的grep操作", response: "好的，以后都用 rg。" },
    ],
  },
  {
    sessionId: "22222222-0000-4000-8000-000000000002",
    cwd: "/home/dev/term",
    turns: [
      { prompt: "更新statusline 展示", response: "已更新状态栏。" },
      { prompt: "the terminal websocket drops after a minute", response: "I added a ping every 30 seconds." },
      { prompt: "前端为什么一打开vim就会退出", response: "全屏程序需要终端尺寸，前端没有发送 resize。" },
    ],
  },
  {
    sessionId: "22222222-0000-4000-8000-000000000003",
    cwd: "/home/dev/web",
    turns: [{ prompt: "fix the login form", response: "The login form now validates the email before submit." }],
  },
];

const root = join(work, "claude");
for (const session of sessions) writeClaudeSession(join(root, "-home-dev", `${session.sessionId}.jsonl`), session);
const home = join(work, "home");
const indexed = runIndex({ recallHome: home, roots: { "claude-code": [root], opencode: [join(work, "no-opencode")] } });

/** Session ids' last character (level 1) or `last#turn` (level 2) found by the lexical leg, best first. */
async function search(text: string, level: SearchLevel, filters: SearchFilters = {}): Promise<string[]> {
  await indexed;
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    const hits = await searchLexical(db, parseLexicalQuery(text), level, filters, 10);
    const idOf = db.query<{ session_id: string }, [number]>("SELECT session_id FROM sessions WHERE id = ?");
    return hits.map(
      (hit) => `${idOf.get(hit.sessionRowid)!.session_id.slice(-1)}${level === "turn" ? `#${hit.turnNumber}` : ""}`,
    );
  } finally {
    db.close();
  }
}

describe("issue 38, item 1: Latin words glued to CJK text", () => {
  test("kimi-cli, ripgrep, statusline and vim are found at level 1 and level 2", async () => {
    expect(await search("kimi-cli", "session")).toEqual(["1"]);
    expect(await search("kimi-cli", "turn")).toEqual(["1#1"]);
    expect(await search("ripgrep", "session")).toEqual(["1"]);
    expect(await search("ripgrep", "turn")).toEqual(["1#2"]);
    expect(await search("statusline", "session")).toEqual(["2"]);
    expect(await search("statusline", "turn")).toEqual(["2#1"]);
    expect(await search("vim", "session")).toEqual(["2"]);
    expect(await search("vim", "turn")).toEqual(["2#3"]);
  });

  test("`terminal websocket vim` in the session finds the turn 前端为什么一打开vim就会退出", async () => {
    const hits = await search("terminal websocket vim", "turn", { sessionId: sessions[1]!.sessionId });
    expect(hits).toContain("2#3");
  });

  test("a query that glues a Latin word to Chinese ranks the turn holding both first", async () => {
    expect((await search("安装了kimi-cli", "turn"))[0]).toBe("1#1");
    expect((await search('"使用ripgrep代替"', "turn"))[0]).toBe("1#2"); // user-quoted: 使用 and 代替 match inside runs
    expect((await search("一打开vim", "turn"))[0]).toBe("2#3");
  });

  test("the preview highlights the glued word", () => {
    const preview = makePreview("前端为什么一打开vim就会退出", parseLexicalQuery("vim").highlightWords);
    expect(preview.highlights.map(([start, end]) => preview.text.slice(start, end))).toEqual(["vim"]);
  });

  test("`recall search kimi-cli` (the issue's command) finds the session", async () => {
    await indexed;
    const result = runCli(["search", "kimi-cli", "--json", "--keyword-only", "--no-reindex"], {
      ...process.env,
      RECALL_HOME: home,
      HOME: work,
      NO_COLOR: "1",
    });
    expect(result.exitCode).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.results.map((hit: { session_id: string }) => hit.session_id)).toEqual([sessions[0]!.sessionId]);
  });
});
