/**
 * The one way tests run the CLI from the source (issue 39: two dozen test files each spawned it their own way, some
 * with whichever `bun` PATH found): the bun running the suite, in the repository, with the environment given. The
 * suite's own environment is already clean of the caller's recall settings (test/setup.ts), so a test passes
 * `{ ...process.env, HOME, RECALL_HOME, … }` or only what it needs.
 */
import { resolve } from "node:path";

/** The repository's root (where `src/cli.ts` is). */
export const repo = resolve(import.meta.dir, "../..");

/** One finished run: its exit code and its output as text. */
export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Run `recall <args>` (`src/cli.ts`) and wait for it.
 * @param env the child's whole environment (default: the suite's)
 * @param options.cwd the working folder (default the repository); options.stdin text written to its input
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string | undefined> = process.env,
  options: { cwd?: string; stdin?: string } = {},
): CliRun {
  const result = Bun.spawnSync([process.execPath, resolve(repo, "src/cli.ts"), ...args], {
    cwd: options.cwd ?? repo,
    env,
    stdin: options.stdin === undefined ? "ignore" : Buffer.from(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { exitCode: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}
