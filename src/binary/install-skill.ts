/**
 * Installs the Claude Code skill (`skill/` in the repository, embedded in the compiled binary) into a skills
 * folder, default `~/.claude/skills/recall/` (or the first $CLAUDE_CONFIG_DIR entry's `skills/recall/`).
 * The skill's scripts call recall through the placeholder `__RECALL_COMMAND__`, replaced here by the absolute
 * command that runs this recall: the binary's own path when compiled, `<bun> <repo>/src/cli.ts` in a checkout.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { delimiter, dirname, join, relative } from "node:path";
import { completeMarker, extractEmbeddedGroup, isCompiledBinary } from "./embedded-files.ts";

/** The text replaced in every skill file by the recall command. */
export const commandPlaceholder = "__RECALL_COMMAND__";

/** The text replaced in every skill file by the installed skill folder's absolute path. */
export const skillDirPlaceholder = "__SKILL_DIR__";

/** Quotes one word for a POSIX shell: `it's` → `'it'\''s'`. */
export function quoteShellWord(word: string): string {
  return /^[A-Za-z0-9_/.,:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** `realpathSync`, or undefined for a path that does not resolve. */
function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The path a skill should record for the running binary: the first `recall` on PATH that resolves to the same
 * file, else `execPath` itself. A Homebrew install runs from its Cellar (`/opt/homebrew/Cellar/recall/0.1.0/bin/recall`),
 * which `brew upgrade` deletes; the link on PATH (`/opt/homebrew/bin/recall`) stays.
 * @param execPath the running executable (process.execPath)
 * @param pathVariable the PATH value to search
 */
export function stableExecutablePath(execPath: string, pathVariable: string | undefined): string {
  const target = realpathOrUndefined(execPath) ?? execPath;
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "recall");
    if (realpathOrUndefined(candidate) === target) return candidate;
  }
  return execPath;
}

/**
 * The shell command that runs this recall: the binary by its stable path (compiled; {@link stableExecutablePath})
 * or `/path/bun /repo/src/cli.ts` in a checkout.
 */
export function recallCommandLine(env: Record<string, string | undefined> = process.env): string {
  if (isCompiledBinary()) return quoteShellWord(stableExecutablePath(process.execPath, env.PATH));
  return `${quoteShellWord(process.execPath)} ${quoteShellWord(join(import.meta.dir, "..", "cli.ts"))}`;
}

/** The skill folder to copy from: the repository's `skill/`, or the binary's embedded copy (extracted). */
export function findSkillSource(): string {
  return isCompiledBinary() ? extractEmbeddedGroup("skill") : join(import.meta.dir, "..", "..", "skill");
}

/** Default install folder: `<CLAUDE_CONFIG_DIR first entry or ~/.claude>/skills/recall`. */
export function defaultSkillDir(env: Record<string, string | undefined>, home: string): string {
  const configDir = (env.CLAUDE_CONFIG_DIR ?? "")
    .split(",")
    .map((dir) => dir.trim())
    .find(Boolean);
  return join(configDir ?? join(home, ".claude"), "skills", "recall");
}

function listFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? listFiles(path) : [path];
    });
}

/**
 * Copies the skill into `targetDir` (replacing an older install atomically: temp folder, then rename; the
 * extraction marker `.complete` of an embedded copy left out), with
 * `__RECALL_COMMAND__` replaced by `command` and `__SKILL_DIR__` by targetDir in every file; scripts stay executable.
 * Modes: folders (the missing parents too) 0755, scripts 0755, other files 0644, each narrowed by the umask.
 * @returns the installed files, relative to targetDir
 * @throws Error from fs when the folder cannot be written
 */
export function installSkill(targetDir: string, options: { sourceDir?: string; command?: string } = {}): string[] {
  const sourceDir = options.sourceDir ?? findSkillSource();
  const command = options.command ?? recallCommandLine();
  // Folders 0755 and files 0644 (scripts 0755), narrowed by the umask but never widened: under umask 000 the
  // default 0777 would let another local user rewrite the scripts the agent runs (issue 37).
  mkdirSync(dirname(targetDir), { recursive: true, mode: 0o755 });
  const tmp = `${targetDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const installed: string[] = [];
  for (const path of listFiles(sourceDir)) {
    const name = relative(sourceDir, path);
    if (name === completeMarker) continue; // the extractor's marker, not part of the skill
    const dest = join(tmp, name);
    mkdirSync(dirname(dest), { recursive: true, mode: 0o755 });
    const text = readFileSync(path, "utf8");
    writeFileSync(dest, text.replaceAll(commandPlaceholder, command).replaceAll(skillDirPlaceholder, targetDir), {
      mode: name.endsWith(".sh") ? 0o755 : 0o644,
    });
    installed.push(name);
  }
  if (existsSync(targetDir)) rmSync(targetDir, { recursive: true, force: true });
  renameSync(tmp, targetDir);
  return installed;
}
