/**
 * Types of platform-packages.mjs, which stays plain ESM because it runs under Node at install time, before Bun
 * exists. Each declaration mirrors the JSDoc of the function it describes there.
 */

/** Platform packages of one host: Bun's runtime, node-llama-cpp's prebuilt binaries, Biome's binary. */
export interface HostPackages {
  bun: string;
  llama: string;
  biome: string;
}

/** Platform packages per host, keyed `<process.platform>-<process.arch>`. */
export const hostPackages: Record<string, HostPackages>;

/** The platform packages of a host, or undefined when recall has no build for it (musl Linux, Windows, FreeBSD). */
export function packagesForHost(platform: string, arch: string, isMusl: boolean): HostPackages | undefined;

/** node-llama-cpp's GPU builds per host and RECALL_GPU value. */
export const gpuPackages: Record<string, Record<string, string[]>>;

/**
 * The GPU packages RECALL_GPU asks for on a host: [] when unset, empty or "none".
 * @throws Error naming the accepted values when `gpu` is not one of them on this host
 */
export function gpuPackagesForHost(platform: string, arch: string, gpu: string | undefined): string[];

/**
 * `{version, integrity}` of `node_modules/<name>` in a package-lock.json object.
 * @throws Error when the lock has no such entry or the entry has no integrity
 */
export function lockedPackage(lock: unknown, name: string): { version: string; integrity: string };

/** True when `bytes` match an SRI string such as "sha512-<base64>" (one of several space-separated hashes). */
export function matchesIntegrity(bytes: Uint8Array, integrity: string): boolean;

/**
 * Installs `name` at its locked version into `<repo>/node_modules/<name>`; returns the package folder.
 * @throws Error when npm cannot fetch it or the tarball does not match the lock
 */
export function installLockedPackage(repo: string, lock: unknown, name: string): string;

/** Links Bun's platform runtime where Bun's npm shim looks for it; returns the linked path. */
export function linkBunRuntime(repo: string, runtimePackageDir: string): string;
