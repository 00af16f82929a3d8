/**
 * The Claude Code skill: its frontmatter and references, every recall command it teaches is accepted by the
 * real CLI, and `recall skill install` writes a working copy wired to this recall by absolute path.
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { completeMarker } from "../../src/binary/embedded-files.ts";
import { installSkill, stableExecutablePath } from "../../src/binary/install-skill.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const skillDir = join(repo, "skill");
const work = mkdtempSync(join(tmpdir(), "recall-skill-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function recall(args: string[], env: Record<string, string> = {}) {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  delete childEnv.CLAUDE_CONFIG_DIR; // the default skill folder must come from HOME
  const { exitCode: code, stdout, stderr } = runCli([...args], childEnv);
  return { code, stdout, stderr };
}

/** The `recall.sh <command> …` lines in a markdown file, as argument lists (placeholders in <> dropped). */
function taughtCommands(markdown: string): string[][] {
  return [...markdown.matchAll(/scripts\/recall\.sh ((?:search|show|sessions|status|index|doctor)[^\n`]*)/g)].map(
    (match) => (match[1]!.match(/"[^"]*"|\S+/g) ?? []).map((word) => word.replace(/^"|"$/g, "")),
  );
}

describe("the skill", () => {
  const skill = readFileSync(join(skillDir, "SKILL.md"), "utf8");

  test("SKILL.md has short frontmatter naming recall and the situations to use it in", () => {
    const frontmatter = /^---\n([\s\S]*?)\n---\n/.exec(skill)?.[1] ?? "";
    expect(frontmatter.split("\n").map((line) => line.split(":")[0])).toEqual(["name", "description"]);
    expect(frontmatter).toContain("name: recall");
    for (const phrase of [
      "what did we decide about",
      "have we seen this error before",
      "find the session where",
      "~/.claude/projects",
    ])
      expect(frontmatter).toContain(phrase);
    expect(skill.split("\n").length).toBeLessThan(100);
  });

  test("the references it points to exist", () => {
    const named = [...skill.matchAll(/references\/([A-Z_]+\.md)/g)].map((match) => match[1]);
    expect(new Set(named)).toEqual(
      new Set(["FIRST_RUN.md", "HOW_IT_WORKS.md", "CONFIGURATION.md", "TROUBLESHOOTING.md", "ADDING_PARSERS.md"]),
    );
    expect(readdirSync(join(skillDir, "references")).sort()).toEqual([
      "ADDING_PARSERS.md",
      "CONFIGURATION.md",
      "FIRST_RUN.md",
      "HOW_IT_WORKS.md",
      "TROUBLESHOOTING.md",
    ]);
  });

  test("every command it teaches names a real subcommand and only flags that its --help lists", () => {
    const files = [
      join(skillDir, "SKILL.md"),
      ...readdirSync(join(skillDir, "references")).map((name) => join(skillDir, "references", name)),
    ];
    const commands = files.flatMap((file) => taughtCommands(readFileSync(file, "utf8")));
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const words of commands) {
      // Replace <placeholders> with a value of the right shape; --help then validates the flags without running.
      const args = words.map((word) =>
        word
          .replace(/^<session_id>(:<from>-<to>)?$/, "23d3db6a-c189-41e8-b15e-e3dfa565d49f:1-2")
          .replace(/^<session_id>$/, "23d3db6a"),
      );
      const [name] = args;
      const help = recall([name!, "--help"]).stdout;
      expect(help).toContain(`recall ${name}`);
      for (const flag of args.filter((word) => word.startsWith("--")))
        expect(`${name} ${help.includes(flag) ? flag : `MISSING ${flag}`}`).toBe(`${name} ${flag}`);
    }
  });

  test("skill install writes SKILL.md, references and executable scripts, wired to this recall, into --dir", () => {
    const target = join(work, "skills", "recall");
    const result = recall(["skill", "install", "--dir", target]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`installed the recall skill in ${target}`);
    for (const name of ["SKILL.md", "references/FIRST_RUN.md", "scripts/recall.sh", "scripts/first-run.sh"])
      expect(existsSync(join(target, name))).toBe(true);
    expect(statSync(join(target, "scripts", "recall.sh")).mode & 0o111).not.toBe(0);
    const installed = readFileSync(join(target, "SKILL.md"), "utf8");
    expect(installed).not.toContain("__SKILL_DIR__");
    expect(installed).toContain(`sh ${target}/scripts/recall.sh search`);
    const wrapper = readFileSync(join(target, "scripts", "recall.sh"), "utf8");
    expect(wrapper).toContain(`exec ${process.execPath} ${join(repo, "src", "cli.ts")} "$@"`);
    const version = Bun.spawnSync(["sh", join(target, "scripts", "recall.sh"), "--version"], { cwd: work });
    expect(version.stdout.toString().trim()).toBe(recall(["--version"]).stdout.trim());
  });

  test("under umask 000 no installed folder or file is writable by others (issue 37: scripts/ was 0777)", () => {
    const home = join(work, "home-umask");
    const result = runCli(
      ["skill", "install"],
      { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: undefined },
      { prefix: ["sh", "-c", 'umask 000; exec "$@"', "sh"] },
    );
    expect(result.exitCode).toBe(0);
    const created = [join(home, ".claude"), join(home, ".claude", "skills")];
    const walk = (path: string): string[] =>
      statSync(path).isDirectory() ? [path, ...readdirSync(path).flatMap((name) => walk(join(path, name)))] : [path];
    const paths = [...created, ...walk(join(home, ".claude", "skills", "recall"))];
    expect(paths.length).toBeGreaterThan(8);
    const writableByOthers = paths.filter((path) => (statSync(path).mode & 0o022) !== 0);
    expect(writableByOthers).toEqual([]);
    expect(statSync(join(home, ".claude", "skills", "recall", "scripts", "recall.sh")).mode & 0o777).toBe(0o755);
  });

  test("without --dir it installs into ~/.claude/skills/recall, replacing an older install", () => {
    const home = join(work, "home");
    expect(recall(["skill", "install"], { HOME: home }).code).toBe(0);
    const target = join(home, ".claude", "skills", "recall");
    Bun.write(join(target, "stale.txt"), "from an older version");
    expect(recall(["skill", "install"], { HOME: home }).code).toBe(0);
    expect(existsSync(join(target, "SKILL.md"))).toBe(true);
    expect(existsSync(join(target, "stale.txt"))).toBe(false);
  });

  test("the recorded path is the `recall` on PATH that resolves to the running binary (a Homebrew link, not its Cellar)", () => {
    const cellar = join(work, "Cellar", "recall", "0.1.0", "bin");
    const links = join(work, "opt-bin");
    mkdirSync(cellar, { recursive: true });
    mkdirSync(links, { recursive: true });
    writeFileSync(join(cellar, "recall"), "#!/bin/sh\n");
    chmodSync(join(cellar, "recall"), 0o755);
    symlinkSync(join(cellar, "recall"), join(links, "recall"));
    const other = join(work, "other-bin");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "recall"), "#!/bin/sh\n"); // another recall first on PATH: not this binary
    expect(stableExecutablePath(join(cellar, "recall"), `${other}:${links}:/usr/bin`)).toBe(join(links, "recall"));
    expect(stableExecutablePath(join(cellar, "recall"), "/usr/bin:/bin")).toBe(join(cellar, "recall"));
    expect(stableExecutablePath(join(cellar, "recall"), undefined)).toBe(join(cellar, "recall"));
  });

  test("installing from an extracted copy leaves the extractor's .complete marker out", () => {
    const source = join(work, "extracted-skill");
    mkdirSync(join(source, "scripts"), { recursive: true });
    writeFileSync(join(source, "SKILL.md"), "skill");
    writeFileSync(join(source, "scripts", "recall.sh"), 'exec __RECALL_COMMAND__ "$@"\n');
    writeFileSync(join(source, completeMarker), "hash\n");
    const target = join(work, "skills-from-extraction", "recall");
    expect(installSkill(target, { sourceDir: source, command: "/usr/local/bin/recall" }).sort()).toEqual([
      "SKILL.md",
      "scripts/recall.sh",
    ]);
    expect(existsSync(join(target, completeMarker))).toBe(false);
  });

  test("first-run.sh --done records that setup happened, which SKILL.md checks for", () => {
    const target = join(work, "skills-first-run", "recall");
    expect(recall(["skill", "install", "--dir", target]).code).toBe(0);
    expect(readFileSync(join(target, "SKILL.md"), "utf8")).toContain(`${target}/.setup-done`);
    const done = Bun.spawnSync(["sh", join(target, "scripts", "first-run.sh"), "--done"]);
    expect(done.exitCode).toBe(0);
    expect(readFileSync(join(target, ".setup-done"), "utf8")).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });
});
