/**
 * Where each source's data lives, and how the user moves it. Precedence, highest first: the command-line folders
 * (`--claude-dir`, `--codex-dir`, …, repeatable), then the environment lists (`RECALL_CLAUDE_DIRS`, …, `:`-separated,
 * empty entries dropped so the cwd never sneaks in), then the agent's own default. Each agent says its option, list
 * and defaults in its source.ts (sources.ts lists them); nothing here names an agent.
 */
import { homedir } from "node:os";
import { expandPath, splitList, type Environment } from "./shared/folders.ts";
import { sourceInfo, sources } from "./sources.ts";
import { sourceIds, type SourceId } from "./types.ts";

export { expandPath, type Environment } from "./shared/folders.ts";

/** Roots per source, absolute, in precedence order; `explicit` says whether the user named them. */
export interface SourceRoots {
  roots: Record<SourceId, string[]>;
  explicit: Record<SourceId, boolean>;
}

/** The environment list variable of each source (`:`-separated folders): its source.ts `variable`. */
export const sourceDirVariables = Object.fromEntries(sources.map((source) => [source.id, source.variable])) as Record<
  SourceId,
  string
>;

/**
 * Every environment variable {@link resolveSourceRoots} reads besides HOME: recall's lists and each agent's own
 * (`CLAUDE_CONFIG_DIR`, `XDG_DATA_HOME`, `CODEX_HOME`, …, from each source.ts); a run with all of them unset and HOME
 * moved reads no real history (tests rely on it).
 */
export const sourceLocationVariables: readonly string[] = [
  ...new Set(sources.flatMap((source) => [source.variable, ...source.locationVariables])),
];

/**
 * Resolve the roots of every source.
 * @param flags dirs given on the command line, per source (may be empty)
 * @param env environment (defaults to process.env)
 * @param home home folder (defaults to os.homedir(); `HOME` wins when set so tests can move it)
 * @returns absolute roots; no existence check (the parsers report missing roots)
 */
export function resolveSourceRoots(
  flags: Partial<Record<SourceId, string[]>>,
  env: Environment = process.env,
  home: string = env.HOME || homedir(),
): SourceRoots {
  const roots = {} as Record<SourceId, string[]>;
  const explicit = {} as Record<SourceId, boolean>;
  for (const source of sourceIds) {
    const fromFlags = flags[source] ?? [];
    const fromEnv = splitList(env[sourceDirVariables[source]], ":");
    const chosen =
      fromFlags.length > 0 ? fromFlags : fromEnv.length > 0 ? fromEnv : sourceInfo(source).defaultRoots(env, home);
    roots[source] = chosen.map((dir) => expandPath(dir, home));
    explicit[source] = fromFlags.length > 0 || fromEnv.length > 0;
  }
  return { roots, explicit };
}
