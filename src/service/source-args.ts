/**
 * The source options every command that reads history takes (`--claude-dir`, `--opencode-dir`, `--codex-dir`,
 * `--gemini-dir`, `--cursor-dir`, `--aider-dir`), as cmd-ts arguments and as the folders they name per source. Kept
 * apart from context.ts so that wiring the commands (app.ts, `--help`) loads no parser or index code (issue 14).
 */
import { array, multioption, string } from "cmd-ts";
import type { SourceId } from "../parsers/types.ts";

/** cmd-ts arguments shared by every command that reads sources. */
export const sourceArgs = {
  claudeDir: multioption({
    long: "claude-dir",
    type: array(string),
    description:
      "Claude Code history: a .claude folder, its projects folder or any copy of them; the history.jsonl next to projects/ adds the typed prompts of sessions without transcript (repeatable; default $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects; env RECALL_CLAUDE_DIRS)",
  }),
  opencodeDir: multioption({
    long: "opencode-dir",
    type: array(string),
    description:
      "OpenCode data folder holding opencode.db and/or storage/ (repeatable; default $XDG_DATA_HOME/opencode or ~/.local/share/opencode; env RECALL_OPENCODE_DIRS)",
  }),
  codexDir: multioption({
    long: "codex-dir",
    type: array(string),
    description:
      "Codex CLI data folder holding sessions/ and archived_sessions/ (and history.jsonl: typed prompts), or any copy of them (repeatable; default $CODEX_HOME or ~/.codex; env RECALL_CODEX_DIRS)",
  }),
  geminiDir: multioption({
    long: "gemini-dir",
    type: array(string),
    description:
      "Gemini CLI folder holding tmp/<project>/chats/ (and tmp/<project>/logs.json: typed prompts), or any copy of it (repeatable; default $GEMINI_CLI_HOME/.gemini or ~/.gemini; env RECALL_GEMINI_DIRS)",
  }),
  cursorDir: multioption({
    long: "cursor-dir",
    type: array(string),
    description:
      "Cursor User folder holding workspaceStorage/ and globalStorage/, or any folder of state.vscdb files (repeatable; default ~/.config/Cursor/User, on macOS ~/Library/Application Support/Cursor/User; env RECALL_CURSOR_DIRS)",
  }),
  aiderDir: multioption({
    long: "aider-dir",
    type: array(string),
    description:
      "Folders searched for Aider's .aider.chat.history.md, besides the project folders of the sessions recall already knows (repeatable; env RECALL_AIDER_DIRS)",
  }),
};

/** The source options as cmd-ts parsed them. */
export interface SourceArgs {
  claudeDir: string[];
  opencodeDir: string[];
  codexDir: string[];
  geminiDir: string[];
  cursorDir: string[];
  aiderDir: string[];
}

/** The folders named on the command line, per source (for `resolveSourceRoots`). */
export function sourceFlags(args: SourceArgs): Record<SourceId, string[]> {
  return {
    "claude-code": args.claudeDir,
    opencode: args.opencodeDir,
    codex: args.codexDir,
    "gemini-cli": args.geminiDir,
    cursor: args.cursorDir,
    aider: args.aiderDir,
  };
}

/** The flag that names each source's folders, for messages. */
export const sourceFlagNames: Record<SourceId, string> = {
  "claude-code": "--claude-dir",
  opencode: "--opencode-dir",
  codex: "--codex-dir",
  "gemini-cli": "--gemini-dir",
  cursor: "--cursor-dir",
  aider: "--aider-dir",
};
