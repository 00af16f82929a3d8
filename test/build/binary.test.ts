/**
 * The compiled binary on its own: copied with nothing else into an empty folder, run with an empty HOME from
 * another working directory, it answers --help, index, search, show, sessions and status on the real corpus
 * exactly as `bun src/cli.ts` does, uses its embedded example history, never extracts the llama.cpp runtime
 * for commands that do not embed, and runs a hybrid search with a generated model (runtime-notes §2, §3).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { stopEmbedHelpers } from "../../src/embed/index.ts";
import { runCli } from "../helpers/cli.ts";
import { claudeCorpusRoots, hasCorpus, opencodeCorpusRoots } from "../helpers/corpus.ts";
import { getTestModelPath } from "../helpers/models.ts";
import { buildBinaryOnce, canBuildBinary, repo } from "./build-once.ts";

const work = mkdtempSync(join(tmpdir(), "recall-binary-"));
const binary = join(work, "bin", "recall");
const elsewhere = join(work, "elsewhere");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A minimal environment: no node_modules, no Bun on PATH, HOME an empty folder, no network, no embedding helper unless asked. */
function isolatedEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: "/usr/bin:/bin",
    HOME: home,
    RECALL_OFFLINE: "1",
    NO_COLOR: "1",
    RECALL_EMBED_HELPER: "off",
    ...extra,
  };
}

function runProcess(command: string[], env: Record<string, string>) {
  const result = Bun.spawnSync(command, { cwd: elsewhere, env, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

const homes = { binary: join(work, "home-binary"), dev: join(work, "home-dev") };
/** Runs the copied binary with its own empty HOME. */
const viaBinary = (args: string[], extra: Record<string, string> = {}) =>
  runProcess([binary, ...args], isolatedEnv(homes.binary, extra));
/** Runs `bun src/cli.ts` (the harness's: bun by absolute path, so PATH stays minimal) with a separate empty HOME. */
const viaDev = (args: string[], extra: Record<string, string> = {}) => {
  const result = runCli(args, isolatedEnv(homes.dev, extra), { cwd: elsewhere });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
};

/** Extracted runtime folders under the binary's RECALL_HOME (default ~/.cache/recall). */
/**
 * The JSON an index answers with, without `last_seen_at` (issue 9: the time of the run that last saw a session's
 * source, which differs between two homes indexed seconds apart) nor `index.indexed_at` / `index.full_scan_at` (issue 14).
 */
function withoutRunTimes(stdout: string): unknown {
  const runTimes = new Set(["last_seen_at", "indexed_at", "full_scan_at"]);
  return JSON.parse(stdout, (key, value) => (runTimes.has(key) ? undefined : value));
}

function runtimeFolders(): string[] {
  const dir = join(homes.binary, ".cache", "recall", "runtime");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

describe.skipIf(!canBuildBinary)(
  "the compiled binary, copied alone into an empty folder (builds it; ~15 s the first time)",
  () => {
    beforeAll(async () => {
      const built = await buildBinaryOnce();
      mkdirSync(dirname(binary), { recursive: true });
      copyFileSync(built.binary, binary);
      Bun.spawnSync(["chmod", "755", binary]);
      for (const dir of [elsewhere, homes.binary, homes.dev]) mkdirSync(dir, { recursive: true });
    }, 180_000);

    test("--help and --version print the same as bun src/cli.ts and extract nothing", () => {
      for (const args of [["--help"], ["--version"], ["search", "--help"]]) {
        const fromBinary = viaBinary(args);
        expect(fromBinary.code).toBe(0);
        expect(fromBinary.stdout).toBe(viaDev(args).stdout);
      }
      expect(runtimeFolders()).toEqual([]);
    }, 60_000);

    test("with no history it searches the embedded example history, extracted once into RECALL_HOME/runtime", () => {
      const args = ["search", "containers cannot reach postgres on the host", "--json"];
      const fromBinary = viaBinary(args);
      expect(fromBinary.code).toBe(0);
      expect(fromBinary.stderr).toContain("using the example history shipped with recall");
      expect(withoutRunTimes(fromBinary.stdout)).toEqual(withoutRunTimes(viaDev(args).stdout));
      const [examples] = runtimeFolders();
      expect(examples).toMatch(/^examples-[0-9a-f]{12}$/);
      const marker = join(homes.binary, ".cache", "recall", "runtime", examples!, ".complete");
      const before = statSync(marker).mtimeMs;
      expect(viaBinary(args).code).toBe(0);
      expect(statSync(marker).mtimeMs).toBe(before);
    }, 60_000);

    test("skill install writes the skill with this binary's absolute path, and the installed wrapper runs it", () => {
      const result = viaBinary(["skill", "install"]);
      expect(result.code).toBe(0);
      const skillDir = join(homes.binary, ".claude", "skills", "recall");
      expect(readFileSync(join(skillDir, "scripts", "recall.sh"), "utf8")).toContain(`exec ${binary} "$@"`);
      const version = runProcess(
        ["sh", join(skillDir, "scripts", "recall.sh"), "--version"],
        isolatedEnv(homes.binary),
      );
      expect(version.stdout.trim()).toBe(viaDev(["--version"]).stdout.trim());
      // The embedded copy's extraction marker is the extractor's bookkeeping, not part of the skill (issue 15).
      expect(readdirSync(skillDir).filter((name) => name.startsWith("."))).toEqual([]);
    }, 60_000);

    test("run through a link on PATH (as Homebrew's bin/recall into its Cellar), the skill records the link, which survives an upgrade", () => {
      const cellar = join(work, "Cellar", "recall", "0.1.0", "bin");
      const links = join(work, "brew-bin");
      mkdirSync(cellar, { recursive: true });
      mkdirSync(links, { recursive: true });
      copyFileSync(binary, join(cellar, "recall"));
      Bun.spawnSync(["chmod", "755", join(cellar, "recall")]);
      symlinkSync(join(cellar, "recall"), join(links, "recall"));
      const home = join(work, "home-brew");
      mkdirSync(home, { recursive: true });
      const result = runProcess(
        [join(links, "recall"), "skill", "install"],
        isolatedEnv(home, { PATH: `${links}:/usr/bin:/bin` }),
      );
      expect(result.code).toBe(0);
      expect(readFileSync(join(home, ".claude", "skills", "recall", "scripts", "recall.sh"), "utf8")).toContain(
        `exec ${join(links, "recall")} "$@"`,
      );
    }, 60_000);
  },
);

describe.skipIf(!canBuildBinary || !hasCorpus)(
  "the compiled binary on the real corpus (needs ../shared/corpus)",
  () => {
    const sources = [
      ...claudeCorpusRoots().flatMap((dir) => ["--claude-dir", dir]),
      ...opencodeCorpusRoots().flatMap((dir) => ["--opencode-dir", dir]),
    ];
    let firstSessionId = "";

    beforeAll(async () => {
      await buildBinaryOnce();
    }, 180_000);

    test("index finds the same sessions and turns as bun src/cli.ts", () => {
      const counts = (stdout: string) => {
        const summary = JSON.parse(stdout) as Record<string, unknown>;
        return Object.fromEntries(
          Object.entries(summary).filter(
            ([key, value]) => typeof value === "number" && !/ms|seconds|duration/i.test(key),
          ),
        );
      };
      const fromBinary = viaBinary(["index", "--json", ...sources]);
      const fromDev = viaDev(["index", "--json", ...sources]);
      expect(fromBinary.code).toBe(0);
      expect(fromDev.code).toBe(0);
      expect(counts(fromBinary.stdout)).toEqual(counts(fromDev.stdout));
      expect(Object.values(counts(fromBinary.stdout)).some((value) => Number(value) > 0)).toBe(true);
    }, 60_000);

    test("keyword search, level 2, sessions, show and status give the same JSON as bun src/cli.ts", () => {
      const search = viaBinary(["search", "sqlite migration", "--json", "--no-reindex", ...sources]);
      expect(search.code).toBe(0);
      const response = JSON.parse(search.stdout);
      expect(withoutRunTimes(search.stdout)).toEqual(
        withoutRunTimes(viaDev(["search", "sqlite migration", "--json", "--no-reindex", ...sources]).stdout),
      );
      expect(response.results.length).toBeGreaterThan(0);
      firstSessionId = response.results[0].session_id;
      for (const args of [
        ["search", "sqlite migration", "--depth", "2", "--session", firstSessionId, "--json"],
        ["sessions", "--json", "--limit", "5"],
        ["show", `${firstSessionId}:1-2`, "--json"],
      ]) {
        const fromBinary = viaBinary([...args, ...sources]);
        expect(fromBinary.code).toBe(0);
        expect(withoutRunTimes(fromBinary.stdout)).toEqual(withoutRunTimes(viaDev([...args, ...sources]).stdout));
      }
      const status = JSON.parse(viaBinary(["status", "--json", ...sources]).stdout);
      expect(status.stale).toBe(false);
    }, 60_000);

    test("none of those commands extracted the llama.cpp runtime", () => {
      expect(runtimeFolders().filter((name) => name.startsWith("node-llama-cpp"))).toEqual([]);
    });

    test("doctor in the binary finds the index healthy and the simsimd and usearch addons loaded from inside the binary", () => {
      const result = viaBinary(["doctor", "--json", ...sources]);
      const report = JSON.parse(result.stdout) as { checks: Array<{ id: string; status: string; message: string }> };
      const byId = Object.fromEntries(report.checks.map((check) => [check.id, check]));
      expect(byId.index?.status).toBe("ok");
      expect(byId.vectors?.message).toContain("dot product: simsimd+usearch");
    }, 60_000);
  },
);

describe.skipIf(!canBuildBinary)(
  "the compiled binary embeds with node-llama-cpp extracted from itself (generated model)",
  () => {
    const examples = [
      "--claude-dir",
      join(repo, "examples", "claude-code"),
      "--opencode-dir",
      join(repo, "examples", "opencode"),
    ];

    beforeAll(async () => {
      await buildBinaryOnce();
    }, 180_000);

    test("doctor --check-model loads the model and embeds a probe", () => {
      const result = viaBinary(["doctor", "--check-model", "--model", getTestModelPath(), "--json"]);
      const model = (
        JSON.parse(result.stdout) as { checks: Array<{ id: string; status: string; message: string }> }
      ).checks.find((check) => check.id === "model");
      expect(model?.status).toBe("ok");
      expect(model?.message).toContain("embedded a probe (64 dims)");
      expect(result.stderr).not.toContain("is not independent");
      const runtime = runtimeFolders().find((name) => name.startsWith("node-llama-cpp-"));
      expect(runtime).toBeDefined();
      const runtimeDir = join(homes.binary, ".cache", "recall", "runtime", runtime!);
      expect(readdirSync(join(runtimeDir, "bins"))).toContain("linux-x64");
      expect(existsSync(join(runtimeDir, "llama", "binariesGithubRelease.json"))).toBe(true);
    }, 60_000);

    test("a hybrid search through the binary returns the same ranking as bun src/cli.ts, in-process and through the binary's own embedding helper", async () => {
      const model = ["--model", getTestModelPath()];
      const home = { RECALL_HOME: join(work, "hybrid-binary") };
      const devHome = { RECALL_HOME: join(work, "hybrid-dev") };
      expect(viaBinary(["index", ...model, ...examples], home).code).toBe(0);
      expect(viaDev(["index", ...model, ...examples], devHome).code).toBe(0);
      const args = ["search", "containers cannot reach the database", "--json", "--no-reindex", ...model, ...examples];
      const fromBinary = viaBinary(args, home);
      expect(fromBinary.code).toBe(0);
      const response = JSON.parse(fromBinary.stdout);
      expect(response.mode).toBe("hybrid");
      expect(response.results.some((result: { vector_score: number | null }) => result.vector_score !== null)).toBe(
        true,
      );
      const dev = JSON.parse(viaDev(args, devHome).stdout);
      const sessions = (answer: { results: Array<{ session_id: string }> }) =>
        answer.results.map((result) => result.session_id);
      expect(sessions(response)).toEqual(sessions(dev));
      const withHelper = { ...home, RECALL_EMBED_HELPER: "on", RECALL_EMBED_HELPER_IDLE_MS: "60000" };
      try {
        for (let run = 0; run < 2; run++) {
          const viaHelper = viaBinary(args, withHelper);
          expect(viaHelper.code).toBe(0);
          expect(sessions(JSON.parse(viaHelper.stdout))).toEqual(sessions(dev));
        }
      } finally {
        expect(await stopEmbedHelpers(join(home.RECALL_HOME, "helpers"))).toBe(1); // the binary started exactly one helper, and it was still up
      }
    }, 120_000);
  },
);
