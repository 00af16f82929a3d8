/**
 * Installs the Claude Code skill (`skill/` in the repository, embedded in the compiled binary) into a skills
 * folder, default `~/.claude/skills/recall/` (or the first $CLAUDE_CONFIG_DIR entry's `skills/recall/`).
 * The skill's scripts call recall through the placeholder `__RECALL_COMMAND__`, replaced here by the absolute
 * command that runs this recall: the binary's own path when compiled, `<bun> <repo>/src/cli.ts` in a checkout.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { extractEmbeddedGroup, isCompiledBinary } from "./embedded-files.ts";

/** The text replaced in every skill file by the recall command. */
export const commandPlaceholder = "__RECALL_COMMAND__";

/** The text replaced in every skill file by the installed skill folder's absolute path. */
export const skillDirPlaceholder = "__SKILL_DIR__";

/** Quotes one word for a POSIX shell: `it's` → `'it'\''s'`. */
export function quoteShellWord(word: string): string {
  return /^[A-Za-z0-9_\/.,:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The shell command that runs this recall: `/path/recall` (compiled) or `/path/bun /repo/src/cli.ts`. */
export function recallCommandLine(): string {
  if (isCompiledBinary()) return quoteShellWord(process.execPath);
  return `${quoteShellWord(process.execPath)} ${quoteShellWord(join(import.meta.dir, "..", "cli.ts"))}`;
}

/** The skill folder to copy from: the repository's `skill/`, or the binary's embedded copy (extracted). */
export function findSkillSource(): string {
  return isCompiledBinary() ? extractEmbeddedGroup("skill") : join(import.meta.dir, "..", "..", "skill");
}

/** Default install folder: `<CLAUDE_CONFIG_DIR first entry or ~/.claude>/skills/recall`. */
export function defaultSkillDir(env: Record<string, string | undefined>, home: string): string {
  const configDir = (env.CLAUDE_CONFIG_DIR ?? "").split(",").map((dir) => dir.trim()).find(Boolean);
  return join(configDir ?? join(home, ".claude"), "skills", "recall");
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

/**
 * Copies the skill into `targetDir` (replacing an older install atomically: temp folder, then rename), with
 * `__RECALL_COMMAND__` replaced by `command` and `__SKILL_DIR__` by targetDir in every file; scripts stay executable.
 * @returns the installed files, relative to targetDir
 * @throws Error from fs when the folder cannot be written
 */
export function installSkill(targetDir: string, options: { sourceDir?: string; command?: string } = {}): string[] {
  const sourceDir = options.sourceDir ?? findSkillSource();
  const command = options.command ?? recallCommandLine();
  mkdirSync(dirname(targetDir), { recursive: true });
  const tmp = `${targetDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const installed: string[] = [];
  for (const path of listFiles(sourceDir)) {
    const name = relative(sourceDir, path);
    const dest = join(tmp, name);
    mkdirSync(dirname(dest), { recursive: true });
    const text = readFileSync(path, "utf8");
    writeFileSync(dest, text.replaceAll(commandPlaceholder, command).replaceAll(skillDirPlaceholder, targetDir), { mode: name.endsWith(".sh") ? 0o755 : 0o644 });
    installed.push(name);
  }
  if (existsSync(targetDir)) rmSync(targetDir, { recursive: true, force: true });
  renameSync(tmp, targetDir);
  return installed;
}

