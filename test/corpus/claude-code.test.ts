import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { claudeCodeParser, isTranscript, unitForContainer } from "../../src/parsers/claude-code.ts";
import type { ParseResult } from "../../src/parsers/types.ts";
import { claudeCorpusRoots, corpusDir, hasCorpus } from "../helpers/corpus.ts";
import { lineBoundaries, replayAt, unitOfFile } from "../parsers/claude-code-replay.ts";

const cc = join(corpusDir, "claude-code");
const idaho = join(cc, "LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT");
const paas = join(cc, "Xu-Wentao__dotfile/.claude/projects/-Users-xuwentao-Projects-tele-paas-controller");
const rabbit = join(
  cc,
  "iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-coderabbit-review-helper",
);
const files = {
  compaction: join(idaho, "744827a2-a4c6-4a5b-9997-81d6e9384d8d.jsonl"),
  inlineSidechain: join(
    cc,
    "d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
  ),
  nestedParent: join(paas, "f8f80429-8398-46a9-a8aa-05543b114478.jsonl"),
  nestedAgent: join(paas, "f8f80429-8398-46a9-a8aa-05543b114478/subagents/agent-a933ed4308097ae4b.jsonl"),
  flatMain: join(rabbit, "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"),
  flatAgent: join(rabbit, "agent-9fa17969.jsonl"),
};
const parseFile = (path: string): ParseResult => claudeCodeParser.parse(unitOfFile(path));

describe.skipIf(!hasCorpus)("claude code parser on the real corpus (needs ../shared/corpus)", () => {
  const scan = hasCorpus ? claudeCodeParser.scan(claudeCorpusRoots()) : { containers: [], missingRoots: [] };
  const transcripts = scan.containers.filter(isTranscript);

  test("scan finds the transcripts, the three prompt histories and no other side file", () => {
    expect(scan.missingRoots).toEqual([]);
    expect(transcripts.length).toBeGreaterThan(150);
    for (const container of transcripts) {
      expect(container.path.endsWith(".jsonl")).toBe(true);
      expect(container.path.endsWith("/history.jsonl")).toBe(false);
      expect(container.path.includes("/tool-results/")).toBe(false);
    }
    expect(
      scan.containers
        .filter((container) => !isTranscript(container))
        .map((container) => container.path.slice(cc.length + 1)),
    ).toEqual([
      "LAF-US__IDAHO-VAULT/.claude/history.jsonl",
      "Xu-Wentao__dotfile/.claude/history.jsonl",
      "fabien-lessirard__dotfiles/.claude/history.jsonl",
    ]);
  });

  test("every real file parses without an exception and keeps the turn invariants", () => {
    const ids = new Set<string>();
    for (const unit of claudeCodeParser.listUnits(transcripts)) {
      for (const withOutputs of [false, true]) {
        const { session, turns: all, fromTurn } = claudeCodeParser.parse(unit, { withOutputs });
        expect(fromTurn).toBe(1);
        // Main turns 1…turnCount, then the rewound ones -1, -2, … (issue 26).
        const turns = all.filter((turn) => turn.number > 0);
        const rewound = all.filter((turn) => turn.number < 0);
        expect(all).toEqual([...turns, ...rewound]);
        expect(turns.map((turn) => turn.number)).toEqual(turns.map((_, index) => index + 1));
        expect(rewound.map((turn) => turn.number)).toEqual(rewound.map((_, index) => -(index + 1)));
        expect(session.turnCount).toBe(turns.length);
        for (const turn of rewound) expect(`${turn.prompt}${turn.response}`.trim().length).toBeGreaterThan(0);
        let last = 0;
        for (const turn of turns) {
          // Only an opening answer (the conversation starts with an assistant line: a resumed file whose prompt is in
          // another file, an agent file without its task line) has no prompt.
          if (turn.number > 1 || turn.response === "") expect(turn.prompt.trim().length).toBeGreaterThan(0);
          expect(turn.sessionId).toBe(session.id);
          expect(turn.isSubagent).toBe(session.isSubagent);
          // (an opening answer may be a copied line stamped later than the file's own prompts: obra large-conversation)
          if (turn.timestamp > 0 && turn.prompt !== "") {
            expect(turn.timestamp).toBeGreaterThanOrEqual(last);
            last = turn.timestamp;
          }
        }
        if (session.startedAt > 0) expect(session.endedAt).toBeGreaterThanOrEqual(session.startedAt);
        if (!withOutputs) ids.add(`${unit.key}#${session.id}`);
      }
    }
    const units = claudeCodeParser.listUnits(scan.containers);
    expect(new Set(units.map((unit) => unit.key)).size).toBe(units.length);
  });

  test("14 conversations that start with an assistant line open with that answer as turn 1 (before issue 11: dropped)", () => {
    const opening = transcripts.flatMap((container) => {
      const { turns } = claudeCodeParser.parse(unitForContainer(container));
      return turns[0] && turns[0].prompt === "" ? [container.path.slice(cc.length + 1)] : [];
    });
    expect(opening).toHaveLength(14);
    expect(opening).toContain("obra__episodic-memory/test/fixtures/large-conversation.jsonl");
    const large = parseFile(join(cc, "obra__episodic-memory/test/fixtures/large-conversation.jsonl"));
    expect(large.turns[0]?.response).toStartWith("I see the issue! The gitignore has `/node_modules/` (line 2)");
    expect(large.session.turnCount).toBe(23);
  });

  // Expected values below were read from the files with jq/python (file-order scan of user/assistant lines).
  test("compaction session (2.1.88): 73 prompts, turn 3 tools and text", () => {
    const { session, turns } = parseFile(files.compaction);
    expect(session.turnCount).toBe(73);
    expect(turns[0]?.prompt).toBe("/model");
    expect(turns[2]?.prompt).toBe("1PASSWORD implementation");
    expect(turns[2]?.response.startsWith("I see 1Password reference docs captured (CLI, SSH agent)")).toBe(true);
    expect(turns[2]?.toolCalls.map((call) => [call.name, call.isError])).toEqual([
      ["Read", true],
      ["Glob", false],
      ["Read", false],
      ["Glob", false],
      ["Read", false],
      ["Read", true],
      ["Read", false],
    ]);
    expect(turns[2]?.toolCalls[1]?.input).toBe(".smart-env/multi/*1Password*");
    expect(turns[2]?.files[0]).toBe(
      "C:\\Users\\loganf\\Documents\\IDAHO-VAULT\\response_49b88b5b-c06e-4a9e-b5a5-32e087d8a356\\1",
    );
    expect(session.projectName).toBe("IDAHO-VAULT");
    expect(turns.some((turn) => turn.prompt.startsWith("This session is being continued"))).toBe(false);
  });

  test("1.0.98 session with inline sidechains: each chain is a sub-agent session linked to its Task call (issue 26)", () => {
    const units = claudeCodeParser.listUnits(claudeCodeParser.scan([files.inlineSidechain]).containers);
    const chains = units.filter((unit) => unit.locator?.agentKind === "sidechain");
    expect(chains).toHaveLength(5);
    const agents = chains.map((unit) => claudeCodeParser.parse(unit));
    expect(agents.map((agent) => agent.session.title)).toEqual([
      "Build TODO components",
      "Setup Next.js project",
      "Create data models",
      "Implement state management",
      "Create main page integration",
    ]);
    for (const agent of agents) {
      expect(agent.session).toMatchObject({
        isSubagent: true,
        parentSessionId: "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
        projectPath: "/path/to/Demo",
      });
      expect(agent.session.id).toStartWith("agent-");
      expect(agent.turns[0]?.prompt.length).toBeGreaterThan(100);
      expect(agent.skipped.count).toBe(0);
    }
    // 405 of the file's 438 lines are sidechain lines: their answers and Write calls are now in these sessions.
    const writes = agents
      .flatMap((agent) => agent.turns.flatMap((turn) => turn.toolCalls))
      .filter((call) => call.name === "Write");
    expect(writes.map((call) => call.filePath)).toContain("/path/to/Demo/todo-app/src/components/TodoItem.tsx");
    expect(agents[0]?.turns[0]?.response).toContain("I'll create React components for a T");
    const { session, turns } = parseFile(files.inlineSidechain);
    const links = turns[0]?.toolCalls.filter((call) => call.name === "Task").map((call) => call.subagentSessionId);
    expect(new Set(links)).toEqual(new Set(agents.map((agent) => agent.session.id)));
    expect(turns.map((turn) => turn.prompt)).toEqual([
      "/orchestrator create TODO app by Next.js",
      "Thanks! Please update CLAUDE.md for current changes",
    ]);
    const tasks = turns[0]?.toolCalls.filter((call) => call.name === "Task").map((call) => call.input);
    expect(tasks).toEqual([
      "Setup Next.js project",
      "Create data models",
      "Build TODO components",
      "Implement state management",
      "Create main page integration",
    ]);
    expect(turns[0]?.toolCalls.filter((call) => call.name === "TodoWrite")).toHaveLength(3);
    expect(turns[1]?.toolCalls.map((call) => [call.name, call.filePath])).toEqual([
      ["Write", "/path/to/Demo/CLAUDE.md"],
    ]);
    expect(turns[1]?.response).toBe(
      "I'll create a CLAUDE.md file to document the current TODO app project structure and key information for future reference.\n\n" +
        "CLAUDE.md has been created with comprehensive documentation of the TODO app project, including structure, tech stack, features, development commands, and architecture details.",
    );
    expect(session.title).toBe("Empty Repo Setup: CLAUDE.md Foundation Created");
  });

  test("2.1.87 nested sub-agent: own session with the parent's id, task prompt as turn 1", () => {
    const parent = parseFile(files.nestedParent);
    expect(parent.session.turnCount).toBe(2);
    expect(parent.turns[0]?.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ["Task", "Explore aisuite module"],
    ]);
    // The Task call names the agent file its result points to (toolUseResult.agentId).
    expect(parent.turns[0]?.toolCalls[0]?.subagentSessionId).toStartWith("agent-a");
    const agent = parseFile(files.nestedAgent);
    expect(agent.session).toMatchObject({
      id: "agent-a933ed4308097ae4b",
      isSubagent: true,
      parentSessionId: "f8f80429-8398-46a9-a8aa-05543b114478",
      title: "Design aisuite improvement plan",
      projectName: "paas-controller",
    });
    expect(agent.turns).toHaveLength(1);
    expect(agent.turns[0]?.prompt.startsWith("Based on my deep exploration of the AISuite module")).toBe(true);
    expect(agent.turns[0]?.toolCalls.map((call) => call.name)).toEqual([
      "Bash",
      "Bash",
      "Bash",
      "Read",
      "Read",
      "Read",
    ]);
    expect(agent.turns[0]?.files).toEqual([
      "/Users/xuwentao/Projects/tele/paas-controller/pkg/backend/aisuite/controller/aisuite.go",
      "/Users/xuwentao/Projects/tele/paas-controller/pkg/backend/aisuite/aisuite.go",
      "/Users/xuwentao/Projects/tele/paas-controller/pkg/backend/aisuite/register.go",
    ]);
  });

  test("2.0.37 main session and flat agent file", () => {
    const main = parseFile(files.flatMain);
    expect(main.session.turnCount).toBe(5);
    expect(main.turns[1]?.toolCalls.map((call) => [call.name, call.filePath])).toEqual([
      ["Edit", "/Users/dain/workspace/coderabbit-review-helper/README.md"],
      ["Edit", "/Users/dain/workspace/coderabbit-review-helper/README.md"],
    ]);
    const agent = parseFile(files.flatAgent);
    expect(agent.session).toMatchObject({
      id: "agent-9fa17969",
      isSubagent: true,
      parentSessionId: "741790a4-4fe2-4644-9a51-fb4482074060",
    });
    expect(agent.session.gitBranch).toBe("fix/comment-attribution-and-pagination");
    expect(agent.turns[0]?.toolCalls.map((call) => call.name)).toEqual(["Read", "Grep", "Grep", "Read", "Read"]);
    expect(agent.turns[0]?.response.startsWith('I\'ll investigate why "Outside diff range comments"')).toBe(true);
  });

  test("real files split at line boundaries resume to the same result as a full parse, reading only new bytes", () => {
    const chosen = [
      files.compaction,
      files.inlineSidechain,
      files.nestedParent,
      files.nestedAgent,
      files.flatMain,
      join(idaho, "237326ca-5e6a-4313-b3dd-44df36143943.jsonl"),
      join(
        cc,
        "iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl",
      ),
      join(cc, "obra__episodic-memory/test/fixtures/long-conversation.jsonl"),
      join(
        cc,
        "Xu-Wentao__dotfile/.claude/projects/-Users-xuwentao-Projects-github-volcano/7ef4b236-d946-48a6-a856-e45b02af7be7.jsonl",
      ),
    ];
    let resumedCheaply = 0;
    let replays = 0;
    for (const file of chosen) {
      const cuts = lineBoundaries(readFileSync(file));
      const picks = [1, 2, 3, 4, 5, 6].map((k) => cuts[Math.floor((cuts.length * k) / 7)] as number);
      for (const cut of picks) {
        const replay = replayAt(file, cut);
        expect(replay.resumed.session).toEqual(replay.full.session);
        expect(replay.merged).toEqual(replay.full.turns);
        replays++;
        if (replay.resumed.bytesRead <= replay.appendedBytes + 4096) resumedCheaply++;
      }
    }
    // Falls back only on a rewind onto an earlier turn; most real appends continue the last turn.
    expect(resumedCheaply).toBeGreaterThan(replays * 0.8);
  });
});
