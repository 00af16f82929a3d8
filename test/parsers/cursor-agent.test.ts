/**
 * cursor-agent (Cursor's CLI agent) as a source (issue 40): a chat store written from test/fixtures/cursor-agent/chat.json
 * the way cursor-agent lays it out (cursor-agent-store.ts), parsed into a session, and indexed, searched and shown end to
 * end from a HOME holding it at `~/.cursor/chats`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { cursorAgentParser } from "../../src/parsers/cursor-agent.ts";
import { planWatchTargets } from "../../src/index/watch/targets.ts";
import { runCli } from "../helpers/cli.ts";
import { readChatFixture, workspaceHash, writeChatStore } from "./cursor-agent-store.ts";

const chat = readChatFixture();
const work = mkdtempSync(join(tmpdir(), "recall-cursor-agent-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function unitsBelow(root: string, rejected: string[] = []): SourceUnit[] {
  const scan = cursorAgentParser.scan([root]);
  return cursorAgentParser.listUnits(scan.containers, { onRejected: (_path, reason) => rejected.push(reason) });
}

describe("cursor-agent parse", () => {
  const chats = join(work, "parse", ".cursor", "chats");
  const store = writeChatStore(chats, chat);
  const units = unitsBelow(join(work, "parse", ".cursor"));
  const result = cursorAgentParser.parse(units[0]!, { withOutputs: true });

  test("the chat: id from its folder, project from the root's workspace, title and start from meta", () => {
    expect(units).toHaveLength(1);
    expect(dirname(dirname(store))).toEndWith(workspaceHash("/home/dev/invoice-service"));
    expect(result.session).toMatchObject({
      id: chat.chatId,
      source: "cursor-agent",
      projectPath: "/home/dev/invoice-service",
      projectName: "invoice-service",
      gitBranch: null,
      title: "Nightly export duplicate key",
      startedAt: 1767396459642,
      turnCount: 2,
      location: store,
    });
    expect(result.session.endedAt).toBeGreaterThanOrEqual(result.session.startedAt);
  });

  test("prompts from <user_query>, replies without reasoning, Shell calls as Bash with outputs, models per turn", () => {
    const [first, second] = result.turns;
    expect(first!.prompt).toBe(
      'The nightly export job fails with "duplicate key value violates unique constraint invoices_export_pkey". Find why and fix it.',
    );
    expect(first!.response).toStartWith("Let me find where the export writes invoices_export.\n\nThe insert at");
    expect(first!.response).not.toContain("probably inserts rows");
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Bash", 'grep -rn "INSERT INTO invoices_export" src/', false],
      ["Bash", "git diff --stat", false],
    ]);
    expect(first!.toolCalls[0]!.output).toContain("src/export/nightly.ts:42:");
    expect(first!.usage).toEqual([
      { model: "claude-4.5-sonnet", input: null, output: null, cacheRead: null, cacheWrite: null, costUsd: null },
    ]);
    expect(first!.timestamp).toBe(1767396459642);
    expect(second!.prompt).toBe("Now run the export tests.");
    expect(second!.response).toBe("All 14 export tests pass, including a rerun of the same batch date.");
    expect(second!.toolCalls[0]!.input).toBe("npm test -- test/export");
    expect(second!.usage?.map((usage) => usage.model)).toEqual(["gpt-5"]);
  });

  test("the system prompt, the added <user_info> context and a blob that is not JSON are counted, not dropped", () => {
    expect(result.skipped.reasons).toEqual({
      "system prompt": { count: 1, first: expect.stringContaining(store) },
      "context the agent added": { count: 1, first: expect.stringContaining(store) },
    });
    const odd = { ...chat, chatId: "0b9d3c1e-1111-4c2a-9e7f-5a6b7c8d9e0f" };
    writeChatStore(join(work, "odd"), odd, [Buffer.from([0x0a, 0x03, 0x61, 0x62, 0x63])]);
    const parsed = cursorAgentParser.parse(unitsBelow(join(work, "odd"))[0]!);
    expect(parsed.skipped.reasons?.["message blob not a JSON message"]?.count).toBe(1);
    expect(parsed.turns).toHaveLength(2);
  });

  test("a store without chat metadata is rejected; another SQLite file named store.db is unavailable", () => {
    const bare = join(work, "bare", "h", "c1");
    mkdirSync(bare, { recursive: true });
    const db = new Database(join(bare, "store.db"), { create: true });
    db.run("create table blobs (id text primary key, data blob)");
    db.run("create table meta (key text primary key, value text)");
    db.close();
    const other = join(work, "bare", "h", "c2");
    mkdirSync(other, { recursive: true });
    const db2 = new Database(join(other, "store.db"), { create: true });
    db2.run("create table notes (id integer)");
    db2.close();
    const rejected: string[] = [];
    const unavailable: string[] = [];
    const scan = cursorAgentParser.scan([join(work, "bare")]);
    const listed = cursorAgentParser.listUnits(scan.containers, {
      onRejected: (_path, reason) => rejected.push(reason),
      onUnavailable: (_path, reason) => unavailable.push(reason),
    });
    expect(listed).toEqual([]);
    expect(rejected).toEqual(["no chat metadata (meta key 0)"]);
    expect(unavailable).toEqual(["not a cursor-agent chat store (no meta or blobs table)"]);
  });

  test.if(process.platform === "linux")(
    "no store stays open after listing and parsing (one store per chat: hundreds)",
    () => {
      const openStores = () =>
        readdirSync("/proc/self/fd")
          .map((fd) => {
            try {
              return readlinkSync(`/proc/self/fd/${fd}`);
            } catch {
              return "";
            }
          })
          .filter((target) => target.startsWith(work) && target.includes("store.db"));
      cursorAgentParser.parse(unitsBelow(join(work, "parse", ".cursor"))[0]!);
      expect(openStores()).toEqual([]);
    },
  );

  test("the watcher watches the chats folder down to the stores' folders, no deeper", () => {
    expect(planWatchTargets({ "cursor-agent": [chats] }).map((target) => [target.kind, target.depth])).toEqual([
      ["agent-tree", 2],
    ]);
  });

  test("default folder ~/.cursor/chats; resume is `cursor-agent --resume <chat id>` in the workspace", () => {
    expect(sourceInfo("cursor-agent").defaultRoots({}, "/home/dev")).toEqual(["/home/dev/.cursor/chats"]);
    expect(parserFor("cursor-agent").resumeInvocation(chat.chatId, "/home/dev/invoice-service")).toEqual({
      cwd: "/home/dev/invoice-service",
      argv: ["cursor-agent", "--resume", chat.chatId],
    });
  });
});

describe("cursor-agent end to end", () => {
  const userHome = join(work, "e2e-home");
  const recallHome = join(work, "e2e-recall");
  writeChatStore(join(userHome, ".cursor", "chats"), chat);
  const env = { PATH: process.env.PATH, HOME: userHome, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the store and from recall's copy", () => {
    expect(run(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(run(["status"]).stdout).toMatch(/cursor-agent\s+1 session\s+2 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("duplicate key invoices_export_pkey")).toContain("Q: The nightly export job fails");
    expect(search("idempotent ON CONFLICT batch date")).toContain("[cursor-agent] turn=7c1e5d2a-9b3:1");
    expect(search("git diff stat")).toContain("tools: Bash");
    const fromStore = run(["show", "7c1e5d2a:1", "--no-reindex"]).stdout;
    expect(fromStore).toContain(
      "resume: cd /home/dev/invoice-service && cursor-agent --resume 7c1e5d2a-9b3f-4e8a-b6d0-2f4a8c9e1b57",
    );
    expect(fromStore).toContain("1 file changed, 1 insertion(+)");
    rmSync(join(userHome, ".cursor"), { recursive: true });
    const fromCopy = run(["show", "7c1e5d2a:1", "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("shown from recall's archive");
    expect(fromCopy.stdout).toContain('[Bash] grep -rn "INSERT INTO invoices_export" src/');
  });
});
