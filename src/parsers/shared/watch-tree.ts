/**
 * Watch settings shared by the agents whose data folder is watched as one tree (parsers/types.ts `WatchLayout`).
 */

/** Folder levels watched below a Codex or Gemini root: `sessions/YYYY/MM/DD/` and `tmp/<project>/chats/<sub-agent>/` fit. */
export const agentTreeDepth = 6;

/**
 * Whether a file name is one a JSON(L) agent reads: session files, titles (`session_index.jsonl`) and `.project_root`;
 * logs and databases are not read.
 */
export const isJsonSessionFile = (name: string): boolean =>
  name.endsWith(".jsonl") || name.endsWith(".json") || name === ".project_root";
