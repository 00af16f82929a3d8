/**
 * What recall knows of an agent before reading any of its files (issue 39): its name, the option and the environment
 * list that name its folders, and where it keeps them by default. Each agent's folder holds its own (`<agent>/source.ts`,
 * light: no parser code, so wiring the commands and `--help` stay fast); sources.ts lists them.
 */
import type { Environment } from "./shared/folders.ts";
import type { SourceId } from "./types.ts";

/** One agent's identity and folders. */
export interface SourceInfo<ArgName extends string = string> {
  id: SourceId;
  /** The agent's name as its users know it: `Claude Code`, `Codex CLI`. */
  displayName: string;
  /** The repeatable command-line option naming its folders, without dashes: `claude-dir`. */
  flag: string;
  /** The option's key in the parsed arguments: `claudeDir`. */
  argName: ArgName;
  /** recall's environment list of its folders (`:`-separated): `RECALL_CLAUDE_DIRS`. */
  variable: string;
  /** The agent's own environment variables its default folders depend on: `CLAUDE_CONFIG_DIR`. */
  locationVariables: readonly string[];
  /** The option's help: what folder to give, and the default. */
  help: string;
  /**
   * Its folders when neither the option nor the list names any: where the agent writes on this platform (Linux, macOS,
   * Windows); [] when it has no home folder of its own (Aider).
   */
  defaultRoots(env: Environment, home: string): string[];
}
