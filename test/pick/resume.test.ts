import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PickRow } from "../../src/pick/picker-search.ts";
import { planResume, systemLookups } from "../../src/pick/resume.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const makeDir = tempDirs("recall-resume-");

/** A folder with an existing project folder and a bin folder holding the given stand-in programs. */
function machine(programs: string[]) {
  const root = makeDir();
  const project = join(root, "my app");
  const bin = join(root, "bin");
  mkdirSync(project);
  mkdirSync(bin);
  for (const program of programs) {
    writeFileSync(join(bin, program), "#!/bin/sh\n");
    chmodSync(join(bin, program), 0o755);
  }
  return { root, project, bin, lookups: systemLookups({ PATH: bin }) };
}

const row = (fields: Partial<PickRow>): PickRow => ({
  source: "claude-code",
  sessionId: "2c5941bd-0000-4000-8000-000000000001",
  projectPath: "/nowhere",
  promptOnly: false,
  sourceStatus: "present",
  isSubagent: false,
  parentSessionId: null,
  project: "app",
  title: "t",
  abstract: "",
  when: 0,
  confident: true,
  bestTurn: 1,
  turns: 1,
  ...fields,
});

describe("planResume", () => {
  test("runs the tool's own resume command in the project folder, found on PATH", () => {
    const { project, bin, lookups } = machine(["claude", "codex", "gemini", "opencode", "aider"]);
    const plans = [
      planResume(row({ projectPath: project }), lookups),
      planResume(row({ source: "codex", sessionId: "0199a", projectPath: project }), lookups),
      planResume(row({ source: "gemini-cli", sessionId: "g1", projectPath: project }), lookups),
      planResume(row({ source: "opencode", sessionId: "ses_1", projectPath: project }), lookups),
      planResume(row({ source: "aider", sessionId: "a", projectPath: project }), lookups),
    ];
    expect(plans.map((plan) => plan.kind)).toEqual(["run", "run", "run", "run", "run"]);
    const runs = plans.map((plan) => (plan.kind === "run" ? plan : undefined)!);
    expect(runs[0]!.invocation).toEqual({
      cwd: project,
      argv: ["claude", "--resume", "2c5941bd-0000-4000-8000-000000000001"],
    });
    expect(runs[0]!.program).toBe(join(bin, "claude"));
    expect(runs[0]!.command).toBe(`cd '${project}' && claude --resume 2c5941bd-0000-4000-8000-000000000001`);
    expect(runs[1]!.invocation.argv).toEqual(["codex", "resume", "0199a"]);
    expect(runs[2]!.invocation.argv).toEqual(["gemini", "--resume", "g1"]);
    expect(runs[3]!.invocation.argv).toEqual(["opencode", "--session", "ses_1"]);
    expect(runs[4]!.invocation.argv).toEqual(["aider", "--restore-chat-history"]);
  });

  test("a Claude Code sub-agent resumes its parent session", () => {
    const { project, lookups } = machine(["claude"]);
    const plan = planResume(row({ projectPath: project, isSubagent: true, parentSessionId: "parent-1" }), lookups);
    expect(plan.kind === "run" && plan.invocation.argv).toEqual(["claude", "--resume", "parent-1"]);
  });

  test("a gone folder, a tool not on PATH, an archived-only or prompt-only session: said, with a command to copy", () => {
    const { root, project, lookups } = machine(["claude"]);
    const gone = join(root, "deleted project");
    expect(planResume(row({ projectPath: gone }), lookups)).toEqual({
      kind: "refuse",
      reason: `the project folder ${gone} no longer exists`,
      command: `cd '${gone}' && claude --resume 2c5941bd-0000-4000-8000-000000000001`,
    });
    expect(planResume(row({ source: "codex", sessionId: "0199a", projectPath: project }), lookups)).toEqual({
      kind: "refuse",
      reason: "codex is not on PATH",
      command: `cd '${project}' && codex resume 0199a`,
    });
    const archived = planResume(row({ projectPath: project, sourceStatus: "deleted" }), lookups);
    expect(archived.kind).toBe("refuse");
    expect(archived.command).toBe("recall show 2c5941bd-0000-4000-8000-000000000001");
    expect(archived.kind === "refuse" && archived.reason).toContain("was deleted");
    const promptOnly = planResume(row({ projectPath: project, promptOnly: true }), lookups);
    expect(promptOnly.kind === "refuse" && promptOnly.reason).toContain("no transcript to resume");
  });

  test("a crafted session id or folder name runs nothing: argv is passed as is, the printed line is quoted", () => {
    const { root, lookups } = machine(["claude"]);
    const odd = join(root, "-x $(touch pwned)");
    mkdirSync(odd);
    const plan = planResume(row({ sessionId: "$(touch pwned)", projectPath: odd }), lookups);
    expect(plan.kind === "run" && plan.invocation.argv).toEqual(["claude", "--resume", "$(touch pwned)"]);
    expect(plan.command).toBe(`cd '${odd}' && claude --resume '$(touch pwned)'`);
  });

  test("Cursor opens the session's workspace (no folder to run in)", () => {
    const { project, lookups } = machine(["cursor"]);
    const plan = planResume(row({ source: "cursor", sessionId: "c1", projectPath: project }), lookups);
    expect(plan.kind === "run" && plan.invocation).toEqual({ cwd: undefined, argv: ["cursor", project] });
  });
});
