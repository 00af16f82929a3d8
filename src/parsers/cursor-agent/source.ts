/**
 * Cursor's CLI agent's identity and folders (source-info.ts; docs/formats/cursor-agent.md). `cursor-agent` (also
 * installed as `agent`) keeps one SQLite store per chat at `~/.cursor/chats/<md5 of the workspace path>/<chat id>/store.db`
 * on Linux and macOS, `%USERPROFILE%\.cursor\chats\…` on Windows: read by yashas-salankimatt/sidecar
 * docs/plans/cursor-cli-adapter.md @4b230572 and chenhg5/tape's Cursor CLI source. It is a separate store from the
 * Cursor editor's `state.vscdb` (the `cursor` source).
 */
import { join } from "node:path";
import type { SourceInfo } from "../source-info.ts";

/** `~/.cursor/chats` (not `~/.cursor`, whose `extensions/` is the editor's and large). */
export const cursorAgentSource: SourceInfo<"cursorAgentDir"> = {
  id: "cursor-agent",
  displayName: "Cursor CLI",
  flag: "cursor-agent-dir",
  argName: "cursorAgentDir",
  variable: "RECALL_CURSOR_AGENT_DIRS",
  locationVariables: [],
  help: "Cursor CLI (cursor-agent) chats folder holding <workspace hash>/<chat id>/store.db, or any copy of it (repeatable; default ~/.cursor/chats; env RECALL_CURSOR_AGENT_DIRS)",
  defaultRoots: (_env, home) => [join(home, ".cursor", "chats")],
};
