/**
 * Builds the compiled binary once per test run for every test file that needs it (bun test runs the files in
 * one process, so a module-level promise is shared), into build/test-dist/ (git-ignored). A build whose
 * outputs are newer than every input (src/, skill/, examples/, scripts/build*, package.json; for the release files
 * also packaging/ and install.sh) is reused, so a
 * second `bun test` costs nothing. Building takes ~15 s here (2 vCPUs), most of it gzip for the archive.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { hostTargetId } from "../../scripts/build/targets.ts";
import { releaseTime } from "../../scripts/build/release.ts";

export const repo = resolve(import.meta.dir, "../..");
export const testDistDir = join(repo, "build", "test-dist");
/** Id of the host target ("linux-x64" here). */
export const hostTarget = hostTargetId() ?? "unknown";

/**
 * True when this machine can build the binary: a supported host with its node-llama-cpp platform package
 * installed (the build never downloads for the host target).
 */
export const canBuildBinary: boolean =
  (hostTarget === "linux-x64" || hostTarget === "linux-arm64") &&
  existsSync(join(repo, "node_modules", "@node-llama-cpp", hostTarget, "bins"));

/** Paths of a finished build. */
export interface BuiltBinary {
  binary: string;
  archive: string;
  checksumFile: string;
  embedDir: string;
}

function newestMtimeMs(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtimeMs(join(path, name))), stat.mtimeMs);
}

/** What a compiled binary is made of; the release files also come from packaging/ and install.sh. */
const binaryInputs = ["src", "skill", "examples", "scripts/build", "scripts/build.ts", "package.json"];

/** The newest mtime (ms) of the files below the given repo paths. */
const newestInputMs = (names: string[]): number => Math.max(...names.map((name) => newestMtimeMs(join(repo, name))));

function outputsOf(): BuiltBinary {
  return {
    binary: join(testDistDir, "recall"),
    archive: join(testDistDir, `recall-${hostTarget}.tar.gz`),
    checksumFile: join(testDistDir, `recall-${hostTarget}.tar.gz.sha256`),
    embedDir: join(repo, "build", hostTarget, "embed"),
  };
}

/**
 * Outputs exist and are newer than every input and than the HEAD commit: the archive's entry time is that commit's
 * (release.ts releaseTime), so a commit made after the build, even of tests only, makes it stale.
 */
function isFresh(outputs: BuiltBinary): boolean {
  if (!Object.values(outputs).every((path) => existsSync(path))) return false;
  const built = statSync(outputs.checksumFile).mtimeMs;
  return built > newestInputMs([...binaryInputs, "packaging", "install.sh"]) && built > releaseTime(repo).getTime();
}

let building: Promise<BuiltBinary> | undefined;

/** Builds (or reuses) the host binary and release files in build/test-dist/. @throws Error when the build fails */
export function buildBinaryOnce(): Promise<BuiltBinary> {
  building ??= (async () => {
    const outputs = outputsOf();
    if (isFresh(outputs)) return outputs;
    const child = Bun.spawn([process.execPath, join(repo, "scripts", "build.ts"), "--out", testDistDir], {
      cwd: repo,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    if (code !== 0) throw new Error(`build failed (exit ${code}):\n${stderr}`);
    return outputs;
  })();
  return building;
}

/** Where the darwin cross-builds of the test run go (git-ignored). */
export const darwinTestDistDir = join(repo, "build", "test-dist-darwin");

let buildingDarwin: Promise<Record<"darwin-arm64" | "darwin-x64", string> | { skipped: string }> | undefined;

/**
 * Cross-compiles darwin-arm64 and darwin-x64 once per test run (reused while newer than every input), with
 * `--no-archive`. The Bun runtimes and node-llama-cpp prebuilts for macOS are fetched with `npm pack` through the
 * configured registry into build/cache/npm the first time.
 * @returns the two binaries, or why they could not be built here (npm cannot fetch the packages)
 */
export function buildDarwinOnce(): Promise<Record<"darwin-arm64" | "darwin-x64", string> | { skipped: string }> {
  buildingDarwin ??= (async () => {
    const binaries = {
      "darwin-arm64": join(darwinTestDistDir, "recall-darwin-arm64", "recall"),
      "darwin-x64": join(darwinTestDistDir, "recall-darwin-x64", "recall"),
    };
    const newestInput = newestInputMs(binaryInputs);
    if (Object.values(binaries).every((path) => existsSync(path) && statSync(path).mtimeMs > newestInput))
      return binaries;
    const child = Bun.spawn(
      [
        process.execPath,
        join(repo, "scripts", "build.ts"),
        "--target",
        "darwin-arm64",
        "--target",
        "darwin-x64",
        "--no-archive",
        "--out",
        darwinTestDistDir,
      ],
      { cwd: repo, stdout: "pipe", stderr: "pipe" },
    );
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    if (code !== 0) {
      if (/npm pack/.test(stderr))
        return { skipped: `cannot fetch the macOS packages with npm pack: ${stderr.trim().split("\n").slice(-1)[0]}` };
      throw new Error(`darwin build failed (exit ${code}):\n${stderr}`);
    }
    return binaries;
  })();
  return buildingDarwin;
}
