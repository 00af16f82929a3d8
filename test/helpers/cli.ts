/**
 * The one way tests run the CLI from the source (issue 39: two dozen test files each spawned it their own way, some
 * with whichever `bun` PATH found): the bun running the suite, in the repository, with the environment given. The
 * suite's own environment is already clean of the caller's recall settings (test/setup.ts), so a test passes
 * `{ ...process.env, HOME, RECALL_HOME, … }` or only what it needs.
 */
import { resolve } from "node:path";

/** The repository's root (where `src/cli.ts` is). */
export const repo = resolve(import.meta.dir, "../..");

/** The absolute path of `src/cli.ts`. */
export const cliPath = resolve(repo, "src/cli.ts");

/**
 * `recall` from the source as command words (the suite's bun, then `src/cli.ts`, both absolute, so they work from any
 * folder): for a program that spawns the CLI itself (the MCP SDK's stdio client) or a shell line run in a terminal.
 */
export const cliCommand: readonly string[] = [process.execPath, cliPath];

/** One finished run: its exit code and its output as text. */
export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * How to start one synchronous run.
 * `cwd`: the working folder (default the repository); `stdin`: text written to its input (default none);
 * `prefix`: command words run before bun, which must exec it (e.g. `["sh", "-c", 'umask 077; exec "$0" "$@"']`);
 * `bunArgs`: bun's own flags, put between bun and `src/cli.ts` (e.g. `["--preload", file]`).
 */
export interface RunCliOptions {
  cwd?: string;
  stdin?: string;
  prefix?: readonly string[];
  bunArgs?: readonly string[];
}

/**
 * Run `recall <args>` (`src/cli.ts`) and wait for it.
 * @param env the child's whole environment (default: the suite's)
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string | undefined> = process.env,
  options: RunCliOptions = {},
): CliRun {
  const command = [...(options.prefix ?? []), process.execPath, ...(options.bunArgs ?? []), cliPath, ...args];
  const result = Bun.spawnSync(command, {
    cwd: options.cwd ?? repo,
    env,
    stdin: options.stdin === undefined ? "ignore" : Buffer.from(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { exitCode: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/**
 * Start `recall <args>` (`src/cli.ts`) without waiting: for long-running or streaming children (watch, a search
 * raced against another, a run killed half-way, a child whose stdin the test writes), and for any run while this
 * process must keep answering (a test HTTP server), which a synchronous run would block.
 * @param env the child's whole environment (default: the suite's)
 * @param options Bun.spawn's options except `env` (`cwd` defaults to the repository; stdin/stdout/stderr default to
 *   Bun's "ignore"/"pipe"/"inherit")
 * @returns the Bun subprocess, typed by the stdio options given
 */
export function spawnCli<
  const In extends Bun.SpawnOptions.Writable = "ignore",
  const Out extends Bun.SpawnOptions.Readable = "pipe",
  const Err extends Bun.SpawnOptions.Readable = "inherit",
>(
  args: readonly string[],
  env: Record<string, string | undefined> = process.env,
  options: Omit<Bun.SpawnOptions.SpawnOptions<In, Out, Err>, "env"> = {},
): Bun.Subprocess<In, Out, Err> {
  return Bun.spawn([...cliCommand, ...args], { cwd: repo, ...options, env });
}
