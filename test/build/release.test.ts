/**
 * Release files without building the binary (issue 15): archives are reproducible and written without GNU tar;
 * the Homebrew tap is written only with every platform's checksum, and each of its URLs, pointed at a local HTTP
 * server through RECALL_RELEASE_URL, downloads a file with the sha256 the formula states; install.sh reads the
 * same variable. Stand-in binaries (small shell scripts) keep it fast.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { list as listTar } from "tar";
import type { Server } from "bun";
import {
  archiveName,
  fallbackReleaseTime,
  formulaTargets,
  hashFile,
  releaseTime,
  releaseUrl,
  writeArchive,
  writeFormula,
} from "../../scripts/build/release.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-release-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A folder holding a stand-in `recall` for `id`, with the given file mtime. */
function standIn(id: string, mtimeSeconds: number): string {
  const dir = join(work, "bin", `${id}-${mtimeSeconds}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "recall"), `#!/bin/sh\necho "recall ${id}"\n`);
  chmodSync(join(dir, "recall"), 0o700);
  utimesSync(join(dir, "recall"), mtimeSeconds, mtimeSeconds);
  return dir;
}

/** Every entry of a .tar.gz as the tar library reads it. */
async function entriesOf(path: string): Promise<
  Array<{
    path: string;
    mode: number;
    uid: number | null;
    gid: number | null;
    uname: string;
    mtime: number;
    type: string;
  }>
> {
  const entries: Array<{
    path: string;
    mode: number;
    uid: number | null;
    gid: number | null;
    uname: string;
    mtime: number;
    type: string;
  }> = [];
  await listTar({
    file: path,
    onReadEntry: (entry) =>
      entries.push({
        path: entry.path,
        mode: entry.mode ?? -1,
        uid: entry.uid ?? null,
        gid: entry.gid ?? null,
        uname: entry.uname ?? "",
        mtime: entry.mtime?.getTime() ?? -1,
        type: entry.type,
      }),
  });
  return entries;
}

describe("reproducible archives (no GNU tar)", () => {
  const mtime = new Date(Date.UTC(2026, 10, 20, 8, 0, 0));

  test("the same binary packed twice, with other file times and from another folder, gives the same bytes", async () => {
    const first = join(work, "dist-a");
    const second = join(work, "dist-b");
    mkdirSync(first, { recursive: true });
    mkdirSync(second, { recursive: true });
    const a = await writeArchive(standIn("linux-x64", 1_700_000_000), first, "linux-x64", mtime);
    const previousCwd = process.cwd();
    process.chdir(second);
    try {
      const b = await writeArchive(standIn("linux-x64", 1_760_000_000), second, "linux-x64", mtime);
      expect(b.sha256).toBe(a.sha256);
    } finally {
      process.chdir(previousCwd);
    }
    expect(readFileSync(`${a.path}.sha256`, "utf8")).toBe(`${a.sha256}  ${archiveName("linux-x64")}\n`);
  });

  test("one entry `recall`, mode 755, no owner recorded (tar lists 0/0), the fixed mtime; gzip without a timestamp", async () => {
    const dist = join(work, "dist-c");
    mkdirSync(dist, { recursive: true });
    const { path } = await writeArchive(standIn("darwin-arm64", 1_700_000_000), dist, "darwin-arm64", mtime);
    expect(await entriesOf(path)).toEqual([
      { path: "recall", mode: 0o755, uid: null, gid: null, uname: "", mtime: mtime.getTime(), type: "File" },
    ]);
    const listing = Bun.spawnSync(["tar", "-tvzf", path], { env: { ...process.env, TZ: "UTC" } });
    if (listing.exitCode === 0)
      expect(listing.stdout.toString()).toMatch(/^-rwxr-xr-x 0\/0 .* 2026-11-20 08:00 recall\n$/);
    const header = readFileSync(path).subarray(0, 10);
    expect([header[0], header[1]]).toEqual([0x1f, 0x8b]); // gzip magic (RFC 1952 §2.3.1)
    expect(header.readUInt32LE(4)).toBe(0); // MTIME: none
    expect(header[9]).toBe(255); // OS: unknown, the same on every build machine
  });

  test("the entry time is SOURCE_DATE_EPOCH, else the HEAD commit's time, else a fixed date", () => {
    expect(releaseTime(repo, { SOURCE_DATE_EPOCH: "1767225600" }).toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(() => releaseTime(repo, { SOURCE_DATE_EPOCH: "yesterday" })).toThrow(
      "SOURCE_DATE_EPOCH must be whole seconds",
    );
    const head = Number(Bun.spawnSync(["git", "log", "-1", "--format=%ct"], { cwd: repo }).stdout.toString().trim());
    expect(releaseTime(repo, {}).getTime()).toBe(head * 1000);
    expect(releaseTime(work, {})).toEqual(fallbackReleaseTime); // not a git checkout
  });
});

describe("the Homebrew tap and the release URL", () => {
  const dist = join(work, "dist-all");
  let server: Server<undefined>;
  const requested: string[] = [];

  beforeAll(async () => {
    mkdirSync(dist, { recursive: true });
    for (const id of formulaTargets) await writeArchive(standIn(id, 1_700_000_000), dist, id, fallbackReleaseTime);
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const name = new URL(request.url).pathname.replace(/^\/releases\/v9\//, "");
        requested.push(name);
        const file = join(dist, name);
        return name.includes("/") || !existsSync(file)
          ? new Response("not found", { status: 404 })
          : new Response(Bun.file(file));
      },
    });
  });
  afterAll(() => server.stop(true));

  test("RECALL_RELEASE_URL sets the base URL (a trailing / dropped); the default is the GitHub release of the version", () => {
    expect(releaseUrl({}, "1.2.3")).toBe("https://github.com/recall-cli/recall/releases/download/v1.2.3");
    expect(releaseUrl({ RECALL_RELEASE_URL: "http://mirror.test/recall/" }, "1.2.3")).toBe("http://mirror.test/recall");
  });

  test("with every archive present, the tap's formula has no placeholder and each URL downloads the file its sha256 names", async () => {
    const base = `http://127.0.0.1:${server.port}/releases/v9`;
    const written = writeFormula(repo, dist, "9.9.9", base);
    expect(written).toEqual({ path: join(dist, "homebrew-recall", "Formula", "recall.rb") });
    const formula = readFileSync(join(dist, "homebrew-recall", "Formula", "recall.rb"), "utf8");
    expect(formula).not.toContain("@@");
    expect(formula).toContain('version "9.9.9"');
    const pairs = [...formula.matchAll(/url "([^"]+)"\s+sha256 "([0-9a-f]{64})"/g)].map((match) => ({
      url: match[1]!,
      sha256: match[2]!,
    }));
    expect(pairs).toHaveLength(formulaTargets.length);
    for (const { url, sha256 } of pairs) {
      const response = await fetch(url);
      expect({ url, status: response.status }).toEqual({ url, status: 200 });
      expect(new Bun.CryptoHasher("sha256").update(await response.arrayBuffer()).digest("hex")).toBe(sha256);
    }
    expect([...requested].sort()).toEqual(formulaTargets.map((id) => archiveName(id)).sort());
  });

  test("with an archive missing, no formula is written and the build names what is missing", () => {
    const partial = join(work, "dist-partial");
    mkdirSync(partial, { recursive: true });
    for (const id of ["linux-x64", "darwin-arm64"])
      writeFileSync(join(partial, `${archiveName(id)}.sha256`), readFileSync(join(dist, `${archiveName(id)}.sha256`)));
    expect(writeFormula(repo, partial, "9.9.9", "https://example.test")).toEqual({
      missing: ["darwin-x64", "linux-arm64"],
    });
    expect(existsSync(join(partial, "homebrew-recall"))).toBe(false);
    const cli = Bun.spawnSync([process.execPath, "scripts/build.ts", "--formula-only", "--out", partial], {
      cwd: repo,
      env: { ...process.env, RECALL_RELEASE_URL: "https://example.test/r" },
    });
    expect(cli.exitCode).toBe(1);
    expect(cli.stderr.toString()).toContain("no archive in");
    expect(cli.stderr.toString()).toContain("darwin-x64, linux-arm64");
    const complete = Bun.spawnSync([process.execPath, "scripts/build.ts", "--formula-only", "--out", dist], {
      cwd: repo,
      env: { ...process.env, RECALL_RELEASE_URL: "https://example.test/r/" },
    });
    expect(complete.exitCode).toBe(0);
    expect(readFileSync(join(dist, "homebrew-recall", "Formula", "recall.rb"), "utf8")).toContain(
      'url "https://example.test/r/recall-linux-x64.tar.gz"',
    );
  });
});

describe("install.sh reads the same release URL", () => {
  test("RECALL_RELEASE_URL is where it downloads from, with or without a trailing /", async () => {
    const dist = join(work, "dist-install");
    mkdirSync(dist, { recursive: true });
    const host = `${process.platform === "darwin" ? "darwin" : "linux"}-${process.arch === "arm64" ? "arm64" : "x64"}`;
    await writeArchive(standIn(host, 1_700_000_000), dist, host, fallbackReleaseTime);
    const seen: string[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        const name = new URL(request.url).pathname.slice("/mirror/".length);
        seen.push(new URL(request.url).pathname);
        return existsSync(join(dist, name))
          ? new Response(Bun.file(join(dist, name)))
          : new Response("no", { status: 404 });
      },
    });
    try {
      const installDir = join(work, "installed");
      const child = Bun.spawn(["sh", join(repo, "install.sh")], {
        env: {
          PATH: "/usr/bin:/bin",
          HOME: work,
          RECALL_INSTALL_DIR: installDir,
          RECALL_RELEASE_URL: `http://127.0.0.1:${server.port}/mirror/`,
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(await child.exited).toBe(0);
      expect(seen).toEqual([`/mirror/${archiveName(host)}`, `/mirror/${archiveName(host)}.sha256`]);
      expect(
        Bun.spawnSync([join(installDir, "recall")])
          .stdout.toString()
          .trim(),
      ).toBe(`recall ${host}`);
      expect(hashFile(join(dist, archiveName(host)))).toBe(
        readFileSync(join(dist, `${archiveName(host)}.sha256`), "utf8").split(" ")[0]!,
      );
    } finally {
      server.stop(true);
    }
  }, 30_000);
});
