/**
 * A small Claude Code history for the picker's tests, indexed by the real `recall index`: sessions in project folders
 * that exist, one in a folder that was deleted, one whose source file was deleted after indexing (recall's archive
 * holds it), one with a Chinese title, and fillers so the list scrolls. Plus a stand-in `claude` on PATH that records
 * its arguments, working folder and terminal mode instead of starting Claude Code.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeClaudeSession, type TestSession } from "../helpers/claude-writer.ts";
import { cliCommand, runCli } from "../helpers/cli.ts";
import { plantedSecrets } from "../helpers/secrets.ts";

/** The sessions' ids, by role. */
export const ids = {
  docker: "0a1b2c3d-1111-4111-8111-000000000001",
  chinese: "0a1b2c3d-2222-4222-8222-000000000002",
  goneFolder: "0a1b2c3d-3333-4333-8333-000000000003",
  archived: "0a1b2c3d-4444-4444-8444-000000000004",
  hostile: "0a1b2c3d-5555-4555-8555-000000000005",
} as const;

/** The planted GitHub token of the hostile session (never to be shown), from the redaction tests' set. */
export const plantedToken = plantedSecrets.find((planted) => planted.kind === "github-classic")!;

/** A prepared history: its folders and the environment that points recall (and the stand-in claude) at them. */
export interface PickHistory {
  root: string;
  /** Project folder of the docker session (exists). */
  webapp: string;
  /** Where the stand-in claude writes `argv`, `cwd` and `stty`. */
  recordDir: string;
  /** Environment for the terminal's shell: PATH (stand-in claude, bun), RECALL_HOME, the history, no colours. */
  env: Record<string, string>;
  /** The command line that starts recall from source. */
  recall: string;
  /** What the stand-in claude recorded: its arguments (one per line), working folder, `stty -a`. */
  recorded(): { argv: string[]; cwd: string; stty: string } | undefined;
}

const day = 24 * 60 * 60 * 1000;

/** Write and index the history under `root` (an empty temporary folder). */
export function preparePickHistory(root: string): PickHistory {
  const webapp = join(root, "projects", "webapp");
  const scheduler = join(root, "projects", "scheduler");
  const gone = join(root, "projects", "gone-api");
  const claudeDir = join(root, "claude");
  mkdirSync(webapp, { recursive: true });
  mkdirSync(scheduler, { recursive: true });
  const now = Date.now();
  const sessions: TestSession[] = [
    {
      sessionId: ids.docker,
      cwd: webapp,
      startMs: now - 3.5 * day,
      title: "Fix the docker bridge network",
      turns: [
        {
          prompt: "the containers cannot reach each other over the docker bridge network",
          response: "The bridge network has no DNS for default networks; create a user-defined bridge instead.",
          tools: [{ name: "Bash", input: { command: "docker network create appnet" }, output: "f3c1 appnet" }],
        },
        { prompt: "now the compose file", response: "Added networks: appnet to both services in compose.yaml." },
      ],
    },
    {
      sessionId: ids.chinese,
      cwd: scheduler,
      startMs: now - 2.5 * day,
      title: "修复调度器的内存泄漏问题并补充单元测试",
      turns: [{ prompt: "调度器内存泄漏", response: "泄漏来自未清理的定时器 timer_registry；已在 shutdown 中清理。" }],
    },
    {
      sessionId: ids.goneFolder,
      cwd: gone,
      startMs: now - 5.5 * day,
      title: "Rate limiter for the gone api",
      turns: [{ prompt: "add a token bucket rate limiter", response: "Added a token bucket in ratelimit.go." }],
    },
    {
      sessionId: ids.archived,
      cwd: webapp,
      startMs: now - 40 * day,
      title: "Migrate the archived billing schema",
      turns: [{ prompt: "migrate the billing schema to v2", response: "Wrote migration 0042_billing_v2.sql." }],
    },
    {
      // A transcript that tries to drive the reader's terminal (retitle, clear the screen) and carries a token.
      sessionId: ids.hostile,
      cwd: webapp,
      startMs: now - 8.5 * day,
      title: "Rotate the \u001b]0;pwned\u0007 deploy \u001b[2J token",
      turns: [
        {
          prompt: `rotate the deploy token, the old one was: ${plantedToken.carrier}`,
          response: "Rotated the deploy token \u001b[31min red\u001b[0m and revoked the old one.",
        },
      ],
    },
    ...Array.from({ length: 12 }, (_, index) => ({
      sessionId: `0a1b2c3d-9999-4999-8999-${String(index).padStart(12, "0")}`,
      cwd: webapp,
      startMs: now - (10 + index) * day,
      title: `Filler session number ${index} about caching`,
      turns: [{ prompt: `caching question ${index}`, response: `caching answer ${index}` }],
    })),
  ];
  const fileOf = (session: TestSession) =>
    join(claudeDir, "projects", session.cwd.replace(/[/.]/g, "-"), `${session.sessionId}.jsonl`);
  for (const session of sessions) writeClaudeSession(fileOf(session), session);

  const bin = join(root, "bin");
  const recordDir = join(root, "record");
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, "claude"),
    // Each file is written aside and renamed into place, so a test polling for them never reads one half written.
    `#!/bin/sh\nmkdir -p '${recordDir}'\nprintf '%s\\n' "$@" > '${recordDir}/argv.tmp' && mv '${recordDir}/argv.tmp' '${recordDir}/argv'\nstty -a > '${recordDir}/stty.tmp' 2>&1; mv '${recordDir}/stty.tmp' '${recordDir}/stty'\npwd > '${recordDir}/cwd.tmp' && mv '${recordDir}/cwd.tmp' '${recordDir}/cwd'\n`,
  );
  chmodSync(join(bin, "claude"), 0o755);
  const recallHome = join(root, "recall-home");
  mkdirSync(recallHome, { recursive: true, mode: 0o700 });
  const env: Record<string, string> = {
    PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: root,
    RECALL_HOME: recallHome,
    RECALL_CLAUDE_DIRS: claudeDir,
    RECALL_OFFLINE: "1",
    RECALL_EMBED_HELPER: "off",
    NO_COLOR: "1",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    PS1: "$ ",
  };
  const index = () => {
    const run = runCli(["index"], env);
    if (run.exitCode !== 0) throw new Error(`recall index failed: ${run.stderr}`);
  };
  index();
  // The archived session: its file deleted after recall indexed it; the next run marks it deleted and keeps it.
  rmSync(fileOf(sessions[3]!));
  index();
  return {
    root,
    webapp,
    recordDir,
    env,
    recall: cliCommand.join(" "),
    recorded() {
      try {
        return {
          argv: readFileSync(join(recordDir, "argv"), "utf8").trimEnd().split("\n"),
          cwd: readFileSync(join(recordDir, "cwd"), "utf8").trim(),
          stty: readFileSync(join(recordDir, "stty"), "utf8"),
        };
      } catch {
        return undefined;
      }
    },
  };
}
