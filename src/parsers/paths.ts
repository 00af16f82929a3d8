/**
 * Where each source's data lives, and how the user moves it. Precedence, highest first:
 * the command-line dirs (`--claude-dir`, `--opencode-dir`, repeatable), then the env lists
 * (`RECALL_CLAUDE_DIRS`, `RECALL_OPENCODE_DIRS`, `:`-separated, empty entries dropped so the cwd
 * never sneaks in), then the tool's own default: Claude Code `$CLAUDE_CONFIG_DIR/projects`
 * (comma-separated dirs allowed, as Claude Code does) else `~/.claude/projects`; OpenCode
 * `$XDG_DATA_HOME/opencode` else `~/.local/share/opencode` (docs/formats.md §1.1, §2).
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { SourceId } from "./types.ts";

/** Environment variables read here (a plain record so tests pass their own). */
export type Environment = Record<string, string | undefined>;

/** Roots per source, absolute, in precedence order; `explicit` says whether the user named them. */
export interface SourceRoots {
  roots: Record<SourceId, string[]>;
  explicit: Record<SourceId, boolean>;
}

/** Split a `:`-separated (or `,` for CLAUDE_CONFIG_DIR) list, dropping empty entries. */
function splitList(value: string | undefined, separator: string): string[] {
  if (!value) return [];
  return value.split(separator).map((entry) => entry.trim()).filter((entry) => entry.length > 0);
}

/** Expand a leading `~` and make the path absolute against `cwd`. */
export function expandPath(path: string, home: string, cwd: string = process.cwd()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

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
  const claudeFlags = flags["claude-code"] ?? [];
  const opencodeFlags = flags.opencode ?? [];
  const claudeEnv = splitList(env.RECALL_CLAUDE_DIRS, ":");
  const opencodeEnv = splitList(env.RECALL_OPENCODE_DIRS, ":");

  const claudeDefault = splitList(env.CLAUDE_CONFIG_DIR, ",").map((dir) => join(expandPath(dir, home), "projects"));
  if (claudeDefault.length === 0) claudeDefault.push(join(home, ".claude", "projects"));
  const opencodeDefault = [join(env.XDG_DATA_HOME ? expandPath(env.XDG_DATA_HOME, home) : join(home, ".local", "share"), "opencode")];

  const pick = (fromFlags: string[], fromEnv: string[], fallback: string[]) =>
    (fromFlags.length > 0 ? fromFlags : fromEnv.length > 0 ? fromEnv : fallback).map((dir) => expandPath(dir, home));
  return {
    roots: {
      "claude-code": pick(claudeFlags, claudeEnv, claudeDefault),
      opencode: pick(opencodeFlags, opencodeEnv, opencodeDefault),
    },
    explicit: {
      "claude-code": claudeFlags.length > 0 || claudeEnv.length > 0,
      opencode: opencodeFlags.length > 0 || opencodeEnv.length > 0,
    },
  };
}
