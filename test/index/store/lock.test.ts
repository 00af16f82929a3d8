import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IndexError } from "../../../src/errors.ts";
import { acquireIndexLock, readIndexLockHolder, tryAcquireIndexLock } from "../../../src/index/index.ts";
import { writeClaudeSession } from "../../helpers/claude-writer.ts";
import { repo, runCli, spawnCli } from "../../helpers/cli.ts";

const lockModule = join(repo, "src/index/store/lock.ts");
const work = mkdtempSync(join(tmpdir(), "recall-lock-"));
mkdirSync(join(work, "none")); // an empty OpenCode folder: a named folder must exist (issue 15)
afterAll(() => rmSync(work, { recursive: true, force: true }));

let counter = 0;
/** A lock path in a new folder of its own. */
function freshLockPath(): string {
  const dir = join(work, `lock-${++counter}`);
  mkdirSync(dir);
  return join(dir, "index.lock");
}

/** Starts another bun process that takes the lock, prints "locked", then sleeps `holdMs`; resolves once it holds it. */
async function startHolder(path: string, holdMs: number) {
  const script = `import { tryAcquireIndexLock } from ${JSON.stringify(lockModule)};
    const lock = tryAcquireIndexLock(${JSON.stringify(path)});
    console.log(lock ? "locked" : "busy");
    await Bun.sleep(${holdMs});`;
  const child = Bun.spawn([process.execPath, "-e", script], { cwd: repo, stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  expect(first.trim()).toBe("locked");
  return child;
}

describe("index lock released by the operating system (issue 9)", () => {
  test("a lock file naming a live but unrelated process (pid reuse after a reboot) does not block", async () => {
    const path = freshLockPath();
    const unrelated = Bun.spawn(["sleep", "30"]);
    try {
      writeFileSync(path, `${unrelated.pid}\n`, { mode: 0o600 });
      const lock = tryAcquireIndexLock(path);
      expect(lock).not.toBeNull();
      expect(readFileSync(path, "utf8").trim()).toBe(String(process.pid));
      lock!.release();
      const waited = await acquireIndexLock(path, 0);
      waited.release();
    } finally {
      unrelated.kill("SIGKILL");
    }
  });

  test("two takers in one process exclude each other; release is idempotent and frees the lock", () => {
    const path = freshLockPath();
    const first = tryAcquireIndexLock(path);
    expect(first).not.toBeNull();
    expect(tryAcquireIndexLock(path)).toBeNull();
    expect(readIndexLockHolder(path)).toEqual({ pid: process.pid });
    first!.release();
    first!.release();
    expect(readIndexLockHolder(path)).toBeNull();
    const second = tryAcquireIndexLock(path);
    expect(second).not.toBeNull();
    second!.release();
  });

  test("a live holder in another process blocks with INDEX_LOCKED naming its pid, and the hint says how to wait", async () => {
    const path = freshLockPath();
    const holder = await startHolder(path, 30_000);
    try {
      expect(tryAcquireIndexLock(path)).toBeNull();
      const error = await acquireIndexLock(path, 250).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(IndexError);
      expect((error as IndexError).code).toBe("INDEX_LOCKED");
      expect((error as IndexError).message).toBe(
        `another recall index run (process ${holder.pid}) is updating the index`,
      );
      expect((error as IndexError).hint).toContain("recall index --wait");
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
  });

  test("a waiter proceeds within a second after the holder is killed with SIGKILL", async () => {
    const path = freshLockPath();
    const holder = await startHolder(path, 60_000);
    const waiting = acquireIndexLock(path, 30_000).then((lock) => ({ lock, at: Date.now() }));
    await Bun.sleep(400);
    const killedAt = Date.now();
    holder.kill("SIGKILL");
    const { lock, at } = await waiting;
    expect(at - killedAt).toBeLessThan(1000);
    expect(readIndexLockHolder(path)).toEqual({ pid: process.pid });
    lock.release();
  });

  test("a waiter proceeds when the holder exits normally", async () => {
    const path = freshLockPath();
    const holder = await startHolder(path, 600);
    const started = Date.now();
    const lock = await acquireIndexLock(path, 30_000);
    expect(Date.now() - started).toBeGreaterThan(300);
    expect(await holder.exited).toBe(0);
    lock.release();
  });

  test("`recall index --wait` waits for a holder and indexes once it is killed; without --wait it exits 1 at once", async () => {
    const home = join(work, "cli-home");
    const root = join(work, "cli-claude");
    const id = "11111111-2222-4333-8444-555555555555";
    writeClaudeSession(join(root, "-home-dev-app", `${id}.jsonl`), {
      sessionId: id,
      cwd: "/home/dev/app",
      turns: [{ prompt: "why is the lock stuck", response: "pid reuse" }],
    });
    const env = { ...process.env, RECALL_HOME: home, HOME: work };
    const args = ["index", "--keyword-only", "--claude-dir", root, "--opencode-dir", join(work, "none")];
    mkdirSync(home, { mode: 0o700 }); // private, as recall would create it (no "open to other users" warning)
    const holder = await startHolder(join(home, "index.lock"), 60_000);
    const refused = runCli([...args, "--json"], env);
    expect(refused.exitCode).toBe(1);
    expect(JSON.parse(refused.stderr.trim().split("\n").at(-1)!).error).toMatchObject({
      code: "INDEX_LOCKED",
      message: `another recall index run (process ${holder.pid}) is updating the index`,
    });
    const waiter = spawnCli([...args, "--wait"], env, { stdout: "pipe", stderr: "pipe" });
    await Bun.sleep(1500);
    expect(waiter.exitCode).toBeNull(); // still waiting
    holder.kill("SIGKILL");
    expect(await waiter.exited).toBe(0);
    expect(await new Response(waiter.stderr).text()).toMatch(/indexed: 1 added/);
    expect(statSync(join(home, "index.lock")).mode & 0o777).toBe(0o600);
  });
});
