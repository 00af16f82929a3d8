/**
 * install.sh against a local HTTP server (Bun.serve on 127.0.0.1) serving a release archive and its checksum:
 * a good archive is installed into RECALL_INSTALL_DIR with a PATH hint, a bad checksum or a missing file aborts
 * with nothing installed. The archive holds a tiny stand-in `recall` script, so no build is needed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Server } from "bun";
import { hashFile } from "../../scripts/build/release.ts";
import { hostTarget } from "./build-once.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-install-"));
const archiveName = `recall-${hostTarget}.tar.gz`;
let server: Server<undefined>;
let requests: string[] = [];
/** What the server answers per path; tests swap it. */
let files: Record<string, Uint8Array | string> = {};

beforeAll(() => {
  const stage = join(work, "stage");
  mkdirSync(stage);
  writeFileSync(join(stage, "recall"), '#!/bin/sh\necho "9.9.9-test"\n');
  chmodSync(join(stage, "recall"), 0o755);
  expect(Bun.spawnSync(["tar", "-czf", join(work, archiveName), "-C", stage, "recall"]).exitCode).toBe(0);
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      requests.push(path);
      const body = files[path];
      return body === undefined ? new Response("not found", { status: 404 }) : new Response(body);
    },
  });
});
afterAll(() => {
  server.stop(true);
  rmSync(work, { recursive: true, force: true });
});

/** Runs install.sh asynchronously (a spawnSync would block this process's server and hang curl). */
async function runInstall(installDir: string, path = "/usr/bin:/bin") {
  const child = Bun.spawn(["sh", join(repo, "install.sh")], {
    env: {
      PATH: path,
      HOME: join(work, "home"),
      RECALL_INSTALL_DIR: installDir,
      RECALL_RELEASE_URL: `http://127.0.0.1:${server.port}/releases/v9`,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code, output: stdout + stderr };
}

describe("install.sh", () => {
  test("downloads this platform's archive, verifies it, installs recall and says how to put it on PATH", async () => {
    const archive = readFileSync(join(work, archiveName));
    files = {
      [`/releases/v9/${archiveName}`]: archive,
      [`/releases/v9/${archiveName}.sha256`]: `${hashFile(join(work, archiveName))}  ${archiveName}\n`,
    };
    requests = [];
    const installDir = join(work, "bin-ok");
    const result = await runInstall(installDir);
    expect(result.code).toBe(0);
    expect(requests).toEqual([`/releases/v9/${archiveName}`, `/releases/v9/${archiveName}.sha256`]);
    expect(
      Bun.spawnSync([join(installDir, "recall")])
        .stdout.toString()
        .trim(),
    ).toBe("9.9.9-test");
    expect(result.output).toContain("9.9.9-test");
    expect(result.output).toContain(`export PATH="${installDir}:$PATH"`);
    expect((await runInstall(installDir, `${installDir}:/usr/bin:/bin`)).output).not.toContain("is not on your PATH");
  }, 30_000);

  test("a checksum that does not match aborts the install and installs nothing", async () => {
    files = {
      [`/releases/v9/${archiveName}`]: readFileSync(join(work, archiveName)),
      [`/releases/v9/${archiveName}.sha256`]: `${"0".repeat(64)}  ${archiveName}\n`,
    };
    const installDir = join(work, "bin-bad");
    const result = await runInstall(installDir);
    expect(result.code).toBe(1);
    expect(result.output).toContain("checksum mismatch");
    expect(existsSync(join(installDir, "recall"))).toBe(false);
  }, 30_000);

  test("a missing archive or checksum file aborts with the URL that failed", async () => {
    files = { [`/releases/v9/${archiveName}`]: readFileSync(join(work, archiveName)) };
    const installDir = join(work, "bin-missing");
    const result = await runInstall(installDir);
    expect(result.code).toBe(1);
    expect(result.output).toContain(
      `download failed: http://127.0.0.1:${server.port}/releases/v9/${archiveName}.sha256`,
    );
    expect(existsSync(join(installDir, "recall"))).toBe(false);
  }, 30_000);
});
