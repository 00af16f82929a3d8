/**
 * The five MCP tools (issue 10), driven through the SDK's own client over stdio against `bun src/cli.ts mcp`
 * on the shipped example history (12 sessions, 6 projects, claude-code and opencode): both formats, pagination,
 * the same ranking as `recall search`, level 3 with compact tool calls and the budget marker, the timeline, and
 * bad arguments as tool errors that leave the server running. The SDK client checks every structuredContent
 * against the tool's output schema.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverInstructions } from "../../src/mcp/schemas.ts";
import { sources } from "../../src/parsers/sources.ts";
import { sourceIds } from "../../src/parsers/index.ts";
import { call, connectStdio, exampleFlags, fromSource, isolatedEnv, repo, textOf, type Connection } from "./helpers.ts";

const work = mkdtempSync(join(tmpdir(), "recall-mcp-tools-"));
const home = join(work, "home");
const recallHome = join(work, "recall-home");
mkdirSync(home);
const env = isolatedEnv(home, recallHome);
const postgres = "23d3db6a-c189-41e8-b15e-e3dfa565d49f";
let server: Connection;

beforeAll(async () => {
  server = await connectStdio([...fromSource, "mcp", "--no-watch", ...exampleFlags], env);
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

type Item = Record<string, unknown>;
const results = (structured: unknown): Item[] => (structured as { results: Item[] }).results;

describe("issue 10: the MCP tools over stdio", () => {
  test("the server lists six tools whose definitions together stay under 1,000 tokens (characters / 4)", async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "search",
      "read_turns",
      "list_sessions",
      "timeline",
      "recent",
      "summarize_session",
    ]);
    const modelFacing = tools.map((tool) =>
      JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
    );
    // Each agent recall reads costs its id once, in search's `source` (~3 tokens; issue 40): the agents' names are in
    // the server's instructions, sent once, not in a tool definition.
    expect(modelFacing.join("").length / 4).toBeLessThanOrEqual(1000);
    expect(modelFacing.join("")).not.toContain(sources.map((source) => source.displayName).join(", "));
    // and the instructions stay whole in Claude Code, which cuts them at 2 KB, however many agents are added
    expect(serverInstructions.length).toBeLessThanOrEqual(1900);
    expect(serverInstructions).toContain(`(${sources.length} agents: Claude Code, OpenCode,`);
    console.log("tool definitions, tokens:", modelFacing.join("").length / 4);
    for (const tool of tools) {
      expect(tool.outputSchema).toBeDefined();
      // summarize_session stores the summary it makes (issue 41); every other tool only reads
      expect(tool.annotations?.readOnlyHint).toBe(tool.name !== "summarize_session");
    }
  });

  test("issue 26: the search tool's description names every tool recall reads, and source lists every source id", async () => {
    const { tools } = await server.client.listTools();
    const search = tools.find((tool) => tool.name === "search")!;
    expect(search.description).toContain("exact identifiers");
    const source = (search.inputSchema.properties as Record<string, { description: string }>).source!;
    expect(source.description.split("|")).toEqual([...sourceIds]);
  });

  test("issue 26: the initialize result carries instructions: when to use recall, search to turns to read_turns, budget and paging", () => {
    const instructions = server.client.getInstructions() ?? "";
    expect(instructions.length).toBeGreaterThan(0);
    expect(instructions.length).toBeLessThanOrEqual(2048); // Claude Code cuts server instructions at 2 KB
    for (const phrase of [
      `${sources.length} agents: Claude Code, OpenCode, Codex CLI, Gemini CLI, Cursor`,
      "what did we do about X",
      "exact identifier",
      "1. search (depth 1)",
      "2. search session=ID",
      "3. read_turns session=ID from=N to=M",
      "at most budget characters (default 8000",
      "from_char",
      "next_offset",
    ])
      expect(instructions).toContain(phrase);
  });

  test("search at depth 1 in the index format finds the session by its words, one short entry per result", async () => {
    const result = await call(server.client, "search", { query: "containers cannot reach postgres on the host" });
    expect(result.isError).toBeFalsy();
    const first = results(result.structuredContent)[0]!;
    expect(first).toMatchObject({ session_id: postgres, source: "claude-code", project: "platform-deploy", turns: 4 });
    expect(first.resume_command).toBe(`cd /home/dev/infra/platform-deploy && claude --resume ${postgres}`);
    expect(first.score as number).toBeGreaterThan(0);
    expect(first.project_path).toBeUndefined(); // a full-format field
    const text = textOf(result);
    expect(text).toContain(postgres);
    expect(text).toMatch(/^next: search depth=2 session=ID/m);
    const entries = text.split("\n").filter((line) => /^\d+\. /.test(line));
    expect(entries.length).toBe(results(result.structuredContent).length);
    // Each entry: its line and the preview between two fence lines (issue 37).
    expect(text.split("\n").length).toBeLessThanOrEqual(4 * entries.length + 3);
  });

  test("the full format adds every field of the CLI's JSON and the resume command in the text", async () => {
    const result = await call(server.client, "search", {
      query: "containers cannot reach postgres on the host",
      format: "full",
      limit: 1,
    });
    const [first] = results(result.structuredContent);
    expect(first).toMatchObject({
      session_id: postgres,
      project_path: "/home/dev/infra/platform-deploy",
      git_branch: expect.anything(),
      source_status: "present",
    });
    expect(Array.isArray(first!.files)).toBe(true);
    expect(first).toHaveProperty("keyword_score");
    expect(textOf(result)).toContain(`resume: cd /home/dev/infra/platform-deploy && claude --resume ${postgres}`);
  });

  test("search ranks exactly as `recall search --json` on the same index (one ranking path)", async () => {
    const query = "postgres lock migration";
    const mcp = await call(server.client, "search", { query, limit: 10 });
    const cli = Bun.spawnSync(
      [...fromSource, "search", query, "--json", "--limit", "10", "--no-reindex", ...exampleFlags],
      { env, cwd: repo },
    );
    expect(cli.exitCode).toBe(0);
    const expected = (JSON.parse(cli.stdout.toString()).results as Item[]).map((item) => [item.session_id, item.score]);
    expect(results(mcp.structuredContent).map((item) => [item.session_id, item.score])).toEqual(expected);
  });

  test("depth 2 inside one session by id prefix returns its turns; full adds the whole prompt, tools and files", async () => {
    const index = await call(server.client, "search", { query: "curl 172.17.0.1", depth: 2, session: "23d3db6a" });
    // A session implies depth 2, as `recall search --session` does (issue 26).
    const implied = await call(server.client, "search", { query: "curl 172.17.0.1", session: "23d3db6a" });
    expect((implied.structuredContent as { depth: number }).depth).toBe(2);
    const turns = results(index.structuredContent);
    expect(turns.length).toBeGreaterThan(0);
    for (const turn of turns) expect(turn.session_id).toBe(postgres);
    expect(textOf(index)).toMatch(new RegExp(`${postgres}:\\d+ `));
    const full = await call(server.client, "search", {
      query: "curl 172.17.0.1",
      depth: 2,
      session: "23d3db6a",
      format: "full",
      limit: 1,
    });
    const [best] = results(full.structuredContent);
    expect(best!.prompt as string).toContain("curl 172.17.0.1:5432");
    expect(best).toMatchObject({ total_turns: 4, tools: expect.arrayContaining(["Bash"]) });
  });

  test("search pages with offset: pages do not overlap, join up to the longer list, and the last has no next_offset", async () => {
    const query = "fix";
    const whole = results((await call(server.client, "search", { query, limit: 6 })).structuredContent).map(
      (item) => item.session_id,
    );
    const first = await call(server.client, "search", { query, limit: 3 });
    const second = await call(server.client, "search", { query, limit: 3, offset: 3 });
    expect((first.structuredContent as Item).next_offset).toBe(3);
    expect(textOf(first)).toContain("more: offset=3");
    const paged = [...results(first.structuredContent), ...results(second.structuredContent)].map(
      (item) => item.session_id,
    );
    expect(paged).toEqual(whole);
    const beyond = await call(server.client, "search", { query, offset: 500 });
    expect(results(beyond.structuredContent)).toEqual([]);
    expect((beyond.structuredContent as Item).next_offset).toBeNull();
  });

  test("list_sessions lists newest first in pages that cover every session once", async () => {
    const seen: string[] = [];
    const endedAt: string[] = [];
    for (let offset = 0, pages = 0; pages < 10; pages++) {
      const page = await call(server.client, "list_sessions", { limit: 5, offset });
      const structured = page.structuredContent as { results: Item[]; next_offset: number | null };
      seen.push(...structured.results.map((item) => item.session_id as string));
      endedAt.push(...structured.results.map((item) => item.ended_at as string));
      if (structured.next_offset === null) break;
      offset = structured.next_offset;
    }
    expect(seen.length).toBe(12);
    expect(new Set(seen).size).toBe(12);
    expect(endedAt).toEqual([...endedAt].sort().reverse());
    const full = await call(server.client, "list_sessions", {
      limit: 1,
      format: "full",
      project: "platform-deploy",
      source: "opencode",
    });
    expect(results(full.structuredContent)).toMatchObject([
      { source: "opencode", project_path: "/home/dev/infra/platform-deploy", is_subagent: false },
    ]);
  });

  test("read_turns shows a range with compact tool calls, never a raw JSON payload", async () => {
    const result = await call(server.client, "read_turns", { session: "23d3db6a", from: 3, to: 4 });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain("turns 3-4 of 4");
    expect(text).toContain("── turn 3 ·");
    expect(text).toContain("[Read] /home/dev/infra/platform-deploy/deploy/README.md");
    expect(text).toContain("[Edit] /home/dev/infra/platform-deploy/deploy/README.md (+9 −2)");
    expect(text).not.toContain('{"');
    expect(text).not.toContain("── turn 2 ·");
    const structured = result.structuredContent as {
      turns: Array<{ turn: number; tools: Item[] }>;
      truncated: unknown;
      from_archive: boolean;
    };
    expect(structured.turns.map((turn) => turn.turn)).toEqual([3, 4]);
    expect(structured.truncated).toBeNull();
    expect(structured.from_archive).toBe(false);
    const write = await call(server.client, "read_turns", {
      session: "ses_2e3b02b2fffeSJC8AhX17buuSZ",
      from: 2,
      to: 2,
    });
    expect(textOf(write)).toContain("[Write] /home/dev/src/notes-search/migrations/007_fts_porter.sql (7 lines)");
    expect(textOf(write)).toMatch(/\[Bash\] bun run migrate .*\n {4}\S/); // the command, then its first output lines
  });

  test("read_turns stops at the budget with the marker naming where to continue, and the rest follows (issue 26: at most the budget)", async () => {
    const cut = await call(server.client, "read_turns", { session: postgres, budget: 1500 });
    const text = textOf(cut);
    expect(text.length).toBeLessThanOrEqual(1500); // 1,569 before issue 26: the marker was not counted
    const marker = /\[truncated, (\d+) more characters, ask for turns (\d+)-(\d+)(?: from_char=(\d+))?\]$/.exec(text);
    expect(marker).not.toBeNull();
    const truncated = (
      cut.structuredContent as {
        truncated: { more_chars: number; next_from: number; next_to: number; next_from_char: number };
      }
    ).truncated;
    expect([truncated.more_chars, truncated.next_from, truncated.next_to, truncated.next_from_char]).toEqual([
      Number(marker![1]),
      Number(marker![2]),
      Number(marker![3]),
      Number(marker![4] ?? 0),
    ]);
    expect(truncated.next_to).toBe(4);
    const next = await call(server.client, "read_turns", {
      session: postgres,
      from: truncated.next_from,
      to: truncated.next_to,
      from_char: truncated.next_from_char,
      budget: 50_000,
    });
    expect((next.structuredContent as { truncated: unknown }).truncated).toBeNull();
    expect(textOf(next)).toContain("── turn 4 ·");
  });

  test("timeline around a turn shows the turns before and after it across sessions, oldest first, anchor marked", async () => {
    const result = await call(server.client, "timeline", { anchor: "23d3db6a:2", before: 2, after: 4 });
    const entries = results(result.structuredContent);
    expect(entries.map((entry) => `${(entry.session_id as string).slice(0, 8)}:${entry.turn}`).slice(0, 4)).toEqual([
      "23d3db6a:1",
      "23d3db6a:2",
      "23d3db6a:3",
      "23d3db6a:4",
    ]);
    expect(entries.filter((entry) => entry.anchor)).toMatchObject([{ session_id: postgres, turn: 2 }]);
    expect(entries.length).toBe(6); // 1 before (the session starts there) + anchor + 4 after
    expect(new Set(entries.map((entry) => entry.project)).size).toBeGreaterThan(1); // runs on into the next session
    const times = entries.map((entry) => entry.timestamp as string);
    expect(times).toEqual([...times].sort());
    expect(textOf(result)).toMatch(/^▶ .*23d3db6a-c189-41e8-b15e-e3dfa565d49f:2 /m);
    const byTime = await call(server.client, "timeline", {
      anchor: `${(entries[1]!.timestamp as string).slice(0, 16)}Z`,
      before: 1,
      after: 1,
      format: "full",
    });
    expect(results(byTime.structuredContent)).toMatchObject([
      { session_id: postgres, turn: 1 },
      { session_id: postgres, turn: 2, source: "claude-code" },
    ]);
  });

  test("recent gives a project's latest sessions with first and last prompts", async () => {
    const result = await call(server.client, "recent", { project: "platform-deploy", limit: 2 });
    const structured = result.structuredContent as { project: string; results: Item[]; next_offset: number | null };
    expect(structured.project).toBe("platform-deploy");
    expect(structured.results.map((item) => item.project)).toEqual(["platform-deploy", "platform-deploy"]);
    expect(structured.next_offset).toBe(2);
    expect(structured.results[0]!.first_prompt as string).toContain("billing-worker pods are all in CrashLoopBackOff");
    expect(structured.results[0]!.last_prompt as string).toContain("all 3 replicas Running");
    expect(textOf(result)).toContain("last (turn 4): all 3 replicas Running");
    const all = await call(server.client, "recent", {}); // the server's folder (the repository) is no indexed project
    expect((all.structuredContent as { project: unknown }).project).toBeNull();
    expect(results(all.structuredContent).length).toBe(5);
  });
});

describe("issue 10: bad arguments are tool errors, and the server keeps answering", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["search", { query: "   " }, /^the search query is empty/],
    ["search", { query: "x", limit: 0 }, /^limit must be a whole number from 1 to 1000, got 0$/],
    ["search", { query: "x", offset: -1 }, /^offset must be a whole number of at least 0/],
    ["search", { query: "x", depth: 3 }, /^depth must be 1 \(sessions\) or 2 \(turns\), got 3$/],
    [
      "search",
      { query: "x", source: "vim" },
      new RegExp(`^unknown source "vim" \\(use one of: ${sourceIds.join(", ")}\\)$`),
    ],
    ["search", { query: "x", session: postgres, depth: 1 }, /^session searches the turns of one session \(depth 2\)/],
    ["search", { query: 5 }, /expected string/],
    ["list_sessions", { since: "yesterday-ish" }, /^cannot read the date "yesterday-ish"/],
    [
      "read_turns",
      { session: "zzzzzzzz-no-such-session" },
      /^no session matches zzzzzzzz-no-such-session \(list ids with `recall sessions`\)$/,
    ],
    ["read_turns", { session: "zzzz" }, /^no session matches zzzz \(list ids with `recall sessions`\)$/],
    ["read_turns", { session: postgres, from: 9 }, /has 4 turns; turn 9 does not exist/],
    ["read_turns", { session: postgres, from: 3, to: 2 }, /^turn range 3-2 is empty/],
    ["read_turns", { session: postgres, budget: 10 }, /^budget must be a whole number from 500 to 200000/],
    ["read_turns", { session: postgres, from: 2, from_char: 1e6 }, /^from_char 1000000 is past the end of turn 2/],
    ["timeline", { anchor: "what?" }, /^no session matches what\?/],
    ["timeline", { anchor: "a b" }, /^cannot read the anchor "a b"/],
    ["timeline", { anchor: "23d3db6a:1", before: -2 }, /^before must be a whole number from 0 to 100/],
  ];
  for (const [tool, args, message] of cases) {
    test(`${tool} ${JSON.stringify(args)} is an error result with one line`, async () => {
      const result = await call(server.client, tool, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(message);
      expect(textOf(result)).not.toContain("\n");
    });
  }

  test("the same bad date gives the same message from the CLI flag and the MCP argument", async () => {
    const cli = Bun.spawnSync(
      [...fromSource, "sessions", "--since", "yesterday-ish", "--no-reindex", ...exampleFlags],
      { env, cwd: repo },
    );
    expect(cli.exitCode).toBe(2);
    const mcp = textOf(await call(server.client, "search", { query: "x", since: "yesterday-ish" }));
    expect(cli.stderr.toString()).toContain(`recall: ${mcp.split(" (")[0]}`);
  });

  test("after every error the server still answers", async () => {
    const result = await call(server.client, "search", { query: "borrow error" });
    expect(result.isError).toBeFalsy();
    expect(results(result.structuredContent)[0]).toMatchObject({ project: "tidy-rs" });
  });
});
