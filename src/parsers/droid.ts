/**
 * Factory Droid parser (Factory's `droid` CLI; docs/formats/droid.md). Droid is closed source: the format is read as
 * its peers read it (entireio/cli `cmd/entire/cli/agent/factoryaidroid/`, wesm/agentsview, jazzyalex/agent-sessions,
 * Dicklesworthstone/franken_agent_detection `src/connectors/factory.rs`, all agreeing). Data: `~/.factory`; sessions
 * in `sessions/<cwd with / as ->/<id>.jsonl` (older ones directly in `sessions/`), each with `<id>.settings.json`.
 * One container = one unit = one session file (its fingerprint holds the side file's stats). Resume:
 * `droid --resume <sessionId>` in the session's folder (Factory-AI/factory `docs/reference/cli-reference.mdx` at
 * a80aa7c5: "Resume a session (defaults to last modified). Alias: -r"). Code in ./droid/ (source, units, settings,
 * tools, turns, parse).
 */
import { listHeaderUnits } from "./shared/header-units.ts";
import { sessionTreeScans } from "./shared/session-files.ts";
import type { Parser } from "./types.ts";
import { settingsPathOf } from "./droid/settings.ts";
import { droidHeaderSpec } from "./droid/units.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./droid/parse.ts") as typeof import("./droid/parse.ts");

const isSessionFile = (name: string): boolean => name.endsWith(".jsonl");

/** The Droid `Parser`: stats-only scan of `sessions/**\/*.jsonl`, one unit per file, whole-file parses. */
export const droidParser: Parser = {
  id: "droid",
  version: 2, // 2: compaction_state summaries are the session's abstract, no longer counted as skipped (issue 41)
  ...sessionTreeScans({
    source: "droid",
    sessionsFolder: "sessions",
    isSessionFile,
    maxDepth: 4,
    sideFileOf: settingsPathOf,
  }),
  scansContainerPaths: true,
  listUnits: (containers, hooks) => listHeaderUnits(droidHeaderSpec, containers, hooks),
  parse: (unit, options) => parseSide().parseDroidUnit(unit, options),
  // `<factory dir>/sessions/<project>/`: session files and their `.settings.json` start a cycle.
  watch: {
    kind: "tree",
    depth: 3,
    isSessionFile: (name) => isSessionFile(name) || name.endsWith(".settings.json"),
    missingRootPending: true,
  },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["droid", "--resume", sessionId],
  }),
};
