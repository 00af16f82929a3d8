import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  cpSync,
  linkSync,
  mkdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  readFileSync,
  renameSync,
  statSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { claudeCodeParser } from "../../src/parsers/claude-code.ts";
import type { SourceContainer } from "../../src/parsers/types.ts";
import { canDropPrivileges, makeSharedTempDir, runAsNobody } from "../helpers/unprivileged.ts";
import { claudeCorpusRoots, hasCorpus } from "../helpers/corpus.ts";
import { expectRescansMatchEachRoot, expectRescansMatchWholeWalk } from "../helpers/rescan.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/claude-code");
const parserModule = resolve(import.meta.dir, "../../src/parsers/claude-code.ts");
const S1 = "11111111-1111-4111-8111-111111111111";
const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) {
    chmodRecursive(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Give back read and search permission everywhere below `dir`, so the temp folder can be removed. */
function chmodRecursive(dir: string): void {
  Bun.spawnSync(["chmod", "-R", "u+rwx", dir]);
}

/** A copy of the fixture `.claude` folder in a fresh temp folder that user nobody can read. */
function copyDotClaude(): { home: string; claude: string; projects: string } {
  const home = makeSharedTempDir("recall-cc-scan-");
  tempDirs.push(home);
  const claude = join(home, ".claude");
  cpSync(join(fixtures, "dot-claude"), claude, { recursive: true });
  return { home, claude, projects: join(claude, "projects") };
}

const pathsOf = (roots: string[]) => claudeCodeParser.scan(roots).containers.map((container) => container.path);

describe("claude code scan: symbolic links (issue 9)", () => {
  test("a self-referencing link is reported unavailable and the rest is still found", () => {
    const { claude, projects } = copyDotClaude();
    const before = pathsOf([claude]);
    symlinkSync("loop", join(projects, "loop"));
    const scan = claudeCodeParser.scan([claude]);
    expect(scan.containers.map((container) => container.path)).toEqual(before);
    expect(scan.unavailable).toEqual([{ path: join(projects, "loop"), reason: "symbolic link loop" }]);
  });

  test("five links to a parent folder add no file and cost no exponential walk", () => {
    const { claude, projects } = copyDotClaude();
    const before = pathsOf([claude]);
    const project = join(projects, "-home-dev-proj");
    for (let i = 0; i < 5; i++) symlinkSync("..", join(project, `up${i}`));
    symlinkSync(projects, join(project, "abs-up"));
    const started = performance.now();
    const scan = claudeCodeParser.scan([claude]);
    expect(performance.now() - started).toBeLessThan(500);
    expect(scan.containers.map((container) => container.path)).toEqual(before);
    expect(scan.unavailable).toEqual([]);
  });

  test("a project reached both directly and through a link is listed once, under its real path", () => {
    const { claude, projects, home } = copyDotClaude();
    const before = pathsOf([claude]);
    // `-a-link` sorts before the real folder: the real path must still win.
    symlinkSync(join(projects, "C--Users-dev-win-proj"), join(projects, "-a-link"));
    expect(pathsOf([claude])).toEqual(before);
    // A linked folder outside the tree is followed (once) and its files listed under the link.
    const outside = join(home, "elsewhere", "-home-dev-other");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "44444444-4444-4444-8444-444444444444.jsonl"), "");
    symlinkSync(join(home, "elsewhere"), join(projects, "more"));
    expect(pathsOf([claude])).toEqual(
      [...before, join(projects, "more", "-home-dev-other", "44444444-4444-4444-8444-444444444444.jsonl")].sort(),
    );
  });

  test("a transcript hard-linked or linked under a second name is one container; a dangling link is nothing", () => {
    const { claude, projects } = copyDotClaude();
    const before = pathsOf([claude]);
    const original = join(projects, "-home-dev-proj", `${S1}.jsonl`);
    linkSync(original, join(projects, "-home-dev-proj", "99999999-9999-4999-8999-999999999999.jsonl"));
    symlinkSync(original, join(projects, "C--Users-dev-win-proj", "88888888-8888-4888-8888-888888888888.jsonl"));
    symlinkSync(join(projects, "nowhere"), join(projects, "dangling"));
    const scan = claudeCodeParser.scan([claude, projects]);
    expect(scan.containers).toHaveLength(before.length);
    expect(scan.unavailable).toEqual([]);
  });
});

describe("claude code scan: walking changed folders again (issue 42)", () => {
  test("each folder of the fixture tree, walked alone, gives what the whole walk gave below it", () => {
    const { claude, projects } = copyDotClaude();
    mkdirSync(join(projects, "-home-dev-proj", "deeper", "-nested-project"), { recursive: true });
    writeFileSync(join(projects, "-home-dev-proj", "deeper", "-nested-project", `${S1}.jsonl`), "");
    expect(expectRescansMatchWholeWalk(claudeCodeParser, [claude])).toBeGreaterThan(3);
    expect(expectRescansMatchWholeWalk(claudeCodeParser, [projects])).toBeGreaterThan(3);
  });

  test("a folder below two overlapping roots, or a root, is left to the whole walk", () => {
    const { claude, projects } = copyDotClaude();
    const project = { path: join(projects, "-home-dev-proj"), fingerprint: "x" };
    expect(claudeCodeParser.rescanFolders!([claude, projects], [project])).toBeUndefined();
    expect(claudeCodeParser.rescanFolders!([projects], [{ path: projects, fingerprint: "x" }])).toBeUndefined();
    expect(claudeCodeParser.rescanFolders!([join(claude, "other")], [project])).toBeUndefined();
  });

  test("a session's subagents folder whose transcript is gone is left to the whole walk", () => {
    const { projects } = copyDotClaude();
    const folder = { path: join(projects, "-home-dev-proj", S1, "subagents"), fingerprint: "-" };
    expect(claudeCodeParser.rescanFolders!([projects], [{ ...folder, owner: `${folder.path}-gone.jsonl` }])).toBe(
      undefined,
    );
  });

  describe.skipIf(!hasCorpus)("the real corpus (needs ../shared/corpus)", () => {
    test("each folder of every corpus root, walked alone, gives what the whole walk gave below it", () => {
      expect(expectRescansMatchEachRoot(claudeCodeParser, claudeCorpusRoots())).toBeGreaterThan(20);
    });
  });
});

/** The records `scan(paths)` gives, the prompt history's scan-time mtime left out (each call takes its own now). */
function comparable(containers: readonly SourceContainer[] | undefined) {
  return containers
    ?.map((container) => (container.path.endsWith("/history.jsonl") ? { ...container, mtimeMs: 0 } : container))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every stored path's re-stat, alone and all together, is the walk's record of that path. */
function expectRestatsMatchScan(roots: string[]): number {
  const paths = pathsOf(roots);
  for (const path of paths)
    expect(comparable(claudeCodeParser.restatContainers!([path]))).toEqual(
      comparable(claudeCodeParser.scan([path]).containers),
    );
  expect(comparable(claudeCodeParser.restatContainers!(paths))).toEqual(
    comparable(claudeCodeParser.scan(roots).containers),
  );
  return paths.length;
}

describe("claude code re-stat of stored containers (issue 42)", () => {
  test("each transcript, sub-agent and prompt history of the fixture tree re-stats as the walk lists it", () => {
    const { claude } = copyDotClaude();
    const paths = pathsOf([claude]);
    expect(paths.filter((path) => path.includes("/subagents/"))).toHaveLength(2);
    expect(paths.filter((path) => path.endsWith("/history.jsonl"))).toHaveLength(1);
    expect(expectRestatsMatchScan([claude])).toBe(paths.length);
  });

  test("an append, a meta.json written later and a rewrite by rename each move the fingerprint", async () => {
    const { projects } = copyDotClaude();
    const main = join(projects, "-home-dev-proj", `${S1}.jsonl`);
    const agent = join(projects, "-home-dev-proj", S1, "subagents", "agent-acompact-00aa.jsonl");
    const before = claudeCodeParser.restatContainers!([main, agent])!;
    await Bun.sleep(5);
    writeFileSync(main, `${readFileSync(main, "utf8")}\n`);
    writeFileSync(agent.replace(/\.jsonl$/, ".meta.json"), '{"agentType":"general-purpose"}');
    const after = claudeCodeParser.restatContainers!([main, agent])!;
    expect(after[0]!.fingerprint).not.toBe(before[0]!.fingerprint);
    expect(after[0]!.sizeBytes).toBe(before[0]!.sizeBytes + 1);
    const [agentOwn] = before[1]!.fingerprint.split("|meta");
    expect(before[1]!.fingerprint).toBe(`${agentOwn}|meta-`);
    expect(after[1]!.fingerprint).toStartWith(`${agentOwn}|meta`);
    expect(after[1]!.fingerprint).not.toBe(before[1]!.fingerprint);
    const copy = `${main}.new`;
    cpSync(main, copy);
    renameSync(copy, main); // an editor's save: another file (inode) under the same name
    expect(claudeCodeParser.restatContainers!([main])![0]!.fingerprint).not.toBe(after[0]!.fingerprint);
  });

  test("a path gone, turned into a folder, not a transcript, or the same file as another gives undefined", () => {
    const { claude, projects } = copyDotClaude();
    const main = join(projects, "-home-dev-proj", `${S1}.jsonl`);
    const other = join(projects, "C--Users-dev-win-proj", "22222222-2222-4222-8222-222222222222.jsonl");
    expect(claudeCodeParser.restatContainers!([main, other])).toHaveLength(2);
    expect(claudeCodeParser.restatContainers!([main, join(projects, "-home-dev-proj", "gone.jsonl")])).toBeUndefined();
    expect(
      claudeCodeParser.restatContainers!([join(projects, "-home-dev-proj", "sessions-index.json")]),
    ).toBeUndefined();
    expect(claudeCodeParser.restatContainers!([join(claude, "todos")])).toBeUndefined();
    const twin = join(projects, "-home-dev-proj", "99999999-9999-4999-8999-999999999999.jsonl");
    linkSync(main, twin);
    expect(claudeCodeParser.restatContainers!([main, twin])).toBeUndefined();
    expect(claudeCodeParser.scan([main, twin]).containers).toHaveLength(1); // what the walk does with them
    rmSync(other);
    mkdirSync(other);
    expect(claudeCodeParser.restatContainers!([other])).toBeUndefined();
  });

  describe.skipIf(!hasCorpus)("the real corpus (needs ../shared/corpus)", () => {
    test("every container of every corpus root re-stats as the walk lists it", () => {
      expect(expectRestatsMatchScan(claudeCorpusRoots())).toBeGreaterThan(150);
    });
  });
});

describe("claude code change fingerprints (issue 9)", () => {
  test("a same-size rewrite whose mtime was put back (touch -d) changes the fingerprint through ctime", async () => {
    const { projects } = copyDotClaude();
    const file = join(projects, "-home-dev-proj", `${S1}.jsonl`);
    const fingerprint = () => claudeCodeParser.scan([file]).containers[0]!.fingerprint;
    const stamp = new Date("2026-03-01T10:00:00Z");
    utimesSync(file, stamp, stamp);
    const before = fingerprint();
    const { ino, size } = statSync(file);
    await Bun.sleep(15);
    writeFileSync(file, readFileSync(file, "utf8").replace("Explore", "EXPLORE"));
    utimesSync(file, stamp, stamp);
    expect(statSync(file)).toMatchObject({ ino, size, mtimeMs: stamp.getTime() });
    expect(fingerprint()).not.toBe(before);
  });

  test("a nested sub-agent's fingerprint covers its meta.json (where its title comes from)", async () => {
    const { projects } = copyDotClaude();
    const agent = join(projects, "-home-dev-proj", S1, "subagents", "agent-a0123456789abcdef.jsonl");
    const fingerprint = () =>
      claudeCodeParser.scan([join(projects, "..")]).containers.find((container) => container.path === agent)!
        .fingerprint;
    const before = fingerprint();
    await Bun.sleep(15);
    writeFileSync(
      agent.replace(/\.jsonl$/, ".meta.json"),
      JSON.stringify({ agentType: "Explore", description: "Explore the repo again" }),
    );
    expect(fingerprint()).not.toBe(before);
  });

  test("a copy agent's change key moves when its parent transcript changes, and not otherwise", async () => {
    const { claude, projects } = copyDotClaude();
    const keyOf = () =>
      claudeCodeParser
        .listUnits(claudeCodeParser.scan([claude]).containers)
        .find((unit) => unit.sessionId === "agent-acompact-00aa")!.changeKey;
    const before = keyOf();
    expect(keyOf()).toBe(before);
    await Bun.sleep(15);
    writeFileSync(
      join(projects, "-home-dev-proj", `${S1}.jsonl`),
      `${readFileSync(join(projects, "-home-dev-proj", `${S1}.jsonl`), "utf8")}\n`,
    );
    expect(keyOf()).not.toBe(before);
  });
});

describe.skipIf(!canDropPrivileges)("claude code sources that cannot be read (issue 9; needs root + setpriv)", () => {
  const scanScript = `const p = require(process.argv[1]); const s = p.claudeCodeParser.scan(process.argv.slice(2));
    console.log(JSON.stringify({ paths: s.containers.map((c) => c.path), missing: s.missingRoots, unavailable: s.unavailable }));`;

  test("an unreadable project folder or subagents folder is unavailable, never silently empty", () => {
    const { claude, projects } = copyDotClaude();
    chmodSync(join(projects, "C--Users-dev-win-proj"), 0o000);
    chmodSync(join(projects, "-home-dev-proj", S1, "subagents"), 0o300);
    const child = runAsNobody(scanScript, [parserModule, claude]);
    expect(child.stderr).toBe("");
    const result = JSON.parse(child.stdout);
    expect(result.paths).toEqual([join(claude, "history.jsonl"), join(projects, "-home-dev-proj", `${S1}.jsonl`)]);
    expect(result.unavailable).toEqual([
      { path: join(projects, "-home-dev-proj", S1, "subagents"), reason: "permission denied" },
      { path: join(projects, "C--Users-dev-win-proj"), reason: "permission denied" },
    ]);
  });

  test("a root inside a folder that cannot be entered is unavailable, not missing", () => {
    const { home, claude } = copyDotClaude();
    chmodSync(home, 0o700);
    const result = JSON.parse(runAsNobody(scanScript, [parserModule, claude, join(claude, "nope")]).stdout);
    expect(result).toEqual({
      paths: [],
      missing: [],
      unavailable: [
        { path: claude, reason: "permission denied" },
        { path: join(claude, "nope"), reason: "permission denied" },
      ],
    });
  });

  test("an unreadable transcript is still listed, and parsing it fails with a clear SourceError", () => {
    const { claude, projects } = copyDotClaude();
    const file = join(projects, "-home-dev-proj", `${S1}.jsonl`);
    chmodSync(file, 0o000);
    const script = `const p = require(process.argv[1]); const units = p.claudeCodeParser.listUnits(p.claudeCodeParser.scan([process.argv[2]]).containers);
      const unit = units.find((u) => u.key === process.argv[3]); let error;
      try { p.claudeCodeParser.parse(unit); } catch (e) { error = { name: e.name, code: e.code, message: e.message }; }
      console.log(JSON.stringify({ listed: Boolean(unit), error }));`;
    const result = JSON.parse(runAsNobody(script, [parserModule, claude, file]).stdout);
    expect(result).toEqual({
      listed: true,
      error: {
        name: "SourceError",
        code: "SOURCE_UNREADABLE",
        message: `cannot read claude code transcript ${file}: permission denied`,
      },
    });
  });
});
