/**
 * GitHub Copilot Chat (VS Code's chat sessions) as a source (issue 40): test/fixtures/copilot-chat/User holds one
 * workspace session written whole (`chatSessions/<id>.json`) and one empty-window session written as a mutation log
 * (`emptyWindowChatSessions/<id>.jsonl`); both parsed, then indexed, searched and shown end to end from a HOME holding
 * them at VS Code's default place.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { copilotChatParser } from "../../src/parsers/copilot-chat.ts";
import { planWatchTargets } from "../../src/index/watch/targets.ts";
import { runCli } from "../helpers/cli.ts";

const user = join(import.meta.dir, "../fixtures/copilot-chat/User");
const workspaceSession = "2f6b9d1e-4c3a-4e8b-a7d5-9c1e0f2a3b4d";
const emptyWindowSession = "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d";
const work = mkdtempSync(join(tmpdir(), "recall-copilot-chat-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function unitsBelow(root: string, rejected: string[] = []): SourceUnit[] {
  const scan = copilotChatParser.scan([root]);
  return copilotChatParser.listUnits(scan.containers, { onRejected: (_path, reason) => rejected.push(reason) });
}

describe("copilot-chat parse", () => {
  const units = unitsBelow(user);
  const unitOf = (id: string) => units.find((unit) => unit.sessionId === id)!;
  const whole = copilotChatParser.parse(unitOf(workspaceSession), { withOutputs: true });

  test("a workspace session: project from workspace.json, branch from repoData, title, times from the requests", () => {
    expect(units.map((unit) => unit.sessionId).sort()).toEqual([workspaceSession, emptyWindowSession].sort());
    expect(whole.session).toMatchObject({
      id: workspaceSession,
      source: "copilot-chat",
      projectPath: "/home/dev/shop-web",
      projectName: "shop-web",
      gitBranch: "fix/ts-paths",
      title: "Fix TS2307 for the @/ alias",
      startedAt: 1767801590000,
      endedAt: 1767801720000,
      turnCount: 2,
    });
  });

  test("prompts, replies with inline references and without thinking, tool calls by their data, models", () => {
    const [first, second] = whole.turns;
    expect(first!.prompt).toBe(
      "Why does npm run build fail with TS2307: Cannot find module '@/lib/money' in checkout?",
    );
    expect(first!.response).toStartWith("The `@/` alias is set in `vite.config.ts` but `tsconfig.json` has no");
    expect(first!.response).toEndWith("The build now passes.");
    expect(first!.response).not.toContain("probably exists in Vite");
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.filePath])).toEqual([
      ["Read", "/home/dev/shop-web/tsconfig.json", "/home/dev/shop-web/tsconfig.json"],
      ["Edit", "/home/dev/shop-web/tsconfig.json", "/home/dev/shop-web/tsconfig.json"],
      ["Bash", "npm run build", undefined],
    ]);
    expect(first!.toolCalls[1]).toMatchObject({ linesAdded: 2, linesRemoved: 1 });
    expect(first!.files).toEqual(["/home/dev/shop-web/tsconfig.json"]);
    expect(first!.timestamp).toBe(1767801600000);
    expect(first!.usage?.map((usage) => usage.model)).toEqual(["copilot/claude-sonnet-4"]);
    expect(second!.toolCalls[0]).toMatchObject({ name: "Bash", input: "npx vitest run src/lib/money", isError: false });
    expect(second!.toolCalls[0]!.output).toContain("Test Files  1 passed (1)");
    expect(second!.response).toBe("All 6 money helper tests pass, including rounding of half cents.");
  });

  test("a response part holding text recall does not keep (the edit group) is counted", () => {
    expect(whole.skipped.reasons).toEqual({
      "response part textEditGroup": { count: 1, first: expect.stringContaining("request 0") },
    });
  });

  test("an empty window's mutation log is replayed: pushes, a cut-and-replace push, sets", () => {
    const log = copilotChatParser.parse(unitOf(emptyWindowSession));
    expect(log.session).toMatchObject({ id: emptyWindowSession, projectPath: "", title: "Retry on HTTP 429" });
    expect(log.turns).toHaveLength(1);
    expect(log.turns[0]!.prompt).toBe("What does the retry decorator in scripts/sync_prices.py do on HTTP 429?");
    expect(log.turns[0]!.response).toBe(
      "It waits for the Retry-After header's seconds (2 s when absent), then retries up to 5 times before raising RateLimited.",
    );
    expect(log.skipped.count).toBe(0);
  });

  test("other JSON beside the sessions is rejected; a .jsonl beside its .json wins", () => {
    const dir = join(work, "mixed", "workspaceStorage", "w1", "chatSessions");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "notes.json"), '{"tabs":[]}');
    writeFileSync(join(dir, "empty.json"), "");
    cpSync(
      join(user, "workspaceStorage/5f1c0e9a7b3d4c2e8a6f0b1d2c3e4f5a/chatSessions", `${workspaceSession}.json`),
      join(dir, "s.json"),
    );
    writeFileSync(
      join(dir, "s.jsonl"),
      `${JSON.stringify({ kind: 0, v: { sessionId: "s", creationDate: 1, requests: [] } })}\n`,
    );
    const rejected: string[] = [];
    const listed = unitsBelow(join(work, "mixed"), rejected);
    expect(listed.map((unit) => unit.key)).toEqual([join(dir, "s.jsonl")]);
    expect(rejected.sort()).toEqual(["empty file", "not a VS Code chat session"]);
  });

  test("the watcher watches the User folder down to the chatSessions folders, no deeper", () => {
    expect(planWatchTargets({ "copilot-chat": [user] }).map((target) => [target.kind, target.depth])).toEqual([
      ["agent-tree", 3],
    ]);
  });

  test("default folders are VS Code's and Insiders' User folders; resume opens the project in VS Code", () => {
    const base = process.platform === "darwin" ? "/home/dev/Library/Application Support" : "/home/dev/.config";
    expect(sourceInfo("copilot-chat").defaultRoots({}, "/home/dev")).toEqual([
      `${base}/Code/User`,
      `${base}/Code - Insiders/User`,
    ]);
    expect(parserFor("copilot-chat").resumeInvocation(workspaceSession, "/home/dev/shop-web")).toEqual({
      cwd: undefined,
      argv: ["code", "/home/dev/shop-web"],
    });
  });
});

describe("copilot-chat end to end", () => {
  const userHome = join(work, "e2e-home");
  const recallHome = join(work, "e2e-recall");
  const codeUser =
    process.platform === "darwin"
      ? join(userHome, "Library", "Application Support", "Code", "User")
      : join(userHome, ".config", "Code", "User");
  cpSync(user, codeUser, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: userHome, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the file and from recall's copy", () => {
    expect(run(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(run(["status"]).stdout).toMatch(/copilot-chat\s+2 sessions\s+3 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("TS2307 cannot find module money")).toContain("Q: Why does npm run build fail with TS2307");
    expect(search("rounding of half cents")).toContain("[copilot-chat] turn=2f6b9d1e-4c3:2");
    expect(search("vitest money")).toContain("tools: Bash");
    const fromFile = run(["show", "2f6b9d1e:2", "--no-reindex"]).stdout;
    expect(fromFile).toContain("resume: code /home/dev/shop-web");
    expect(fromFile).toContain("Test Files  1 passed (1)");
    rmSync(codeUser, { recursive: true });
    const fromCopy = run(["show", "2f6b9d1e:2", "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("shown from recall's archive");
    expect(fromCopy.stdout).toContain("[Bash] npx vitest run src/lib/money");
  });
});
