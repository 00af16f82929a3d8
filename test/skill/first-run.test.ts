/**
 * The skill's first run, driven the way Claude Code's Bash tool runs a command: `sh <installed skill>/scripts/
 * first-run.sh` with no terminal, stdin closed, online, and a model host (a local HTTP server serving a generated
 * GGUF) that counts requests (issue 15: the first run downloaded the default model before asking, then embedded for
 * longer than a shell tool waits). The first step must finish with keyword search working and ZERO requests; the
 * step the user chose then downloads and embeds in the background while `--status` reports.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { cliCommand } from "../helpers/cli.ts";
import { getTestModelPath } from "../helpers/models.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";

const work = mkdtempSync(join(tmpdir(), "recall-first-run-"));
const home = join(work, "home");
const skill = join(home, ".claude", "skills", "recall");
const modelBytes = readFileSync(getTestModelPath()); // mean pooling, like all-minilm
const requests: string[] = [];
let server: Server<undefined>;

afterAll(() => {
  server?.stop(true);
  rmSync(work, { recursive: true, force: true });
});

/** The environment of the agent's shell: a user's HOME, online, the model host pointed at the local server. */
function shellEnv(): Record<string, string> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: home,
    PATH: "/usr/bin:/bin",
    RECALL_MODEL_BASE_URL: `http://127.0.0.1:${server.port}`,
    RECALL_EMBED_HELPER: "off",
    NO_COLOR: "1",
  };
  for (const key of [
    ...sourceLocationVariables,
    "RECALL_OFFLINE",
    "RECALL_HOME",
    "RECALL_MODEL",
    "EMBEDDINGS_URL",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "CLAUDE_CONFIG_DIR",
  ])
    delete env[key];
  return env as Record<string, string>;
}

/** Runs one command as the Bash tool does: no terminal, stdin closed, a time limit; async (the server is in this process). */
async function bashTool(
  command: string[],
  timeoutMs = 120_000,
): Promise<{ code: number; output: string; stdout: string; ms: number }> {
  const started = performance.now();
  const child = Bun.spawn(command, {
    cwd: home,
    env: shellEnv(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: timeoutMs,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, output: stdout + stderr, stdout, ms: performance.now() - started };
}

/** True while `pid` runs (Linux: a zombie waiting for a parent that never reaps counts as ended). */
function isRunning(pid: number): boolean {
  if (process.platform !== "linux") {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return stat !== "" && stat.replace(/^.*\) /, "")[0] !== "Z";
}

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      requests.push(new URL(request.url).pathname);
      return new Response(modelBytes, { headers: { "content-type": "application/octet-stream" } });
    },
  });
  writeClaudeSession(
    join(home, ".claude", "projects", "-home-dev-shop", "5a1e0000-0000-4000-8000-000000000001.jsonl"),
    {
      sessionId: "5a1e0000-0000-4000-8000-000000000001",
      cwd: "/home/dev/shop",
      turns: [
        {
          prompt: "the checkout page throws quagga_barcode_timeout on Safari",
          response: "The scanner times out because the camera stream never starts.",
        },
      ],
    },
  );
  const install = await bashTool([...cliCommand, "skill", "install"]);
  expect(install.code).toBe(0);
});

describe("the skill's first run in an agent's shell (no terminal, online)", () => {
  test("step 1 builds the keyword index and asks, with no download: zero requests to the model host", async () => {
    const first = await bashTool(["sh", join(skill, "scripts", "first-run.sh")]);
    expect(first.code).toBe(0);
    expect(first.output).toContain("== recall doctor");
    expect(first.output).toContain("keyword index (no model, nothing downloaded");
    expect(first.output).toContain("ask the user how recall should search by meaning");
    expect(first.output).toContain(`sh ${join(skill, "scripts", "first-run.sh")} --embed [PRESET]`);
    expect(requests).toEqual([]);
    const search = await bashTool([
      "sh",
      join(skill, "scripts", "recall.sh"),
      "search",
      "quagga_barcode_timeout",
      "--json",
    ]);
    expect(JSON.parse(search.stdout).results[0].session_id).toBe("5a1e0000-0000-4000-8000-000000000001");
    expect(requests).toEqual([]); // a search never downloads either
    console.log(`first step: ${Math.round(first.ms)} ms`);
  }, 180_000);

  test("--status before the choice says nothing runs", async () => {
    expect((await bashTool(["sh", join(skill, "scripts", "first-run.sh"), "--status"])).output).toContain(
      "embedding: not started",
    );
  });

  test("the chosen step returns at once, downloads and embeds in the background, and --status follows it to the end", async () => {
    const embed = await bashTool(["sh", join(skill, "scripts", "first-run.sh"), "--embed", "all-minilm-l6-v2"]);
    expect(embed.code).toBe(0);
    expect(embed.output).toContain("in the background");
    expect(embed.ms).toBeLessThan(10_000);
    expect(readFileSync(join(home, ".config", "recall", ".env"), "utf8")).toContain("RECALL_MODEL=all-minilm-l6-v2");
    let status = "";
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      status = (await bashTool(["sh", join(skill, "scripts", "first-run.sh"), "--status"])).output;
      if (!status.startsWith("embedding: running")) break;
      await Bun.sleep(250);
    }
    expect(status).toContain("embedding: finished");
    expect(status).toContain("next: sh");
    expect(requests.filter((path) => path.endsWith(".gguf"))).toHaveLength(1);
    const counts = JSON.parse((await bashTool(["sh", join(skill, "scripts", "recall.sh"), "status", "--json"])).stdout);
    expect(counts.chunks.embedded).toBeGreaterThan(0);
    expect(counts.chunks.pending).toBe(0);
    const pid = Number(readFileSync(join(skill, ".embed.pid"), "utf8"));
    for (let waited = 0; isRunning(pid) && waited < 3000; waited += 100) await Bun.sleep(100);
    expect(isRunning(pid)).toBe(false); // the background job has ended: nothing left running
  }, 180_000);

  test("--done records the setup", async () => {
    expect((await bashTool(["sh", join(skill, "scripts", "first-run.sh"), "--done"])).code).toBe(0);
    expect(existsSync(join(skill, ".setup-done"))).toBe(true);
  });
});
