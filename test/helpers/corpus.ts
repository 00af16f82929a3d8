/**
 * Where the shared real corpus lives for tests (`../shared/corpus` next to the repo, read-only;
 * origin and licences in its SOURCES.md). Tests that need it use
 * `describe.skipIf(!hasCorpus)("… (needs ../shared/corpus)")`.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SourceRootMap } from "../../src/parsers/types.ts";

/** Absolute path of the shared corpus: `<repo>/../shared/corpus` (may not exist). */
export const corpusDir: string = resolve(import.meta.dir, "../../../shared/corpus");

/** True when the corpus folder exists and holds Claude Code data. */
export const hasCorpus: boolean = existsSync(join(corpusDir, "claude-code"));

/** Sub-folders of `dir` (absolute, sorted); [] when `dir` is missing. */
function listDirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isDirectory());
}

/**
 * The folders to pass as `--claude-dir` to index the whole Claude Code corpus: one per repository
 * copied into `corpus/claude-code/<owner>__<repo>` (the JSONL files sit at different depths inside,
 * e.g. `.claude/projects/…` or `test/test_data/real_projects/…`, so the parser walks each folder).
 * @returns absolute paths, sorted; [] when the corpus is missing
 */
export function claudeCorpusRoots(corpus: string = corpusDir): string[] {
  return listDirs(join(corpus, "claude-code"));
}

/**
 * The folders to pass as `--opencode-dir` to index the whole OpenCode corpus: every
 * `<owner>__<repo>/.local/share/opencode` data root (db and/or JSON `storage/`, docs/formats.md §2).
 * @returns absolute paths, sorted; [] when the corpus is missing
 */
export function opencodeCorpusRoots(corpus: string = corpusDir): string[] {
  return listDirs(join(corpus, "opencode"))
    .map((repo) => join(repo, ".local", "share", "opencode"))
    .filter((root) => existsSync(root));
}

/**
 * The folders to pass as `--codex-dir` to index the whole Codex CLI corpus: one per repository copied into
 * `corpus/codex/<owner>__<repo>` (the rollouts sit at different depths inside: `.codex/sessions/YYYY/MM/DD/`,
 * `.codex/archived_sessions/`, `crates/…/tests/samples/`, so the parser walks each folder).
 * @returns absolute paths, sorted; [] when the corpus (or its codex folder) is missing
 */
export function codexCorpusRoots(corpus: string = corpusDir): string[] {
  return listDirs(join(corpus, "codex"));
}

/**
 * The folders to pass as `--gemini-dir` to index the whole Gemini CLI corpus: one per repository copied into
 * `corpus/gemini-cli/<owner>__<repo>` (chat files under `.gemini/tmp/<hash or slug>/chats/`; the parser walks each
 * folder and reads only files inside a `chats/` folder, so lanegrid/agtrace's `tests/samples/gemini_session.json` is not read).
 * @returns absolute paths, sorted; [] when the corpus (or its gemini-cli folder) is missing
 */
export function geminiCorpusRoots(corpus: string = corpusDir): string[] {
  return listDirs(join(corpus, "gemini-cli"));
}

/**
 * The folders to pass as `--cursor-dir` to index the whole Cursor corpus: one per repository copied into
 * `corpus/cursor/<owner>__<repo>` (each holds a workspace `state.vscdb` at its top, which the scan accepts
 * like a `workspaceStorage/<hash>/` folder).
 * @returns absolute paths, sorted; [] when the corpus (or its cursor folder) is missing
 */
export function cursorCorpusRoots(corpus: string = corpusDir): string[] {
  return listDirs(join(corpus, "cursor"));
}

/**
 * The folders to pass as `--aider-dir` to index the whole Aider corpus: one project folder per repository copied
 * into `corpus/aider/<owner>__<repo>`, each with `.aider.chat.history.md` (and `.aider.input.history`) at its top.
 * @returns absolute paths, sorted; [] when the corpus (or its aider folder) is missing
 */
export function aiderCorpusRoots(corpus: string = corpusDir): string[] {
  return listDirs(join(corpus, "aider"));
}

/**
 * The roots of every source of the corpus, as `runIndex({ roots })` takes them: Claude Code, OpenCode, Codex CLI,
 * Gemini CLI, Cursor and Aider, each from the helper above (the corpus holds no Cline, Roo Code or Kilo Code task). A source whose corpus folder is missing gets [].
 * Every helper takes the corpus folder (default {@link corpusDir}), so a bench can point them at a writable copy.
 * @returns a new map with one entry per source id
 */
export function allCorpusRoots(corpus: string = corpusDir): Required<SourceRootMap> {
  return {
    "claude-code": claudeCorpusRoots(corpus),
    opencode: opencodeCorpusRoots(corpus),
    codex: codexCorpusRoots(corpus),
    "gemini-cli": geminiCorpusRoots(corpus),
    cursor: cursorCorpusRoots(corpus),
    aider: aiderCorpusRoots(corpus),
    "copilot-cli": [], // no Copilot CLI logs in the corpus
    "qwen-code": [], // no Qwen Code chats in the corpus
    "kimi-cli": [], // no Kimi CLI sessions in the corpus
    cline: [],
    "roo-code": [],
    "kilo-code": [],
    pi: [], // no pi sessions in ../shared/corpus
    droid: [], // nor Factory Droid ones
    goose: [], // nor Goose ones
    crush: [], // nor Crush ones
    continue: [], // nor Continue ones
    "cursor-agent": [], // no cursor-agent chats in the corpus
    "copilot-chat": [], // no VS Code chat sessions in the corpus
    zed: [], // no Zed threads in the corpus
    openclaw: [], // no OpenClaw transcripts in the corpus
    "mistral-vibe": [], // no Mistral Vibe sessions in the corpus
    "grok-cli": [], // no Grok CLI database in the corpus
    codebuff: [], // no Codebuff chats in the corpus
  };
}
