/**
 * Aider parser (docs/formats.md §6; checked on histories of aider 0.82.2 and 0.86.1 in ../shared/corpus/aider,
 * and against aider's own writer, aider/io.py). Data: `.aider.chat.history.md` in the git root of each
 * project aider ran in (aider's `--chat-history-file` moves it; recall finds the default name below its roots,
 * or any file given as a root). One container = one history file; one unit = one chat session, the block
 * from one `# aider chat started at …` header to the next, or the text before the first header (a history cut
 * mid-session). Aider has no session ids: ids are
 * `aider-<12 hex of sha256(path + "\0" + header line)>` (sessions.ts). Times are local times without a zone,
 * read as this machine's: the header's, and per prompt the matching entry of `.aider.input.history` (input-history.ts).
 * Checked on the corpus and on five real histories of 0.7–1.8 MB (test/fixtures/aider/README.md): every prompt and
 * reply line lands in a turn, so a parse has nothing to report as skipped.
 * Aider cannot resume a session; the closest is `aider --restore-chat-history`, run in the project folder,
 * which reloads that folder's history file (aider.chat/docs/config/options.html). Code in ./aider/.
 */
import type { Parser } from "./types.ts";
import { historyFileName, scanAiderRoots } from "./aider/scan.ts";

export {
  scanAiderRoots,
  historyFileName as aiderHistoryFileName,
  skippedDirs as aiderSkippedDirs,
  maxDepth as aiderMaxDepth,
} from "./aider/scan.ts";
export type { AiderResumeState } from "./aider/resume.ts";

// the listing and parse code loads at first use: a search's freshness check and resume commands never need it (issue 42)
const unitsSide = () => require("./aider/sessions.ts") as typeof import("./aider/sessions.ts");
const parseSide = () => require("./aider/parse.ts") as typeof import("./aider/parse.ts");

/**
 * The Aider `Parser`: `scan` finds history files by stats; `listUnits` reads each changed file and lists
 * one unit per session header (and one for the text before the first; a file of white space alone is rejected);
 * `parse` reads one session's block, resuming the file's last session from a byte offset when it only grew
 * (see ./aider/parse.ts).
 */
export const aiderParser: Parser = {
  id: "aider",
  version: 2,
  scan: (roots) => scanAiderRoots(roots),
  listUnits: (containers, hooks) => unitsSide().listAiderUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseAiderUnit(unit, options),
  projectHistoryFile: historyFileName,
  // Each project folder alone (project folders are busy trees); one that is gone stays gone.
  watch: { kind: "tree", depth: 0, isSessionFile: (name) => name === historyFileName, missingRootPending: false },
  // aider.chat docs: `aider --restore-chat-history` reloads the folder's .aider.chat.history.md.
  resumeInvocation: (_sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["aider", "--restore-chat-history"],
  }),
};
