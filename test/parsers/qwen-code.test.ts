/**
 * Qwen Code (issue 40): the chat of test/fixtures/qwen-code (SOURCE.md) read into a session and its turns with Gemini
 * CLI's part, tool and usage code, both folder layouts found by the scan, a Qwen chat inside a Gemini CLI folder still
 * no Gemini session, and the whole path through the CLI from the agent's default folder.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import { qwenCodeReason } from "../../src/parsers/gemini-cli/qwen-code.ts";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { qwenCodeParser } from "../../src/parsers/qwen-code.ts";
import { runCli } from "../helpers/cli.ts";

const home = join(import.meta.dir, "../fixtures/qwen-code/.qwen");
const sessionId = "7c4e2a91-3b5d-4f08-9e6a-1d2c3b4a5f60";
const chat = join(home, "projects/-home-dev-shop-app/chats", `${sessionId}.jsonl`);
const work = mkdtempSync(join(tmpdir(), "recall-qwen-code-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function unitsBelow(root: string, rejected: string[] = []): SourceUnit[] {
  const scan = qwenCodeParser.scan([root]);
  return qwenCodeParser.listUnits(scan.containers, { onRejected: (_path, reason) => rejected.push(reason) });
}

const record = (type: string, extra: Record<string, unknown>) =>
  JSON.stringify({ uuid: `u-${type}`, parentUuid: null, sessionId: "s-q", type, cwd: "/w/app", ...extra });

describe("qwen-code parse", () => {
  const result = qwenCodeParser.parse(unitsBelow(home)[0]!, { withOutputs: true });

  test("the session: id, project and branch from the records, title from custom_title, times", () => {
    expect(result.session).toMatchObject({
      id: sessionId,
      source: "qwen-code",
      projectPath: "/home/dev/shop-app",
      projectName: "shop-app",
      gitBranch: "feat/healthz",
      title: "Readiness probe healthz route",
      turnCount: 2,
      startedAt: Date.parse("2026-05-18T14:02:11.204Z"),
      endedAt: Date.parse("2026-05-18T14:04:19.027Z"),
    });
    expect(result.skipped.count).toBe(0); // telemetry and title records are bookkeeping
  });

  test("prompts, replies without thoughts, tool calls matched to their results by id, usage per model", () => {
    const [first, second] = result.turns;
    expect(first!.prompt).toStartWith("The readiness probe keeps failing on staging.");
    expect(first!.response).toStartWith("I'll read the server entry point first");
    expect(first!.response).not.toContain("The probe needs a route"); // a thought part
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Read", "/home/dev/shop-app/src/server.js", false],
      ["Edit", "/home/dev/shop-app/src/server.js", false],
      ["Bash", "npx jest test/healthz.test.js", true],
    ]);
    expect(first!.toolCalls[0]!.output).toContain("const pool = new Pool();");
    expect(first!.toolCalls[1]!.change?.kind).toBe("edit");
    expect(first!.toolCalls[2]!.output).toContain("No tests found");
    // Input = prompt − cached (+ tool), output = candidates + thoughts, summed over the turn's four replies.
    expect(first!.usage).toEqual([
      { model: "qwen3-coder-plus", input: 3536, output: 330, cacheRead: 45568, cacheWrite: null, costUsd: null },
    ]);
    expect(second!.toolCalls.map((call) => `${call.name} ${call.input}`)).toEqual([
      "Task Find extra pg pools",
      "Grep new Pool\\( /home/dev/shop-app/src",
    ]);
    expect(second!.response).toContain("src/jobs/report.js creates a second Pool"); // the sub-agent's reply
    // The early summary `{input, output, cached}` and the API's counts both read; the sub-agent's model apart.
    expect(second!.usage?.map((entry) => [entry.model, entry.input, entry.output])).toEqual([
      ["qwen3-coder-plus", 1194, 106],
      ["qwen3-coder-flash", 3120, 44],
    ]);
  });

  test("injected user records and system records with text are counted, not dropped", () => {
    const dir = join(work, "injected", "chats");
    mkdirSync(dir, { recursive: true });
    const text = (value: string) => ({ message: { role: "user", parts: [{ text: value }] } });
    writeFileSync(
      join(dir, "s-q.jsonl"),
      `${[
        record("user", text("rename the retry flag")),
        record("user", { ...text("goal check: keep going"), subtype: "goal_runtime", provenance: "goal_runtime" }),
        record("system", { subtype: "notification", systemPayload: { displayText: "Background shell finished" } }),
      ].join("\n")}\n`,
    );
    const parsed = qwenCodeParser.parse(unitsBelow(join(work, "injected"))[0]!);
    expect(parsed.turns.map((turn) => turn.prompt)).toEqual(["rename the retry flag"]);
    expect(Object.keys(parsed.skipped.reasons ?? {}).sort()).toEqual([
      "injected user record (goal_runtime)",
      "system record notification",
    ]);
  });
});

describe("qwen-code scan", () => {
  test("a Qwen home: projects/ and the early tmp/<hash>/ chats are read; an empty chat and other JSONL are rejected", () => {
    const copy = join(work, "layouts", ".qwen");
    cpSync(home, copy, { recursive: true });
    const early = join(copy, "tmp", "0f4e".padEnd(64, "a"), "chats");
    mkdirSync(early, { recursive: true });
    writeFileSync(join(early, "s-early.jsonl"), `${record("user", { sessionId: "s-early" })}\n`);
    writeFileSync(join(early, "s-empty.jsonl"), "");
    writeFileSync(join(early, "notes.jsonl"), '{"role":"user","content":"hi"}\n');
    mkdirSync(join(copy, "debug"));
    writeFileSync(join(copy, "debug", "log.jsonl"), `${record("user", { sessionId: "not-a-chat" })}\n`);
    const rejected: string[] = [];
    expect(
      unitsBelow(copy, rejected)
        .map((unit) => unit.sessionId)
        .sort(),
    ).toEqual([sessionId, "s-early"]);
    expect(rejected.sort()).toEqual(["empty file", "not a Qwen Code chat"]);
    expect(qwenCodeParser.scan([chat]).containers).toEqual(qwenCodeParser.scan([home]).containers);
  });

  test("inside a Gemini CLI folder a Qwen chat is still no Gemini session: rejected with a reason naming --qwen-dir", () => {
    const gemini = join(work, "gemini", ".gemini", "tmp", "shop-app", "chats");
    mkdirSync(gemini, { recursive: true });
    cpSync(chat, join(gemini, `${sessionId}.jsonl`));
    const rejected: string[] = [];
    const units = geminiCliParser.listUnits(geminiCliParser.scan([join(work, "gemini", ".gemini")]).containers, {
      onRejected: (_path, reason) => rejected.push(reason),
    });
    expect(units).toEqual([]);
    expect(rejected).toEqual([qwenCodeReason]);
    expect(qwenCodeReason).toContain("--qwen-dir");
    expect(unitsBelow(join(work, "gemini", ".gemini")).map((unit) => unit.sessionId)).toEqual([sessionId]);
  });

  test("default folder $QWEN_RUNTIME_DIR else ~/.qwen; resume is `qwen --resume <id>` in the project folder", () => {
    expect(sourceInfo("qwen-code").defaultRoots({}, "/home/ada")).toEqual(["/home/ada/.qwen"]);
    expect(sourceInfo("qwen-code").defaultRoots({ QWEN_RUNTIME_DIR: "~/q" }, "/home/ada")).toEqual(["/home/ada/q"]);
    expect(parserFor("qwen-code").resumeInvocation(sessionId, "/home/dev/shop-app")).toEqual({
      cwd: "/home/dev/shop-app",
      argv: ["qwen", "--resume", sessionId],
    });
  });
});

describe("qwen-code end to end", () => {
  const userHome = join(work, "e2e-home");
  const recallHome = join(work, "e2e-recall");
  cpSync(home, join(userHome, ".qwen"), { recursive: true });
  const env = { PATH: process.env.PATH, HOME: userHome, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the chat and from recall's copy", () => {
    expect(run(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(run(["status"]).stdout).toMatch(/qwen-code\s+1 session\s+2 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("readiness probe staging")).toContain("Q: The readiness probe keeps failing on staging.");
    expect(search("exhaust Postgres connections")).toContain("[qwen-code] turn=7c4e2a91-3b5:2");
    expect(search("jest")).toContain("tools: Read, Edit, Bash");
    const fromChat = run(["show", "7c4e2a91:1", "--no-reindex"]).stdout;
    expect(fromChat).toContain("resume: cd /home/dev/shop-app && qwen --resume 7c4e2a91-3b5d-4f08-9e6a-1d2c3b4a5f60");
    expect(fromChat).toContain("No tests found");
    rmSync(join(userHome, ".qwen"), { recursive: true });
    const fromCopy = run(["show", "7c4e2a91:1", "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("shown from recall's archive");
    expect(fromCopy.stdout).toContain("[Bash] npx jest test/healthz.test.js");
  });
});
