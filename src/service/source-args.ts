/**
 * The source options every command that reads history takes (`--claude-dir`, `--opencode-dir`, …, one per agent in
 * parsers/sources.ts), as cmd-ts arguments and as the folders they name per source. Built from the agents' source.ts
 * (light: no parser code), so wiring the commands (app.ts, `--help`) loads no parser or index code (issue 14), and a new
 * agent's option comes with its registry line (issue 39).
 */
import { array, multioption, string } from "cmd-ts";
import { sources, type SourceArgName } from "../parsers/sources.ts";
import type { SourceId } from "../parsers/types.ts";

/** One agent's repeatable folder option. */
const folderOption = (long: string, description: string) => multioption({ long, type: array(string), description });

/** cmd-ts arguments shared by every command that reads sources: `claudeDir` for `--claude-dir`, and so on. */
export const sourceArgs = Object.fromEntries(
  sources.map((source) => [source.argName, folderOption(source.flag, source.help)]),
) as Record<SourceArgName, ReturnType<typeof folderOption>>;

/** The source options as cmd-ts parsed them: each agent's folders, [] when not given. */
export type SourceArgs = Record<SourceArgName, string[]>;

/** The folders named on the command line, per source. */
export function sourceFlags(args: SourceArgs): Record<SourceId, string[]> {
  return Object.fromEntries(sources.map((source) => [source.id, args[source.argName]])) as Record<SourceId, string[]>;
}

/** The option that names each source's folders, for messages: `--claude-dir`. */
export const sourceFlagNames = Object.fromEntries(sources.map((source) => [source.id, `--${source.flag}`])) as Record<
  SourceId,
  string
>;
