/**
 * Issue 13: matching inside CJK, Japanese and Thai runs through the trigram side index `documents_cjk`
 * (src/index/write/cjk.ts, src/search/ranking/cjk.ts). Real sessions are written as Claude Code JSONL, indexed with the real
 * indexer, searched with the real lexical leg and, for the issue's example, the real CLI.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, forgetSessions, openIndex, runIndex } from "../../src/index/index.ts";
import { unsegmentedRuns } from "../../src/index/write/cjk.ts";
import { splitUnsegmented } from "../../src/search/ranking/cjk.ts";
import { parseLexicalQuery, searchLexical, type SearchLevel } from "../../src/search/index.ts";
import { writeClaudeSession, type TestSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";
import { claudeCorpusRoots, hasCorpus } from "../helpers/corpus.ts";
import { restoreResumeStateColumn } from "../helpers/old-schema.ts";

const work = mkdtempSync(join(tmpdir(), "recall-cjk-"));
mkdirSync(join(work, "no-opencode")); // an empty OpenCode folder: a named folder must exist (issue 15)
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sessions: TestSession[] = [
  {
    sessionId: "11111111-0000-4000-8000-000000000001",
    cwd: "/home/dev/scheduler",
    turns: [
      { prompt: "为什么任务会卡住？", response: "当调度器介入时，队列被锁住了。我加了一个 queue timeout。" },
      { prompt: "再检查一下日志", response: "日志显示 worker 在重试。" },
    ],
  },
  {
    sessionId: "11111111-0000-4000-8000-000000000002",
    cwd: "/home/dev/db",
    turns: [{ prompt: "データベースの接続がタイムアウトする", response: "接続プールの設定を見直しました。" }],
  },
  {
    sessionId: "11111111-0000-4000-8000-000000000003",
    cwd: "/home/dev/thai",
    turns: [{ prompt: "แก้ปัญหาการเชื่อมต่อฐานข้อมูล", response: "เพิ่ม retry ให้การเชื่อมต่อแล้ว" }],
  },
  {
    sessionId: "11111111-0000-4000-8000-000000000004",
    cwd: "/home/dev/ops",
    turns: [
      {
        prompt: "the docker network times out after deploy",
        response: "I raised the queue timeout and restarted the docker network.",
      },
      {
        prompt: "check the scheduler logs",
        response: "The scheduler retried the job three times before the queue drained.",
      },
    ],
  },
  {
    sessionId: "11111111-0000-4000-8000-000000000005",
    cwd: "/home/dev/web",
    turns: [
      {
        prompt: "fix the login form",
        response: "The login form now validates the email before submit; docker is not involved.",
      },
    ],
  },
];

const root = join(work, "claude");
for (const session of sessions) writeClaudeSession(join(root, "-home-dev", `${session.sessionId}.jsonl`), session);
const roots = { "claude-code": [root], opencode: [join(work, "no-opencode")] } as const;

async function newIndex(name: string): Promise<string> {
  const home = join(work, name);
  await runIndex({
    recallHome: home,
    roots: { "claude-code": [...roots["claude-code"]], opencode: [...roots.opencode] },
  });
  return home;
}

/** Session ids (level 1) or `sessionId#turn` (level 2) found by the lexical leg, best first. */
async function search(home: string, text: string, level: SearchLevel = "session"): Promise<string[]> {
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    const hits = await searchLexical(db, parseLexicalQuery(text), level, {}, 10);
    const idOf = db.query<{ session_id: string }, [number]>("SELECT session_id FROM sessions WHERE id = ?");
    return hits.map(
      (hit) => `${idOf.get(hit.sessionRowid)!.session_id.slice(-1)}${level === "turn" ? `#${hit.turnNumber}` : ""}`,
    );
  } finally {
    db.close();
  }
}

describe("issue 13: CJK and other unsegmented scripts", () => {
  test("runs are extracted the same way from documents and queries (marks removed, punctuation joins, Latin ends a run)", () => {
    expect(unsegmentedRuns("当调度器介入时，队列被锁住了。我加了一个 queue timeout。")).toEqual([
      "当调度器介入时队列被锁住了我加了一个",
    ]);
    expect(unsegmentedRuns("调度器/介入 then 重试")).toEqual(["调度器介入", "重试"]);
    expect(unsegmentedRuns("ปัญหาการเชื่อมต่อ timeout")).toEqual(["ปญหาการเชอมตอ"]);
    expect(unsegmentedRuns("plain English, no runs")).toEqual([]);
    // The query parser splits Thai at its vowel marks, as unicode61 does; the split query still yields the indexed run.
    expect(splitUnsegmented(parseLexicalQuery("การเชื่อมต่อ"))?.runs).toEqual(["การเชอมตอ"]);
    expect(splitUnsegmented(parseLexicalQuery("docker network timeout"))).toBeUndefined();
  });

  test("`recall search 调度器` finds the session that says 调度器介入时 (the issue's example, real CLI)", async () => {
    const home = await newIndex("cli");
    const result = runCli(
      [
        "search",
        "调度器",
        "--json",
        "--keyword-only",
        "--claude-dir",
        root,
        "--opencode-dir",
        join(work, "no-opencode"),
      ],
      { ...process.env, RECALL_HOME: home, HOME: work, NO_COLOR: "1" },
    );
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.results.map((hit: { session_id: string }) => hit.session_id)).toEqual([sessions[0]!.sessionId]);
  });

  test("Chinese, Japanese and Thai words inside longer runs are found at both levels; short (< 3 character) words use the LIKE fallback", async () => {
    const home = await newIndex("levels");
    expect(await search(home, "调度器")).toEqual(["1"]);
    expect(await search(home, "调度器", "turn")).toEqual(["1#1"]);
    expect(await search(home, "锁住", "turn")).toEqual(["1#1"]); // 2 characters: no trigram
    expect(await search(home, "日志", "turn")).toEqual(["1#2"]);
    expect(await search(home, "タイムアウト", "turn")).toEqual(["2#1"]);
    expect(await search(home, "接続")).toEqual(["2"]);
    expect(await search(home, "การเชื่อมต่อ", "turn")).toEqual(["3#1"]);
    expect(await search(home, "ฐานข้อมูล")).toEqual(["3"]);
    expect(await search(home, "不存在的词")).toEqual([]);
    expect(await search(home, "调度器 不存在")).toEqual([]); // every run is required
  });

  test("a mixed query ranks the document with both the CJK word and the English word first", async () => {
    const home = await newIndex("mixed");
    const hits = await search(home, "调度器 timeout", "turn");
    expect(hits[0]).toBe("1#1"); // 调度器 and timeout in one turn
    expect(hits).toContain("4#1"); // timeout alone still comes, below
  });

  test("an English query never reads the side index and ranks exactly as without it", async () => {
    const home = await newIndex("english");
    const copy = join(work, "english-copy");
    rmSync(copy, { recursive: true, force: true });
    await newIndex("english-copy");
    copyFileSync(databasePath(home), databasePath(copy));
    const db = new Database(databasePath(copy));
    db.exec("DROP TRIGGER documents_ad_cjk; DROP TABLE documents_cjk;");
    db.close();
    for (const query of ["docker network timeout", "scheduler queue", "login form docker", "queue"]) {
      for (const level of ["session", "turn"] as const) {
        const withSide = await search(home, query, level);
        expect(withSide.length).toBeGreaterThan(0);
        expect(await search(copy, query, level)).toEqual(withSide);
      }
    }
  });

  test("a re-indexed session whose text changed replaces its side-index rows; forget leaves no CJK text in any file", async () => {
    const home = await newIndex("forget");
    const changed: TestSession = {
      ...sessions[1]!,
      turns: [{ prompt: "キャッシュが壊れた", response: "キャッシュを消しました。" }],
    };
    writeClaudeSession(join(root, "-home-dev", `${changed.sessionId}.jsonl`), changed);
    try {
      await runIndex({
        recallHome: home,
        roots: { "claude-code": [...roots["claude-code"]], opencode: [...roots.opencode] },
      });
      expect(await search(home, "タイムアウト")).toEqual([]);
      expect(await search(home, "キャッシュ")).toEqual(["2"]);
    } finally {
      writeClaudeSession(join(root, "-home-dev", `${sessions[1]!.sessionId}.jsonl`), sessions[1]!);
    }
    const db = new Database(databasePath(home), { readonly: true });
    const rowid = db
      .query<{ id: number }, [string]>("SELECT id FROM sessions WHERE session_id = ?")
      .get(sessions[0]!.sessionId)!.id;
    db.close();
    const needle = Buffer.from("调度器");
    const holders = () =>
      readdirSync(home, { recursive: true, encoding: "utf8" }).filter(
        (file) => statSync(join(home, file)).isFile() && readFileSync(join(home, file)).includes(needle),
      );
    expect(holders().length).toBeGreaterThan(0); // the check below can fail
    await forgetSessions(home, [rowid]);
    expect(holders()).toEqual([]);
    expect(await search(home, "调度器")).toEqual([]);
    expect(await search(home, "キャッシュ")).toEqual(["2"]); // the other sessions' runs are still there
    expect(await search(home, "การเชื่อมต่อ")).toEqual(["3"]);
    const check = new Database(databasePath(home), { readonly: true });
    expect(
      check.query("SELECT count(*) AS n FROM documents_cjk WHERE rowid NOT IN (SELECT id FROM documents)").get(),
    ).toEqual({ n: 0 });
    check.close();
  });

  test("an index written before the side index (schema 2) gets it filled from the stored turns on upgrade", async () => {
    const home = await newIndex("upgrade");
    const db = new Database(databasePath(home));
    restoreResumeStateColumn(db);
    db.exec("DROP TRIGGER documents_ad_cjk; DROP TABLE documents_cjk; PRAGMA user_version = 2;");
    db.close();
    openIndex(databasePath(home)).close(); // migrates
    expect(await search(home, "调度器", "turn")).toEqual(["1#1"]);
    expect(await search(home, "การเชื่อมต่อ")).toEqual(["3"]);
    const check = new Database(databasePath(home), { readonly: true });
    // one row per document holding a run: 3 turn documents + 3 session documents (prompts), none for English
    expect(check.query("SELECT count(*) AS n FROM documents_cjk").get()).toEqual({ n: 7 });
    check.close();
  });

  test.skipIf(!hasCorpus)(
    "on the real corpus, words inside a Chinese prompt run find their session first (热门题目, and 常考 inside bytedance常考的)",
    async () => {
      const home = join(work, "corpus");
      const dotfile = claudeCorpusRoots().filter((path) => path.endsWith("Xu-Wentao__dotfile"));
      expect(dotfile).toHaveLength(1);
      await runIndex({ recallHome: home, roots: { "claude-code": dotfile, opencode: [join(work, "no-opencode")] } });
      const db = openIndex(databasePath(home), { readonly: true });
      try {
        const first = async (text: string) => {
          const hit = (await searchLexical(db, parseLexicalQuery(text), "session", {}, 5))[0];
          return (
            hit &&
            db
              .query<{ session_id: string }, [number]>("SELECT session_id FROM sessions WHERE id = ?")
              .get(hit.sessionRowid)!.session_id
          );
        };
        // The prompt is "帮我练习下leetcode热门题目（bytedance常考的）": unicode61 indexed "帮我练习下leetcode热门题目" as one token.
        expect(await first("热门题目")).toBe("f4ad5133-0ade-402b-bb36-130f1d12dfbf");
        expect(await first("常考")).toBe("f4ad5133-0ade-402b-bb36-130f1d12dfbf");
      } finally {
        db.close();
      }
    },
  );
});
