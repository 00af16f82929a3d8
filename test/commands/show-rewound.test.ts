/**
 * Issue 26 through the real CLI: rewound turns are searchable and marked, out of the main turn list, shown on
 * request; a Task call names the sub-agent session it started; a session whose source is deleted gets no resume
 * command; a huge turn is cut in text with a note; untitled sessions are titled by what the user typed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { textFieldChars } from "../../src/render/show.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const fixtures = join(repo, "test/fixtures/claude-code");
const work = mkdtempSync(join(tmpdir(), "recall-show-rewound-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const root = join(work, "claude");
const project = join(root, "-home-dev-proj");
mkdirSync(project, { recursive: true });
mkdirSync(join(work, "none"));
copyFileSync(join(fixtures, "rewind-branch.jsonl"), join(project, "rewind-branch.jsonl"));
copyFileSync(join(fixtures, "sidechain-first.jsonl"), join(project, "55555555-5555-4555-8555-555555555555.jsonl"));
copyFileSync(join(fixtures, "ide-wrapper.jsonl"), join(project, "66666666-6666-4666-8666-666666666666.jsonl"));
const hugeId = "77777777-7777-4777-8777-777777777777";
const huge = `here is the whole server log ${"GET /api/cart 200 12ms\n".repeat(3000)}`;
writeClaudeSession(join(project, `${hugeId}.jsonl`), {
  sessionId: hugeId,
  cwd: "/home/dev/proj",
  turns: [{ prompt: huge, response: "The cart endpoint is fine." }],
});
const goneId = "88888888-8888-4888-8888-888888888888";
writeClaudeSession(join(project, `${goneId}.jsonl`), {
  sessionId: goneId,
  cwd: "/home/dev/proj",
  turns: [{ prompt: "rename the flamingo feeder service", response: "Renamed." }],
});

const summaryId = "99999999-9999-4999-8999-999999999999";
writeClaudeSession(join(project, `${summaryId}.jsonl`), {
  sessionId: summaryId,
  cwd: "/home/dev/proj",
  turns: [
    {
      prompt: "wrap up the migration work",
      response:
        "Done.\n\n# Migration notes\n\n## Summary\n- schema 12\n\n```md\n# a heading in a code block stays\n```",
    },
  ],
});
writeFileSync(join(project, "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa.jsonl"), ""); // a session without any turn

const sources = ["--claude-dir", root, "--opencode-dir", join(work, "none")];

function recall(args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, HOME: work, RECALL_HOME: join(work, "home") };
  for (const key of sourceLocationVariables) delete env[key];
  const { exitCode: code, stdout, stderr } = runCli([...args, ...sources], env);
  return { code, stdout, stderr };
}

describe("issue 26 through the CLI", () => {
  test("a rewound turn is found, marked rewound, and named by the show command that prints it", () => {
    expect(recall(["index", "--keyword-only"]).code).toBe(0);
    const json = JSON.parse(recall(["search", "abandoned answer", "--depth", "2", "--json"]).stdout);
    expect(json.results[0]).toMatchObject({
      session_id: "rewind-branch",
      turn: 1,
      branch: "rewound",
      show_command: "recall show rewind-branch:r1",
    });
    const sessions = JSON.parse(recall(["search", "abandoned answer", "--json"]).stdout);
    expect(sessions.results[0]).toMatchObject({ session_id: "rewind-branch", best_turn: 1, branch: "rewound" });
    const text = recall(["search", "abandoned answer", "--depth", "2"]).stdout;
    expect(text).toContain(":r1 (rewound branch)");
  });

  test("show keeps rewound turns out of the conversation, names them, and prints them on request", () => {
    const main = recall(["show", "rewind-branch"]);
    expect(main.stdout).toContain("Showing turns 1-2 of 2");
    expect(main.stdout).not.toContain("Abandoned answer");
    expect(main.stdout).toContain(
      "1 rewound turn not shown (branches the user rewound past): recall show rewind-branch --rewound",
    );
    const rewound = recall(["show", "rewind-branch", "--rewound"]);
    expect(rewound.stdout).toContain("Showing rewound turn r1 of 1");
    expect(rewound.stdout).toContain("── Turn r1 (rewound)");
    expect(rewound.stdout).toContain("Abandoned answer");
    const json = JSON.parse(recall(["show", "rewind-branch:r1", "--json"]).stdout);
    expect(json).toMatchObject({ branch: "rewound", rewound_turns: 1, from: 1, to: 1 });
    expect(json.turns.map((turn: { turn: number; branch: string }) => [turn.turn, turn.branch])).toEqual([
      [1, "rewound"],
    ]);
    expect(recall(["show", "rewind-branch:2"]).stdout).toContain("Showing turn 2 of 2\n"); // not "turns 2-2"
    const missing = recall(["show", "rewind-branch:r2"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("has 1 rewound turn; turn r2 does not exist");
  });

  test("a Task call names the sub-agent session it started", () => {
    const shown = recall(["show", "55555555"]);
    expect(shown.stdout).toContain("[Task] Find parseConfig callers → sub-agent agent-s1");
    const json = JSON.parse(recall(["show", "55555555", "--json"]).stdout);
    expect(json.turns[0].tool_calls[0].subagent_session_id).toBe("agent-s1");
    const agent = recall(["show", "agent-s1"]);
    expect(agent.stdout).toContain("sub-agent of: 55555555-5555-4555-8555-555555555555");
  });

  test("an untitled session is titled by what the user typed, not the block the IDE extension injected", () => {
    const listed = JSON.parse(recall(["sessions", "--json"]).stdout);
    const session = listed.sessions.find((s: { session_id: string }) => s.session_id.startsWith("66666666"));
    expect(session.title).toBe("why is the login page slow on first load");
    const found = JSON.parse(recall(["search", "login page slow", "--json"]).stdout);
    expect(found.results[0].preview).toStartWith("why is the login page slow on first load");
  });

  test("a turn longer than the text cap is cut with a note in text and printed whole in JSON", () => {
    const text = recall(["show", hugeId]).stdout;
    expect(text).toContain(
      `${(huge.trim().length - textFieldChars).toLocaleString("en-US")} more characters not shown (--json prints this turn whole)`,
    );
    expect(text.length).toBeLessThan(textFieldChars + 5000);
    const json = JSON.parse(recall(["show", hugeId, "--json"]).stdout);
    expect(json.turns[0].prompt).toBe(huge.trim());
  });

  test("the markdown export leaves out sessions without turns, nests a turn's own headings under it, and holds rewound turns", () => {
    const exported = recall(["export", "--format", "markdown"]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).not.toContain("aaaaaaaa-aaaa");
    expect(exported.stderr).toContain("1 session without any turn left out (--include-empty exports it)");
    expect(exported.stdout).toContain("\n#### Migration notes\n");
    expect(exported.stdout).toContain("\n##### Summary\n");
    expect(exported.stdout).toContain("\n# a heading in a code block stays\n");
    expect(exported.stdout.match(/^## /gm)?.length).toBe(exported.stdout.match(/^- session: /gm)?.length);
    expect(exported.stdout).toContain("### Turn r1 (rewound: a branch the user rewound past)");
    const all = recall(["export", "--format", "jsonl", "--include-empty"]).stdout.trim().split("\n");
    expect(all.some((line) => JSON.parse(line).session.session_id.startsWith("aaaaaaaa"))).toBe(true);
    const rewind = all.map((line) => JSON.parse(line)).find((line) => line.session.session_id === "rewind-branch");
    expect(rewind.turns.map((turn: { turn: number; branch: string }) => `${turn.branch}:${turn.turn}`)).toEqual([
      "main:1",
      "main:2",
      "rewound:1",
    ]);
  });

  test("a session whose source is deleted has no resume command, in search and in show", () => {
    unlinkSync(join(project, `${goneId}.jsonl`));
    const found = JSON.parse(recall(["search", "flamingo feeder", "--json"]).stdout);
    expect(found.results[0]).toMatchObject({ session_id: goneId, source_status: "deleted", resume_command: null });
    const shown = recall(["show", goneId]);
    expect(shown.stdout).toContain("resume: none (the source is deleted: only recall's archive holds it)");
    expect(shown.stdout).not.toContain("claude --resume");
  });
});
