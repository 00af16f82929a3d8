/**
 * Issue 37: redactParseResult is the one redaction path for a parse result, so it must reach every text of the
 * normalized model. The fixture fills every field of every type (`Required<…>`: a field added to src/parsers/types.ts
 * fails typecheck here until it is filled), a token is planted into every string, and after redaction the only strings
 * still holding it must be the fields listed in `keptAsIs` (ids, the source file's location and the skip
 * report's places in it). A new string field that is neither redacted nor listed fails the test.
 */
import { describe, expect, test } from "bun:test";
import type { FileChange, ParseResult, Session, ToolCall, Turn } from "../../src/parsers/index.ts";
import { redactParseResult, redactUnitLocator } from "../../src/redact/index.ts";

/** A GitHub token of the documented shape (`ghp_` + 36 alphanumerics), synthetic. */
const token = "ghp_Zk81mQx7Lp2Vb9Rt4Wy6Na3Kc5Hd0Fg2Js4E";

/** Field paths (`*` for an array index) left as they are, with why. */
const keptAsIs = [
  "session.id", // the tool's session id: `claude -r <id>` must work
  "session.parentSessionId", // an id
  "session.location", // the source file recall re-reads for level 3
  "turns.*.sessionId", // an id
  "turns.*.toolCalls.*.subagentSessionId", // an id
  "skipped.first", // a place in the source file (`<location>:17: not JSON`)
  "skipped.reasons.not JSON.first", // the same
];

const change = (kind: FileChange["kind"]): Required<FileChange> => ({
  path: `/home/dev/${token}/src/app.ts`,
  kind,
  edits: [{ before: `const key = "${token}";`, after: `const key = process.env.KEY; // was ${token}` }],
  content: `GITHUB_TOKEN=${token}\n`,
  patch: `*** Update File: src/app.ts\n-const key = "${token}";\n+const key = process.env.KEY;`,
});

const call: Required<ToolCall> = {
  name: `run ${token}`,
  input: `echo ${token}`,
  filePath: `/home/dev/${token}/src/app.ts`,
  isError: false,
  linesAdded: 1,
  linesRemoved: 1,
  output: `token: ${token}`,
  subagentSessionId: `agent-${token}`,
  change: change("edit"),
};

const turn: Required<Turn> = {
  sessionId: `session-${token}`,
  number: 1,
  timestamp: 1_700_000_000_000,
  prompt: `use ${token}`,
  response: `I used ${token}`,
  toolCalls: [call, { ...call, change: change("write") }, { ...call, change: change("patch") }],
  files: [`/home/dev/${token}/src/app.ts`],
  isSubagent: false,
  usage: [{ model: "claude-sonnet-4-5", input: 1, output: 2, cacheRead: 3, cacheWrite: 4, costUsd: null }],
};

const session: Required<Session> = {
  id: `session-${token}`,
  source: "claude-code",
  projectPath: `/home/dev/${token}/app`,
  projectName: `app-${token}`,
  gitBranch: `fix/${token}`,
  startedAt: 1_700_000_000_000,
  endedAt: 1_700_000_100_000,
  title: `rotate ${token}`,
  abstract: [{ source: "compaction", text: `We rotated ${token} and restarted the worker.`, at: 1_700_000_050_000 }],
  turnCount: 1,
  parentSessionId: `parent-${token}`,
  isSubagent: false,
  location: `/home/dev/.claude/projects/${token}/session.jsonl`,
  promptOnly: false,
};

const result: Required<ParseResult> = {
  session,
  turns: [turn],
  fromTurn: 1,
  resume: { kind: "test", cwd: `/home/dev/${token}`, branch: `fix/${token}`, filePath: `/x/${token}`, u: "uuid-1" },
  bytesRead: 10,
  bytesVerified: 0,
  skipped: {
    count: 1,
    first: `/x/${token}:1: not JSON`,
    reasons: { "not JSON": { count: 1, first: `/x/${token}:1` } },
  },
};

/** Paths of every string in `value` that holds `needle` (array indices as `*`). */
function stringsHolding(value: unknown, needle: string, path = ""): string[] {
  if (typeof value === "string") return value.includes(needle) ? [path] : [];
  if (Array.isArray(value)) return [...new Set(value.flatMap((item) => stringsHolding(item, needle, `${path}.*`)))];
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([key, item]) => stringsHolding(item, needle, path ? `${path}.${key}` : key));
  return [];
}

describe("redactParseResult reaches every text of the normalized model (issue 37)", () => {
  test("the fixture plants the token into every string field", () => {
    const planted = stringsHolding(result, token);
    expect(planted).toContain("turns.*.toolCalls.*.change.edits.*.before");
    expect(planted).toContain("session.gitBranch");
    expect(planted.length).toBeGreaterThan(keptAsIs.length + 15);
  });

  test("after redaction only the fields kept as they are still hold it", () => {
    const redacted = redactParseResult(result);
    expect(stringsHolding(redacted, token).sort()).toEqual([...keptAsIs].sort());
    expect(redacted.session.gitBranch).toBe("fix/[REDACTED:github-token]");
    expect(redacted.session.projectPath).toBe("/home/dev/[REDACTED:github-token]/app");
    expect(redacted.turns[0]!.toolCalls[0]!.change!.edits![0]!.before).toBe('const key = "[REDACTED:github-token]";');
    expect(redacted.resume!.u).toBe("uuid-1");
  });

  test("the index's redaction leaves file changes out and redacts the rest the same", () => {
    const redacted = redactParseResult(result, { dropFileChanges: true });
    expect(redacted.turns[0]!.toolCalls.map((call) => call.change)).toEqual([undefined, undefined, undefined]);
    expect(stringsHolding(redacted, token).sort()).toEqual([...keptAsIs].sort());
    expect(result.turns[0]!.toolCalls[0]!.change).toBeDefined(); // the input is not modified
  });

  test("redacting twice changes nothing", () => {
    const once = redactParseResult(result);
    expect(redactParseResult(once)).toEqual(once);
  });
});

describe("redactUnitLocator (issue 37)", () => {
  test("a Codex index title and a working folder go; places and flags the parser needs stay", () => {
    const locator = {
      indexTitle: `rotate ${token}`,
      projectPath: `/home/dev/${token}/app`,
      files: `/home/dev/.gemini/tmp/${token}/chats/session-1.json`,
      isArchived: false,
    };
    expect(redactUnitLocator(locator)).toEqual({
      indexTitle: "rotate [REDACTED:github-token]",
      projectPath: "/home/dev/[REDACTED:github-token]/app",
      files: locator.files,
      isArchived: false,
    });
    const plain = { isSubagent: false, agentKind: "main" };
    expect(redactUnitLocator(plain)).toBe(plain);
  });
});
