/**
 * Where each source's data lives, and how the user moves it. Precedence, highest first:
 * the command-line dirs (`--claude-dir`, `--opencode-dir`, `--codex-dir`, `--gemini-dir`, repeatable), then the env
 * lists (`RECALL_CLAUDE_DIRS`, `RECALL_OPENCODE_DIRS`, `RECALL_CODEX_DIRS`, `RECALL_GEMINI_DIRS`, `:`-separated, empty
 * entries dropped so the cwd never sneaks in), then the tool's own default (docs/formats.md §1.1, §2, §3.1, §4.1):
 * Claude Code `$CLAUDE_CONFIG_DIR/projects` (comma-separated dirs allowed, as Claude Code does) else
 * `~/.claude/projects`; OpenCode `$XDG_DATA_HOME/opencode` else `~/.local/share/opencode`; Codex CLI `$CODEX_HOME`
 * else `~/.codex`; Gemini CLI `$GEMINI_CLI_HOME/.gemini` else `~/.gemini`.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { sourceIds, type SourceId } from "./types.ts";

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
  return value
    .split(separator)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/** Expand a leading `~` and make the path absolute against `cwd`. */
export function expandPath(path: string, home: string, cwd: string = process.cwd()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** The environment list variable of each source (`:`-separated folders). */
export const sourceDirVariables: Record<SourceId, string> = {
  "claude-code": "RECALL_CLAUDE_DIRS",
  opencode: "RECALL_OPENCODE_DIRS",
  codex: "RECALL_CODEX_DIRS",
  "gemini-cli": "RECALL_GEMINI_DIRS",
  cursor: "RECALL_CURSOR_DIRS",
  aider: "RECALL_AIDER_DIRS",
};

/**
 * Cursor's `User` folder (holding `workspaceStorage/` and `globalStorage/`, formats.md §5), where VS Code-style apps
 * keep it: `$XDG_CONFIG_HOME/Cursor/User` (Linux), `~/Library/Application Support/Cursor/User` (macOS),
 * `%APPDATA%/Cursor/User` (Windows). All that apply are returned; missing ones are reported by the scan.
 */
function cursorUserFolders(env: Environment, home: string): string[] {
  if (process.platform === "darwin") return [join(home, "Library", "Application Support", "Cursor", "User")];
  if (process.platform === "win32" && env.APPDATA) return [join(env.APPDATA, "Cursor", "User")];
  return [join(env.XDG_CONFIG_HOME ? expandPath(env.XDG_CONFIG_HOME, home) : join(home, ".config"), "Cursor", "User")];
}

/**
 * Every environment variable {@link resolveSourceRoots} reads besides HOME: recall's lists and each tool's own
 * (`CLAUDE_CONFIG_DIR`, `XDG_DATA_HOME`, `CODEX_HOME`, `GEMINI_CLI_HOME`, `XDG_CONFIG_HOME`, `APPDATA`); a run with all
 * of them unset and HOME moved reads no real history (tests rely on it).
 */
export const sourceLocationVariables: readonly string[] = [
  ...Object.values(sourceDirVariables),
  "CLAUDE_CONFIG_DIR",
  "XDG_DATA_HOME",
  "CODEX_HOME",
  "GEMINI_CLI_HOME",
  "XDG_CONFIG_HOME",
  "APPDATA",
];

/** Each tool's own default folders when neither a flag nor the env list names any (see the file comment). */
function defaultRoots(source: SourceId, env: Environment, home: string): string[] {
  switch (source) {
    case "claude-code": {
      const dirs = splitList(env.CLAUDE_CONFIG_DIR, ",").map((dir) => join(expandPath(dir, home), "projects"));
      return dirs.length > 0 ? dirs : [join(home, ".claude", "projects")];
    }
    case "opencode":
      return [
        join(env.XDG_DATA_HOME ? expandPath(env.XDG_DATA_HOME, home) : join(home, ".local", "share"), "opencode"),
      ];
    case "codex":
      return [env.CODEX_HOME ? expandPath(env.CODEX_HOME, home) : join(home, ".codex")];
    case "gemini-cli":
      return [join(env.GEMINI_CLI_HOME ? expandPath(env.GEMINI_CLI_HOME, home) : home, ".gemini")];
    case "cursor":
      return cursorUserFolders(env, home);
    case "aider":
      return []; // no home folder: the index adds the project folders other sources know (indexer.ts)
    default:
      return source satisfies never;
  }
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
  const roots = {} as Record<SourceId, string[]>;
  const explicit = {} as Record<SourceId, boolean>;
  for (const source of sourceIds) {
    const fromFlags = flags[source] ?? [];
    const fromEnv = splitList(env[sourceDirVariables[source]], ":");
    const chosen = fromFlags.length > 0 ? fromFlags : fromEnv.length > 0 ? fromEnv : defaultRoots(source, env, home);
    roots[source] = chosen.map((dir) => expandPath(dir, home));
    explicit[source] = fromFlags.length > 0 || fromEnv.length > 0;
  }
  return { roots, explicit };
}
