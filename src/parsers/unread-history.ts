/**
 * History recall knows of but does not read (issue 40: "never silent about history it cannot read"). A folder where an
 * agent keeps its sessions, in a format recall has no parser for (an agent without a source here, or a newer format of
 * one it reads), is found at the agent's default place and counted, so `recall index --json`, `recall status` and
 * `recall doctor` name it with its file count instead of ignoring it. Stats only: no file is opened.
 * Each entry says where the agent writes and why recall does not read it, with the evidence.
 */
import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { expandPath, type Environment } from "./shared/folders.ts";

/** A folder of history recall does not read, with how many session files it holds. */
export interface UnreadHistory {
  /** The agent, as its users know it: `Amp`. */
  agent: string;
  /** The folder, absolute. */
  folder: string;
  /** Session files found in it (counted up to {@link countCap}). */
  files: number;
  /** Why recall does not read them, one sentence. */
  reason: string;
}

/** What recall knows of one unread kind of history. */
interface UnreadKind {
  agent: string;
  /** The folders where the agent writes it (default places; a missing one is skipped). */
  folders(env: Environment, home: string): string[];
  /** A session file's name. */
  fileName: RegExp;
  /** Folder levels below `folder` searched for session files (0: its own entries). */
  depth: number;
  reason: string;
}

/** Files are counted up to this many per folder (a count, not an inventory: the walk stays short). */
export const countCap = 10_000;

const xdgData = (env: Environment, home: string) =>
  env.XDG_DATA_HOME ? expandPath(env.XDG_DATA_HOME, home) : join(home, ".local", "share");

/**
 * The kinds recall knows of, each from the agent's own documentation or the readers other projects wrote:
 * * Amp (Sourcegraph) threads, `~/.local/share/amp/threads/T-*.json` (peers' connectors: cass, agent-sessions); closed
 *   source, and the readers disagree on what a tool result holds, so no reader here yet.
 * * Cline's SDK sessions, `~/.cline/data/sessions/<id>/<id>.messages.json` (cline/cline
 *   `sdk/packages/core/docs/messages-contract-v1.md`, since 2026-05); recall reads Cline's task folders only.
 * * Windsurf's Cascade conversations, `~/.codeium/windsurf/cascade/*.pb`: stored encrypted, no public reader.
 */
const unreadKinds: readonly UnreadKind[] = [
  {
    agent: "Amp",
    folders: (env, home) => [join(xdgData(env, home), "amp", "threads")],
    fileName: /^T-.+\.json$/,
    depth: 0,
    reason: "Amp's thread format is not public and no reader recall could check exists yet",
  },
  {
    agent: "Cline (SDK sessions)",
    folders: (env, home) => [
      join(env.CLINE_DATA_DIR ? expandPath(env.CLINE_DATA_DIR, home) : join(home, ".cline", "data"), "sessions"),
    ],
    fileName: /\.messages\.json$/,
    depth: 1,
    reason: "Cline's newer SDK session format is not read yet (its task folders are: --cline-dir)",
  },
  {
    agent: "Windsurf",
    folders: (_env, home) => [join(home, ".codeium", "windsurf", "cascade")],
    fileName: /\.pb$/,
    depth: 0,
    reason: "Windsurf stores Cascade conversations encrypted",
  },
];

/**
 * The unread history at the default places of this machine, one entry per folder that holds at least one session
 * file; [] when there is none. Never throws: a folder that cannot be listed counts what could be.
 * @param home the home folder (default `HOME`, else os.homedir(), as resolveSourceRoots)
 */
export function findUnreadHistory(env: Environment = process.env, home = env.HOME || homedir()): UnreadHistory[] {
  return unreadKinds.flatMap((kind) =>
    kind.folders(env, home).flatMap((folder) => {
      const files = countFiles(folder, kind.fileName, kind.depth);
      return files > 0 ? [{ agent: kind.agent, folder, files, reason: kind.reason }] : [];
    }),
  );
}

/** Files named like `name` in `folder` and `depth` levels below it, at most {@link countCap}; 0 for a missing folder. */
function countFiles(folder: string, name: RegExp, depth: number): number {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return 0;
  }
  let count = 0;
  for (const entry of entries) {
    if (count >= countCap) break;
    if (entry.isFile() && name.test(entry.name)) count++;
    else if (entry.isDirectory() && depth > 0) count += countFiles(join(folder, entry.name), name, depth - 1);
  }
  return Math.min(count, countCap);
}
