import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fillerText, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { repo, spawnCli } from "../../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-first-search-"));
mkdirSync(join(work, "none")); // an empty OpenCode folder: a named folder must exist (issue 15)
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Big enough that a first index takes a while (about 1-2 s here), so four searches started together overlap it.
const root = join(work, "claude");
for (let s = 0; s < 250; s++) {
  const id = `${String(s).padStart(8, "0")}-bbbb-4bbb-8bbb-${String(s).padStart(12, "0")}`;
  writeClaudeSession(join(root, `-home-dev-p${s % 5}`, `${id}.jsonl`), {
    sessionId: id,
    cwd: `/home/dev/p${s % 5}`,
    turns: Array.from({ length: 10 }, (_, t) => ({
      prompt: `${s % 10 === 3 ? "flaky websocket reconnect " : ""}question ${t} ${fillerText(s * 100 + t, 30)}`,
      response: fillerText(s * 1000 + t, 120),
      tools: [{ name: "Bash", input: { command: `make target-${t}` }, output: fillerText(t, 20) }],
    })),
  });
}
const sourceArgs = ["--claude-dir", root, "--opencode-dir", join(work, "none")];

function spawnRecall(args: string[], recallHome: string, extraEnv: Record<string, string> = {}) {
  return spawnCli(
    args,
    { ...process.env, RECALL_HOME: recallHome, HOME: work, ...extraEnv },
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
}

async function finished(child: ReturnType<typeof spawnRecall>) {
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** Starts a bun process that holds RECALL_HOME's index lock (as a running first index would) until killed. */
async function holdLock(recallHome: string) {
  mkdirSync(recallHome, { recursive: true, mode: 0o700 });
  const script = `import { tryAcquireIndexLock } from ${JSON.stringify(join(repo, "src/index/store/lock.ts"))};
    console.log(tryAcquireIndexLock(${JSON.stringify(join(recallHome, "index.lock"))}) ? "locked" : "busy");
    await Bun.sleep(60000);`;
  const child = Bun.spawn([process.execPath, "-e", script], { cwd: repo, stdout: "pipe" });
  expect(new TextDecoder().decode((await child.stdout.getReader().read()).value).trim()).toBe("locked");
  return child;
}

describe("concurrent first searches (issue 9)", () => {
  test("4 simultaneous first searches with no index yet all answer the same non-empty results (or fail clearly)", async () => {
    const home = join(work, "home-concurrent");
    const children = Array.from({ length: 4 }, () =>
      spawnRecall(["search", "flaky websocket reconnect", "--json", "--limit", "10", ...sourceArgs], home),
    );
    const outcomes = await Promise.all(children.map(finished));
    const answers: unknown[] = [];
    for (const outcome of outcomes) {
      if (outcome.code === 0) {
        const response = JSON.parse(outcome.stdout);
        expect(response.results.length).toBe(10);
        expect(response.searched.sessions).toBe(250);
        answers.push(response.results.map((hit: { session_id: string; score: number }) => [hit.session_id, hit.score]));
      } else {
        // The only acceptable failure is the clear "still building" error, never a silent empty answer.
        expect(outcome.code).toBe(1);
        expect(JSON.parse(outcome.stderr.trim().split("\n").at(-1)!).error.code).toBe("INDEX_BUILDING");
      }
    }
    expect(answers.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  }, 120_000);

  test("a first search whose wait for another first index runs out exits 1 with INDEX_BUILDING under --json", async () => {
    const home = join(work, "home-building");
    const holder = await holdLock(home);
    try {
      const started = Date.now();
      const result = await finished(
        spawnRecall(["search", "websocket", "--json", ...sourceArgs], home, { RECALL_FIRST_INDEX_WAIT_MS: "600" }),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(600);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      const error = JSON.parse(result.stderr.trim().split("\n").at(-1)!).error;
      expect(error.code).toBe("INDEX_BUILDING");
      expect(error.message).toBe(`the first index of ${home} is still being built (by process ${holder.pid})`);
      expect(error.hint).toContain("recall index --wait");

      const text = await finished(spawnRecall(["search", "websocket", "--no-reindex", ...sourceArgs], home));
      expect(text.code).toBe(1);
      expect(text.stderr).toContain("is still being built");
    } finally {
      holder.kill("SIGKILL");
    }
  });

  test("a first search waiting for another first index proceeds once that run is killed, and answers", async () => {
    const home = join(work, "home-killed-builder");
    const holder = await holdLock(home);
    const search = spawnRecall(["search", "flaky websocket reconnect", "--json", ...sourceArgs], home);
    await Bun.sleep(800);
    holder.kill("SIGKILL");
    const result = await finished(search);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("waiting for the first index");
    expect(JSON.parse(result.stdout).results.length).toBe(5);
  }, 60_000);
});
