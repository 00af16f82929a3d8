/**
 * Release targets of the compiled binary: which Bun runtime compiles it and which node-llama-cpp platform
 * package provides its native libraries. The versions come from package.json (node-llama-cpp and every
 * @node-llama-cpp/* package pinned to the same version, which node-llama-cpp checks; runtime-notes §8:
 * 3.21.1 is the newest version that has linux-x64, linux-arm64, mac-x64 and mac-arm64-metal packages).
 */

/** One release target. */
export interface BuildTarget {
  /** archive suffix and manifest name, e.g. "linux-x64" (matches install.sh's uname mapping) */
  id: string;
  os: "linux" | "darwin";
  arch: "x64" | "arm64";
  /** `bun build --compile --target=` value */
  bunTarget: string;
  /** npm package of the Bun runtime for cross-compiling (`@oven/bun-<os>-<arch>`) */
  bunRuntimePackage: string;
  /** npm package with node-llama-cpp's prebuilt binaries for this platform (holds `bins/<folder>/`) */
  llamaPackage: string;
}

/** Every supported target, by id. */
export const buildTargets: Record<string, BuildTarget> = {
  "linux-x64": {
    id: "linux-x64",
    os: "linux",
    arch: "x64",
    bunTarget: "bun-linux-x64",
    bunRuntimePackage: "@oven/bun-linux-x64",
    llamaPackage: "@node-llama-cpp/linux-x64",
  },
  "linux-arm64": {
    id: "linux-arm64",
    os: "linux",
    arch: "arm64",
    bunTarget: "bun-linux-arm64",
    bunRuntimePackage: "@oven/bun-linux-aarch64",
    llamaPackage: "@node-llama-cpp/linux-arm64",
  },
  "darwin-arm64": {
    id: "darwin-arm64",
    os: "darwin",
    arch: "arm64",
    bunTarget: "bun-darwin-arm64",
    bunRuntimePackage: "@oven/bun-darwin-aarch64",
    llamaPackage: "@node-llama-cpp/mac-arm64-metal",
  },
  "darwin-x64": {
    id: "darwin-x64",
    os: "darwin",
    arch: "x64",
    bunTarget: "bun-darwin-x64",
    bunRuntimePackage: "@oven/bun-darwin-x64",
    llamaPackage: "@node-llama-cpp/mac-x64",
  },
};

/** The target of the machine running the build (e.g. "linux-x64"), or undefined when unsupported. */
export function hostTargetId(): string | undefined {
  const os = process.platform === "darwin" ? "darwin" : process.platform === "linux" ? "linux" : undefined;
  const arch = process.arch === "x64" || process.arch === "arm64" ? process.arch : undefined;
  return os && arch ? `${os}-${arch}` : undefined;
}

/**
 * Resolves `--target` values ("linux-x64", "darwin-arm64", …, or "all") to targets; none → the host only.
 * @throws Error for an unknown target id
 */
export function resolveTargets(ids: readonly string[]): BuildTarget[] {
  if (ids.length === 0) {
    const host = hostTargetId();
    if (!host || !buildTargets[host])
      throw new Error(`no build target for ${process.platform}-${process.arch}; pass --target`);
    return [buildTargets[host]!];
  }
  const wanted = ids.includes("all") ? Object.keys(buildTargets) : ids;
  return wanted.map((id) => {
    const target = buildTargets[id];
    if (!target) throw new Error(`unknown target "${id}"; known: ${Object.keys(buildTargets).join(", ")}, all`);
    return target;
  });
}
