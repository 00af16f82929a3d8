/**
 * Where the shared real corpus lives for tests (`../shared/corpus` next to the repo, read-only;
 * origin and licences in its SOURCES.md). Tests that need it use
 * `describe.skipIf(!hasCorpus)("… (needs ../shared/corpus)")`.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

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
export function claudeCorpusRoots(): string[] {
  return listDirs(join(corpusDir, "claude-code"));
}

/**
 * The folders to pass as `--opencode-dir` to index the whole OpenCode corpus: every
 * `<owner>__<repo>/.local/share/opencode` data root (db and/or JSON `storage/`, docs/formats.md §2).
 * @returns absolute paths, sorted; [] when the corpus is missing
 */
export function opencodeCorpusRoots(): string[] {
  return listDirs(join(corpusDir, "opencode"))
    .map((repo) => join(repo, ".local", "share", "opencode"))
    .filter((root) => existsSync(root));
}
