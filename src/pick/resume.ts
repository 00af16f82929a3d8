/**
 * Enter in the picker: resume the chosen session in the tool that wrote it. recall replaces itself with the tool's
 * own resume command (`process.execve`, after `chdir` to the session's project folder), so the tool owns the
 * terminal and recall leaves no process behind. When that cannot work (the folder is gone, the tool is not on PATH,
 * the session survives only in recall's archive or as typed prompts) it says why and offers the command to copy.
 */
import { existsSync, statSync } from "node:fs";
import { resumeInvocationOf, shellCommandOf, shellQuote, type ResumeInvocation } from "../search/reading/hydrate.ts";
import type { PickRow } from "./picker-search.ts";

/** What Enter on a session leads to. */
export type ResumePlan =
  | {
      kind: "run";
      invocation: ResumeInvocation;
      /** The program's absolute path (found on PATH). */
      program: string;
      /** The invocation as one shell line (what `--print` prints). */
      command: string;
    }
  | {
      kind: "refuse";
      /** Why it cannot run, one line: `the project folder /work/app no longer exists`. */
      reason: string;
      /** A shell line to copy instead (the resume command, or `recall show <id>` when there is nothing to resume). */
      command: string;
    };

/** How the plan looks things up; tests and callers pass the real ones (`Bun.which`, `existsSync`). */
export interface ResumeLookups {
  which(program: string): string | null;
  isFolder(path: string): boolean;
}

/** The real lookups: programs on `env.PATH` (this process's by default), folders on the file system. */
export function systemLookups(env: Record<string, string | undefined> = process.env): ResumeLookups {
  return {
    which: (program) => Bun.which(program, { PATH: env.PATH ?? "" }),
    isFolder: (path) => existsSync(path) && statSync(path).isDirectory(),
  };
}

/**
 * Decide how to resume `row`. Examples: a Claude Code session in an existing folder with `claude` on PATH → run
 * `claude --resume <id>` there; its folder deleted → refuse "the project folder … no longer exists"; source deleted
 * → refuse with `recall show <id>`.
 */
export function planResume(row: PickRow, lookups: ResumeLookups = systemLookups()): ResumePlan {
  const invocation = resumeInvocationOf(row);
  if (!invocation) {
    const readIt = `recall show ${shellQuote(row.sessionId)}`;
    return {
      kind: "refuse",
      reason: row.promptOnly
        ? `session ${row.sessionId} is known only from ${row.source}'s prompt history: there is no transcript to resume`
        : `the source of session ${row.sessionId} was deleted (recall keeps it: its tool cannot resume it)`,
      command: readIt,
    };
  }
  const command = shellCommandOf(invocation);
  if (invocation.cwd && !lookups.isFolder(invocation.cwd))
    return { kind: "refuse", reason: `the project folder ${invocation.cwd} no longer exists`, command };
  const program = invocation.argv[0]!;
  const found = lookups.which(program);
  if (!found) return { kind: "refuse", reason: `${program} is not on PATH`, command };
  return { kind: "run", invocation, program: found, command };
}

/**
 * Replace this process with the planned command, run in its folder (PWD set to match, for shells that trust it).
 * Returns only when `execve` fails.
 * @throws Error from `process.execve` (`code` ENOENT, EACCES, …) or `process.chdir`
 */
export function runResume(plan: Extract<ResumePlan, { kind: "run" }>, env: NodeJS.ProcessEnv = process.env): never {
  const cwd = plan.invocation.cwd;
  if (cwd) process.chdir(cwd);
  const execve = process.execve;
  if (!execve) throw new Error("this platform cannot replace the running process (process.execve)");
  execve(plan.program, plan.invocation.argv, { ...env, ...(cwd ? { PWD: cwd } : {}) });
  throw new Error(`could not run ${plan.program}`);
}
