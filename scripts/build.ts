/**
 * `bun run build`: compiles recall into one executable per target, with its native parts inside
 * (runtime-notes §2, §3, §8), plus release archives, checksums and the Homebrew formula.
 *
 *   bun scripts/build.ts                      host target (linux-x64 here): dist/recall, dist/recall-linux-x64.tar.gz(.sha256)
 *   bun scripts/build.ts --target darwin-arm64 --target linux-arm64     cross-compile (fetches packages with npm pack)
 *   bun scripts/build.ts --target all         every platform, and the Homebrew tap dist/homebrew-recall/Formula/recall.rb
 *   bun scripts/build.ts --formula-only       the tap from the .sha256 files already in --out (archives built on several machines)
 *   options: --out DIR (default dist/), --no-archive, --base-url URL (release download URL for the formula;
 *            default $RECALL_RELEASE_URL, else the GitHub release of v<version>)
 * The formula is written only when the out folder holds every platform's checksum; otherwise the build says which
 * archives are missing and writes none (a generated file never carries a placeholder). Archives are reproducible
 * (scripts/build/release.ts): the same binary gives the same sha256.
 *
 * darwin binaries leave the build with a code signature that matches them (darwin-x64 is signed ad hoc afresh:
 * scripts/build/macho-signature.ts).
 *
 * Per target, build/<target>/embed/ holds what the binary embeds as `assets`: node-llama-cpp/ (pre-bundled,
 * with llama/*.json and bins/<platform>/), examples/, skill/ and recall-embedded.json (sizes + sha256). The
 * usearch and simsimd addons are embedded by src/native's static relative requires; the `define`
 * RECALL_NATIVE_TARGET="<target>" turns the other platforms' branches into dead code, so each binary embeds only
 * its own platform's prebuilds (linux-x64: usearch 4.5 MB + simsimd 0.2 MB; darwin: usearch 2.2 MB, no simsimd
 * prebuild). node-llama-cpp stays `external`, which keeps the dev-mode import out of the bundle; .env and bunfig.toml
 * autoloading are off so the binary never reads a project's files from the working directory. `bytecode` with the
 * ESM format stores pre-parsed bytecode: `--help` measured p50 ~13 ms instead of ~27 ms (best of 21 runs, 2-vCPU
 * EPYC, 2026-11; scripts/bench/binary.ts). `splitting` makes every dynamic `import()` (app.ts, each command's
 * handler, the embedding side of a search) a chunk of its own, loaded when reached: without it the binary is one
 * ~1 MB module whose hoisted imports load node:tty, node:crypto, node:net, node:stream and node:util at start-up
 * (each 1–4 ms in a compiled binary) even for `--help`, which took 13.6 ms against 5.9 ms for a compiled
 * hello-world; with it 5.1 ms (p50 of 30, 2-vCPU Xeon, 2026-11-23), and a keyword search loads no chunk of the
 * embedding side. The start-up plugin (scripts/build/start-up/plugin.ts) keeps cmd-ts's `debug`, and the `node:tty`
 * and `node:util` that it and chalk import, out of every command's start-up. `productionDefine`
 * (scripts/build/production.ts) gives the picker React's production build.
 */
import { copyFileSync, cpSync, linkSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkSignature, signAdhoc } from "./build/macho-signature.ts";
import { writeManifest } from "./build/manifest.ts";
import { archiveName, releaseTime, releaseUrl, writeArchive, writeFormula } from "./build/release.ts";
import { fetchPackage, layOutRuntime, readPackageVersion } from "./build/runtime.ts";
import { productionDefine } from "./build/production.ts";
import { startUpPlugin } from "./build/start-up/plugin.ts";
import { hostTargetId, resolveTargets, type BuildTarget } from "./build/targets.ts";

const repo = resolve(import.meta.dir, "..");

/** Parsed command line of the build. */
interface BuildOptions {
  targets: BuildTarget[];
  outDir: string;
  archive: boolean;
  formulaOnly: boolean;
  baseUrl: string;
}

function parseArgs(argv: string[]): BuildOptions {
  const ids: string[] = [];
  let outDir = join(repo, "dist");
  let archive = true;
  let formulaOnly = false;
  let baseUrl = releaseUrl(process.env, readPackageVersion(repo));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--target") ids.push(argv[++i] ?? "");
    else if (arg.startsWith("--target=")) ids.push(arg.slice("--target=".length));
    else if (arg === "--out") outDir = resolve(argv[++i] ?? "dist");
    else if (arg === "--no-archive") archive = false;
    else if (arg === "--formula-only") formulaOnly = true;
    else if (arg === "--base-url") baseUrl = argv[++i] ?? baseUrl;
    else throw new Error(`unknown option ${arg}`);
  }
  return { targets: formulaOnly ? [] : resolveTargets(ids), outDir, archive, formulaOnly, baseUrl };
}

/** Fills build/<target>/embed/ with the groups and the manifest. */
function prepareEmbedDir(target: BuildTarget, version: string): string {
  const embedDir = join(repo, "build", target.id, "embed");
  rmSync(embedDir, { recursive: true, force: true });
  mkdirSync(embedDir, { recursive: true });
  const platforms = layOutRuntime(repo, target, join(embedDir, "node-llama-cpp"), join(repo, "build", "cache", "npm"));
  cpSync(join(repo, "examples"), join(embedDir, "examples"), { recursive: true });
  cpSync(join(repo, "skill"), join(embedDir, "skill"), { recursive: true });
  writeManifest(embedDir, version, target.id);
  process.stderr.write(`build: ${target.id}: runtime laid out (bins: ${platforms.join(", ")})\n`);
  return embedDir;
}

/**
 * What `recall --help` and `recall --version` print, captured from the application itself (so the
 * binary's fast path can never drift from cmd-ts' own output; see src/cli.ts).
 */
function precomputedOutput(): { help: string; version: string } {
  const capture = (flag: string) => {
    const result = Bun.spawnSync(["bun", join(repo, "src", "cli.ts"), flag], {
      cwd: repo,
      env: { ...process.env, NO_COLOR: "1" },
    });
    if (result.exitCode !== 0) throw new Error(`recall ${flag} failed: ${result.stderr.toString()}`);
    return result.stdout.toString();
  };
  return { help: capture("--help"), version: capture("--version") };
}

/**
 * The JIT tier-up scale the binary starts with (Bun's `compile.jitPolicy`): JavaScriptCore compiles a function only
 * after 32× the usual calls, so a one-shot command's run-once start-up code stays in the interpreter instead of keeping
 * the JIT busy on the second core. src/cli.ts returns to the normal policy after `fullJitAfterMs` (100 ms), and each
 * worker at its start. Measured from the binary on the real corpus (p50 of 40 alternating runs, 2-vCPU EPYC,
 * 2026-11-29): scale 8 against 1, `recall search … --keyword-only` 59.8 → 52.4 ms wall and 70 → 55 ms CPU; with
 * `--no-reindex` 48.2 → 43.7. 32 against 8 (2-core Xeon, 2026-11-30, runs rotating over fresh copies of each binary): a
 * cold search still compiled 4–6 functions (`BUN_JSC_reportBaselineCompileTimes`), the first of them with the JIT's own
 * set-up (0.1–0.6 ms); at 32 none, and a search on the real corpus took 0.7–1.1 ms less, at 20k sessions 0.7–1.2 ms
 * less; a whole walk of 20k sessions (`recall status`, 360–400 ms) 2–18 ms more (0.6–5%, four sets), which going back
 * to the normal policy after 30 ms instead of 100 did not mend.
 */
const startUpJitScale = 32;

/**
 * Compiles the binary for `target` into `<outDir>/recall-<target>/recall`; returns its path. Through `Bun.build` (the
 * same bundler as `bun build --compile`), for its plugins: ./build/start-up/plugin.ts.
 * @throws Error when the bundler reports an error
 */
async function compile(target: BuildTarget, embedDir: string, outDir: string): Promise<string> {
  const binaryDir = join(outDir, `recall-${target.id}`);
  mkdirSync(binaryDir, { recursive: true });
  const outfile = join(binaryDir, "recall");
  const crossCompiled = target.id !== hostTargetId();
  const runtime = crossCompiled
    ? fetchPackage(
        repo,
        target.bunRuntimePackage,
        readPackageVersion(join(repo, "node_modules", "bun")),
        join(repo, "build", "cache", "npm"),
      )
    : undefined;
  // The assets are named relative to the working folder, and keep those names inside the binary.
  const workingDir = process.cwd();
  process.chdir(embedDir);
  try {
    const result = await Bun.build({
      // The parse and match workers are more entry points: a compiled binary can only start workers it contains.
      entrypoints: [
        join(repo, "src", "cli.ts"),
        join(repo, "src", "index", "write", "parse-worker.ts"),
        join(repo, "src", "search", "ranking", "match-worker.ts"),
      ],
      compile: {
        outfile,
        ...(runtime
          ? { target: target.bunTarget as Bun.Build.CompileTarget, executablePath: join(runtime, "bin", "bun") }
          : {}),
        autoloadDotenv: false,
        autoloadBunfig: false,
        jitPolicy: startUpJitScale,
        assets: ["./node-llama-cpp", "./examples", "./skill", "./recall-embedded.json"],
      },
      minify: true,
      bytecode: true,
      format: "esm",
      splitting: true,
      define: {
        ...productionDefine,
        RECALL_PRECOMPUTED_OUTPUT: JSON.stringify(precomputedOutput()),
        RECALL_NATIVE_TARGET: JSON.stringify(target.id),
      },
      external: [
        "node-llama-cpp",
        // Ink loads React DevTools only when DEV=true and the package is installed; it is neither here, and bundling
        // needs the import left unresolved (with splitting it stays in a chunk that never loads).
        "react-devtools-core",
        // pg requires its optional pg-cloudflare only inside Cloudflare Workers (lib/stream.js); npm ci
        // --omit=optional leaves it out, and the require never runs under Bun.
        "pg-cloudflare",
      ],
      plugins: [startUpPlugin],
      throw: false,
    });
    if (!result.success) throw new Error(`bun build failed:\n${result.logs.map(String).join("\n")}`);
  } finally {
    process.chdir(workingDir);
  }
  if (target.os === "darwin") ensureValidSignature(outfile);
  return outfile;
}

/**
 * A darwin binary must carry a code signature that matches it, or macOS kills it at launch. Bun re-signs its
 * darwin-arm64 output ad hoc but leaves darwin-x64 with Oven's original signature, which no longer matches once
 * the __BUN segment is in (scripts/build/macho-signature.ts); such a binary is signed ad hoc afresh here.
 * @throws Error when the signature is still invalid
 */
function ensureValidSignature(binary: string): void {
  const report = checkSignature(readFileSync(binary));
  if (report.valid) return;
  const signed = signAdhoc(binary);
  process.stderr.write(
    `build: ${binary}: the signature did not match (${report.mismatchedPages.length} of ${report.codeSlots} pages, covering ${report.codeLimit} of ${report.signatureOffset} bytes${report.hardenedRuntime ? ", hardened runtime" : ""}); signed ad hoc: ${signed.codeSlots} pages\n`,
  );
}

/** Builds every requested target; prints one line per artefact on stderr. */
export async function build(options: BuildOptions): Promise<void> {
  const version = readPackageVersion(repo);
  const mtime = releaseTime(repo);
  mkdirSync(options.outDir, { recursive: true });
  if (options.archive && options.targets.length > 0)
    copyFileSync(join(repo, "install.sh"), join(options.outDir, "install.sh")); // a release asset: curl …/install.sh | sh
  for (const target of options.targets) {
    const started = performance.now();
    const embedDir = prepareEmbedDir(target, version);
    const binary = await compile(target, embedDir, options.outDir);
    process.stderr.write(
      `build: ${binary} (${(statSync(binary).size / 1e6).toFixed(1)} MB, ${((performance.now() - started) / 1000).toFixed(1)} s)\n`,
    );
    if (target.id === hostTargetId()) {
      const hostCopy = join(options.outDir, "recall");
      rmSync(hostCopy, { force: true });
      linkSync(binary, hostCopy);
    }
    if (options.archive) {
      const archive = await writeArchive(join(options.outDir, `recall-${target.id}`), options.outDir, target, mtime);
      process.stderr.write(`build: ${archive.path} sha256 ${archive.sha256}\n`);
    }
  }
  if (options.archive || options.formulaOnly) {
    const formula = writeFormula(repo, options.outDir, version, options.baseUrl);
    if ("path" in formula)
      process.stderr.write(`build: ${formula.path} (Homebrew tap, downloads from ${options.baseUrl})\n`);
    else
      process.stderr.write(
        `build: no Homebrew formula: no archive in ${options.outDir} for ${formula.missing.join(", ")} (build them with --target, or collect their .tar.gz.sha256 there and run --formula-only)\n`,
      );
    if (options.formulaOnly && !("path" in formula))
      throw new Error("the formula needs every platform's archive checksum");
  }
}

if (import.meta.main) {
  try {
    await build(parseArgs(process.argv.slice(2)));
  } catch (error) {
    process.stderr.write(`build: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

export { archiveName };
