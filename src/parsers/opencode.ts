/**
 * The OpenCode parser (sst/opencode, now anomalyco/opencode).
 * Data: `$XDG_DATA_HOME/opencode` else `~/.local/share/opencode`; `--opencode-dir` (repeatable) or
 * `RECALL_OPENCODE_DIRS` override (paths.ts). Formats: docs/formats.md §2 — SQLite `opencode*.db`
 * (§2.1), JSON `storage/` (§2.2), legacy `project/<id>/storage` (§2.3); live-db access per
 * runtime-notes §5. Versions checked: 0.5.28, 1.1.44, 1.2.25, 1.17.3 (../shared/corpus/opencode).
 * Pieces: opencode/scan.ts (containers), sqlite.ts, json-storage.ts, legacy.ts (reading),
 * messages.ts (turn rules). Sessions present in a db and in JSON storage are listed once (db wins).
 * A container that exists but cannot be read now (locked, empty or foreign database, unreadable folder)
 * is reported through `onUnavailable` and yields no units: "unavailable", never "empty" (issue 9).
 */
import type { Parser } from "./types.ts";
import { scanOpencodeRoots } from "./opencode/scan.ts";

export { closeOpencodeDatabases, openOpencodeDatabase, type DatabaseHandle } from "./opencode/sqlite.ts";
export { containerKind, scanOpencodeRoots, fingerprintJsonStorage, fingerprintDatabase } from "./opencode/scan.ts";

// the listing and parse code loads at first use: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./opencode/parse.ts") as typeof import("./opencode/parse.ts");

/** Options of {@link createOpencodeParser}. */
export interface OpencodeParserOptions {
  /** How long a database read waits for a writer's lock before the db is reported unavailable, ms. Default 2000. */
  busyTimeoutMs?: number;
  /** Always read databases through a temp copy (tests of the read-only-folder fallback). Default false. */
  forceCopy?: boolean;
}

/**
 * Build an OpenCode parser.
 * scan: stats only (scan.ts). listUnits: one unit per session, key `<container>#<ses_id>`, a change
 * key that moves with any message or part added or updated (db: counts and newest `time_updated` of
 * messages and parts; JSON/legacy: `fileSessionChangeKey`); unavailable containers are reported
 * through `hooks.onUnavailable` (or `onWarning` when the caller has no such hook). parse: full parse
 * only (no resume).
 */
export function createOpencodeParser(options: OpencodeParserOptions = {}): Parser {
  return {
    id: "opencode",
    // 2: turns carry their assistant messages' models, tokens and costs (issue 38 item 14); 3: the session carries
    // its abstract (compaction summaries, message summary titles and bodies; issue 41)
    version: 3,
    scan: scanOpencodeRoots,
    watch: { kind: "opencode-data" },
    // OpenCode CLI: `opencode --session <id>` continues a session.
    resumeInvocation: (sessionId, projectPath) => ({
      cwd: projectPath || undefined,
      argv: ["opencode", "--session", sessionId],
    }),
    listUnits: (containers, hooks) => parseSide().listOpencodeUnits(containers, hooks, options),
    parse: (unit, parseOptions = {}) => parseSide().parseOpencodeUnit(unit, parseOptions, options),
  };
}

/** The OpenCode parser with default options (busy timeout 2000 ms, in-place reads). */
export const opencodeParser: Parser = createOpencodeParser();
