import { describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SourceError } from "../../src/errors.ts";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import { normalizeGeminiToolName } from "../../src/parsers/gemini-cli/tools.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";
import { makeGeminiHome, unitBelow } from "../fixtures/gemini-cli/helpers.ts";
import { geminiCorpusRoots, hasCorpus } from "../helpers/corpus.ts";
import { expectRescansMatchEachRoot, expectRescansMatchWholeWalk } from "../helpers/rescan.ts";

const home = resolve(import.meta.dir, "../fixtures/gemini-cli/dot-gemini");
const shopChats = join(home, "tmp/shop-app/chats");
const ids = {
  toolTraps: "aaaa1111-0000-4000-8000-000000000001",
  resumedTwoJson: "bbbb2222-0000-4000-8000-000000000002",
  migratedTwin: "cccc3333-0000-4000-8000-000000000003",
  streaming: "dddd4444-0000-4000-8000-000000000004",
  learntHash: "eeee5555-0000-4000-8000-000000000005",
  unknownHash: "ffff6666-0000-4000-8000-000000000006",
  subagent: "k3x9pq",
  skillExtraction: "zz99yy",
};

const scan = geminiCliParser.scan([home]);
const units = geminiCliParser.listUnits(scan.containers);
const unitOf = (sessionId: string): SourceUnit => {
  const unit = units.find((candidate) => candidate.sessionId === sessionId);
  if (!unit) throw new Error(`no unit ${sessionId}`);
  return unit;
};
const parse = (sessionId: string, withOutputs = false): ParseResult =>
  geminiCliParser.parse(unitOf(sessionId), { withOutputs });

describe("gemini cli scan: walking changed folders again (issue 42)", () => {
  test("each folder of the fixture trees, walked alone, gives what the whole walk gave below it", () => {
    const fixtures = resolve(import.meta.dir, "../fixtures/gemini-cli");
    expect(expectRescansMatchWholeWalk(geminiCliParser, [fixtures])).toBeGreaterThan(10);
    expect(expectRescansMatchWholeWalk(geminiCliParser, [join(fixtures, "registry", ".gemini")])).toBeGreaterThan(5);
  });

  test("a sub-agent folder inside chats/ and a chats/ folder inside it are walked as the whole walk walks them", () => {
    const { home, chats } = makeGeminiHome();
    try {
      mkdirSync(join(chats, "parent-session", "chats"), { recursive: true });
      writeFileSync(join(chats, "session-a.json"), "{}");
      writeFileSync(join(chats, "parent-session", "agent-b.jsonl"), "{}\n");
      writeFileSync(join(chats, "parent-session", "chats", "too-deep.json"), "{}");
      expect(expectRescansMatchWholeWalk(geminiCliParser, [home])).toBeGreaterThan(3);
      const rescan = geminiCliParser.rescanFolders!(
        [home],
        [{ path: join(chats, "parent-session"), fingerprint: "x" }],
      );
      expect(rescan?.containers.map((container) => container.path)).toEqual([
        join(chats, "parent-session", "agent-b.jsonl"),
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test.skipIf(!hasCorpus)(
    "each folder of every corpus root, walked alone, gives what the whole walk gave (needs ../shared/corpus)",
    () => expect(expectRescansMatchEachRoot(geminiCliParser, geminiCorpusRoots())).toBeGreaterThan(10),
  );
});

describe("gemini cli scan and units", () => {
  test("scan lists the chat files under chats/ and each project's logs.json, never checkpoints or credentials", () => {
    const paths = scan.containers.map((container) => container.path);
    expect(paths.length).toBe(11);
    // logs.json: typed prompts, read by gemini-cli/logs.ts (test/parsers/prompt-history.test.ts), never a chat
    expect(paths.filter((path) => !path.includes("/chats/"))).toEqual([join(home, "tmp", "shop-app", "logs.json")]);
    expect(paths.some((path) => path.includes("checkpoints") || path.includes("oauth_creds"))).toBe(false);
    expect(scan.missingRoots).toEqual([]);
    expect(scan.unavailable).toEqual([]);
  });

  test("a root may be the .gemini folder, its tmp/ folder, a folder above it, or one chat file", () => {
    expect(geminiCliParser.scan([join(home, "tmp")]).containers.length).toBe(11);
    const above = geminiCliParser.scan([resolve(home, "..")]).containers; // also holds other fixture trees
    expect(above.filter((container) => container.path.startsWith(`${home}/`)).length).toBe(11);
    const one = join(shopChats, "session-2026-03-01T10-00-aaaa1111.json");
    expect(geminiCliParser.scan([one]).containers.map((container) => container.path)).toEqual([one]);
    expect(geminiCliParser.scan(["/nonexistent/.gemini"]).missingRoots).toEqual(["/nonexistent/.gemini"]);
  });

  test("the fingerprint covers the project's .project_root, and without one the registry projects.json (issue 26)", () => {
    const container = scan.containers.find((entry) => entry.path.includes("aaaa1111"))!;
    expect(container.fingerprint).toMatch(/\|root\d+:[^|]*$/);
    const hashDir = scan.containers.find((entry) => entry.path.includes("ffff6666"))!;
    expect(hashDir.fingerprint).toMatch(/\|root-reg\d+:[^|]*$/);
    const alone = join(home, "tmp/151267701d154ee3a2fecfda1e739b66cb32b9ca4597ee54c9e12e4065f23a13/chats");
    expect(
      geminiCliParser.scan([join(alone, "session-2025-11-02T10-00-ffff6666.json")]).containers[0]?.fingerprint,
    ).toBe(hashDir.fingerprint);
  });

  test("one unit per session id: files of a resumed session are merged, a .json comes right before its .jsonl twin", () => {
    expect(units.map((unit) => unit.sessionId).sort()).toEqual(Object.values(ids).sort());
    expect(new Set(units.map((unit) => unit.key)).size).toBe(units.length);
    const resumed = unitOf(ids.resumedTwoJson);
    expect(
      String(resumed.locator?.files)
        .split("\n")
        .map((path) => path.split("/").at(-1)),
    ).toEqual(["session-2026-03-01T12-00-bbbb2222.json", "session-2026-03-02T09-00-bbbb2222.json"]);
    expect(resumed.containerPath.endsWith("session-2026-03-02T09-00-bbbb2222.json")).toBe(true);
    expect(resumed.changeKey.split(";").length).toBe(2);
    expect(
      String(unitOf(ids.migratedTwin).locator?.files)
        .split("\n")
        .map((path) => path.split("/").at(-1)),
    ).toEqual(["session-2026-03-03T08-00-cccc3333.json", "session-2026-03-03T08-00-cccc3333.jsonl"]);
  });

  test("a change to any file of a merged session changes its change key", () => {
    const { home: temp, chats } = makeGeminiHome("shop-app", "/home/dev/shop-app");
    try {
      for (const name of ["session-2026-03-01T12-00-bbbb2222.json", "session-2026-03-02T09-00-bbbb2222.json"])
        copyFileSync(join(shopChats, name), join(chats, name));
      const before = unitBelow(temp).changeKey;
      appendFileSync(join(chats, "session-2026-03-01T12-00-bbbb2222.json"), " ");
      expect(unitBelow(temp).changeKey).not.toBe(before);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });

  test("an empty chat file is reported unavailable (being created), not skipped as deleted", () => {
    const { home: temp, chats } = makeGeminiHome();
    try {
      writeFileSync(join(chats, "session-2026-05-01T10-00-12345678.jsonl"), "");
      const unavailable: string[] = [];
      const listed = geminiCliParser.listUnits(geminiCliParser.scan([temp]).containers, {
        onUnavailable: (path) => unavailable.push(path),
      });
      expect(listed).toEqual([]);
      expect(unavailable.length).toBe(1);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });
});

describe("gemini cli sessions and turns", () => {
  test("JSON session: prompts, prose only (no thoughts), info/error messages in no turn", () => {
    const { session, turns, skipped } = parse(ids.toolTraps);
    expect(session).toMatchObject({
      id: ids.toolTraps,
      source: "gemini-cli",
      projectPath: "/home/dev/shop-app",
      projectName: "shop-app",
      gitBranch: null,
      title: "Fix the checkout discount bug",
      turnCount: 3,
      isSubagent: false,
      parentSessionId: null,
      startedAt: Date.parse("2026-03-01T10:00:00.000Z"),
      endedAt: Date.parse("2026-03-01T10:09:00.000Z"),
    });
    expect(turns.map((turn) => turn.prompt)).toEqual([
      "Why does the checkout test fail?",
      "Compare with @docs/spec.md",
      "@codebase_investigator map the payment flow",
    ]);
    expect(turns.map((turn) => turn.response)).toEqual([
      "The total ignores discounts.",
      "The spec agrees.",
      "The payment flow has three steps.",
    ]);
    expect(turns[0]?.timestamp).toBe(Date.parse("2026-03-01T10:00:01.000Z"));
    const everything = JSON.stringify(turns);
    for (const hidden of [
      "SECRET-REASONING",
      "Thinking hidden",
      "REFERENCED-FILE-BODY",
      "SYSTEM-NOTE",
      "Quota exceeded",
      "Update successful",
    ]) {
      expect(everything.includes(hidden)).toBe(false);
    }
    expect(skipped.count).toBe(0);
  });

  test("tool calls land in the shared vocabulary with status and error", () => {
    const { turns } = parse(ids.toolTraps);
    expect(turns[0]?.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Bash", "npm test -- checkout", false],
      ["Read", "/home/dev/shop-app/src/checkout.ts", false],
      ["Grep", "total\\( *.ts", false],
      ["Glob", "**/*.test.ts /home/dev/shop-app", false],
      ["Edit", "/home/dev/shop-app/src/checkout.ts", false],
      ["Write", "/home/dev/shop-app/src/discount.ts", true],
      ["Bash", "rm -rf node_modules", true],
    ]);
    expect(turns[0]?.toolCalls[4]).toMatchObject({ linesAdded: 3, linesRemoved: 2 });
    expect(turns[0]?.files).toEqual(["/home/dev/shop-app/src/checkout.ts", "/home/dev/shop-app/src/discount.ts"]);
    expect(turns[1]?.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ["WebFetch", "https://example.com/spec"],
      ["WebSearch", "discount rounding rules"],
      ["mcp__postgresql__execute_sql", "select 1"],
      ["read_many_files", "src/**/*.ts docs/*.md"],
      ["save_memory", "The user prefers pnpm"],
      ["LS", "/home/dev/shop-app/src"],
    ]);
    for (const turn of turns) for (const call of turn.toolCalls) expect(call.output).toBeUndefined();
  });

  test("with outputs, each call carries its function response output or error", () => {
    const { turns } = parse(ids.toolTraps, true);
    expect(turns[0]?.toolCalls.map((call) => call.output)).toEqual([
      "FAIL checkout.test.ts",
      "export function total() {}",
      "src/checkout.ts:1",
      "checkout.test.ts",
      "Successfully modified file",
      "Permission denied",
      "",
    ]);
  });

  test("tool names: Gemini names map to the shared ones, MCP names split at the second underscore", () => {
    expect(normalizeGeminiToolName("run_shell_command")).toBe("Bash");
    expect(normalizeGeminiToolName("search_file_content")).toBe("Grep");
    expect(normalizeGeminiToolName("grep_search")).toBe("Grep");
    expect(normalizeGeminiToolName("replace")).toBe("Edit");
    expect(normalizeGeminiToolName("google_web_search")).toBe("WebSearch");
    expect(normalizeGeminiToolName("write_todos")).toBe("TodoWrite");
    expect(normalizeGeminiToolName("mcp_github_get_issue")).toBe("mcp__github__get_issue");
    expect(normalizeGeminiToolName("codebase_investigator")).toBe("codebase_investigator");
  });

  test("a session resumed into two JSON files is one session; repeated records count once", () => {
    const { session, turns } = parse(ids.resumedTwoJson);
    expect(turns.map((turn) => [turn.number, turn.prompt])).toEqual([
      [1, "Add a CSV export"],
      [2, "Also support TSV"],
    ]);
    expect(session.startedAt).toBe(Date.parse("2026-03-01T12:00:00.000Z"));
    expect(session.endedAt).toBe(Date.parse("2026-03-02T09:00:20.000Z"));
    expect(session.title).toBe("CSV and TSV export");
    expect(session.location.endsWith("session-2026-03-02T09-00-bbbb2222.json")).toBe(true);
  });

  test("a .json migrated into a .jsonl twin: the twin's rewind holds, the old file does not bring it back", () => {
    const { session, turns } = parse(ids.migratedTwin);
    // The prompt the twin rewound is a rewound turn (issue 26), never a main one, though the old .json still holds it.
    expect(turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [1, "Rename the cart module", expect.any(String)],
      [2, "Now update the imports", expect.any(String)],
      [-1, "REWOUND prompt that the user took back", "REWOUND answer"],
    ]);
    expect(JSON.stringify(turns.filter((turn) => turn.number > 0)).includes("REWOUND")).toBe(false);
    expect(session.turnCount).toBe(2);
  });

  test("JSONL: re-appended messages keep their place with the last content, $rewindTo cuts, $set merges", () => {
    const { session, turns, skipped } = parse(ids.streaming, true);
    expect(turns.map((turn) => [turn.number, turn.prompt])).toEqual([
      [1, "List the API routes"],
      [2, "Document the /ship route instead"],
      [3, "Thanks, run the linter"],
      [-1, "Delete the /ship route"], // what `$rewindTo` cut: a rewound turn (issue 26), out of the main turns
    ]);
    expect(turns.at(-1)!.response).toBe("REWOUND: deleting /ship");
    expect(turns[0]?.toolCalls.map((call) => call.name)).toEqual(["Grep"]);
    expect(turns[1]?.toolCalls).toEqual([
      {
        name: "Write",
        input: "/home/dev/shop-app/docs/ship.md",
        filePath: "/home/dev/shop-app/docs/ship.md",
        isError: false,
        linesAdded: 2,
        linesRemoved: 0,
        output: "Created docs/ship.md",
        change: { path: "/home/dev/shop-app/docs/ship.md", kind: "write", content: "# Ship\n" },
      },
    ]);
    expect(JSON.stringify(turns.slice(0, 3)).includes("REWOUND")).toBe(false);
    expect(session.turnCount).toBe(3);
    expect(session.title).toBe("API routes and /ship docs");
    expect(session.endedAt).toBe(Date.parse("2026-04-10T08:03:04.000Z"));
    expect(skipped.count).toBe(2);
    expect(skipped.first).toEndWith("session-2026-04-10T08-00-dddd4444.jsonl:7: not JSON");
  });

  test("a sub-agent nested under its parent's id links to it; a skill extraction run has no parent", () => {
    const sub = parse(ids.subagent);
    expect(sub.session).toMatchObject({
      isSubagent: true,
      parentSessionId: ids.streaming,
      projectPath: "/home/dev/shop-app",
    });
    expect(sub.session.title).toBe("/ship calls shipOrder() in src/ship.ts and the queue wor");
    expect(sub.turns.every((turn) => turn.isSubagent)).toBe(true);
    const skill = parse(ids.skillExtraction);
    expect(skill.session).toMatchObject({ isSubagent: true, parentSessionId: null });
  });

  test("project path: .project_root, else learnt from a folder with the same projectHash, else unknown with the hash shortened as name", () => {
    expect(parse(ids.learntHash).session).toMatchObject({ projectPath: "/home/dev/shop-app", projectName: "shop-app" });
    const unknown = parse(ids.unknownHash).session;
    expect(unknown.projectPath).toBe("");
    expect(unknown.projectName).toBe("15126770");
  });

  test("the format is decided by content: JSONL lines in a file named .json parse as JSONL", () => {
    const { turns, skipped } = parse(ids.unknownHash);
    expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["Where is the config loaded?", "In src/config.ts."],
    ]);
    expect(skipped.count).toBe(0);
  });

  test("a JSON document cut mid-write throws SourceError (the index keeps what it stored and retries)", () => {
    const { home: temp, chats } = makeGeminiHome();
    try {
      const text = readFileSync(join(shopChats, "session-2026-03-01T10-00-aaaa1111.json"), "utf8");
      writeFileSync(join(chats, "session-2026-03-01T10-00-aaaa1111.json"), text.slice(0, 900));
      const unit = unitBelow(temp);
      expect(unit.sessionId).toBe(ids.toolTraps);
      expect(() => geminiCliParser.parse(unit)).toThrow(SourceError);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });

  test("a JSONL line cut mid-write is tolerated and counted; the rest parses", () => {
    const { home: temp, chats } = makeGeminiHome();
    try {
      const text = readFileSync(join(shopChats, "session-2026-04-10T08-00-dddd4444.jsonl"), "utf8");
      writeFileSync(join(chats, "s.jsonl"), text.slice(0, text.length - 40));
      const result = geminiCliParser.parse(unitBelow(temp));
      expect(result.turns.map((turn) => turn.number)).toEqual([1, 2, 3, -1]);
      expect(result.turns[2]?.response).toBe("");
      expect(result.skipped.count).toBe(3); // line 7 (not JSON), the unknown record, and the cut last line
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });

  test("a user message with only an image is shown as a placeholder prompt", () => {
    const { home: temp, chats } = makeGeminiHome();
    try {
      mkdirSync(chats, { recursive: true });
      writeFileSync(
        join(chats, "session-2026-05-02T10-00-99999999.json"),
        JSON.stringify({
          sessionId: "99999999-0000-4000-8000-000000000009",
          projectHash: "x",
          startTime: "2026-05-02T10:00:00.000Z",
          lastUpdated: "2026-05-02T10:00:05.000Z",
          messages: [
            {
              id: "i-u1",
              timestamp: "2026-05-02T10:00:01.000Z",
              type: "user",
              content: [{ inlineData: { mimeType: "image/png", data: "AAAA" } }],
            },
            {
              id: "i-g1",
              timestamp: "2026-05-02T10:00:05.000Z",
              type: "gemini",
              content: "A screenshot of a login form.",
            },
          ],
        }),
      );
      const { turns, session } = geminiCliParser.parse(unitBelow(temp));
      expect(turns.map((turn) => turn.prompt)).toEqual(["[inline data: image/png]"]);
      expect(session.projectPath).toBe("/home/dev/proj");
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });
});
