/**
 * `recall search` through the embedding helper (issue 17's warm path), end to end with the CLI as a user runs it:
 * the first hybrid search starts the helper, later ones reuse it with the same answers as an in-process model, the
 * search process never waits for the helper's pipes, new turns are found at once by keyword and embedded by the
 * helper in the background, and the helper is stopped at the end (no process outlives this file).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { appendClaudeTurns, writeClaudeSession, type TestSession } from "../helpers/claude-writer.ts";
import { getTestModelPath } from "../helpers/models.ts";

const work = mkdtempSync(join(tmpdir(), "recall-search-helper-"));
const history = join(work, "claude", "projects");
const recallHome = join(work, "recall-home");
const helpers = join(recallHome, "helpers");
const sessionPath = join(history, "-work-net", "7d1c0b9e-5a55-4c1f-9d2e-3f4b5a6c7d8e.jsonl");
const session: TestSession = {
  sessionId: "7d1c0b9e-5a55-4c1f-9d2e-3f4b5a6c7d8e",
  cwd: "/work/net",
  turns: [
    {
      prompt: "the docker bridge network drops packets between containers",
      response: "Recreated the bridge network with a larger MTU; the containers talk again.",
    },
    { prompt: "add a healthcheck to the compose file", response: "Added a curl healthcheck with a 10 s interval." },
  ],
};
const state = writeClaudeSession(sessionPath, session);

function recall(args: string[], helper: "on" | "off") {
  const result = runCli([...args, "--claude-dir", history], {
    ...process.env,
    HOME: work,
    RECALL_HOME: recallHome,
    RECALL_MODEL: getTestModelPath(),
    RECALL_EMBED_HELPER: helper,
    RECALL_EMBED_HELPER_IDLE_MS: "120000",
  });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

const helperPids = (): number[] =>
  existsSync(helpers)
    ? readdirSync(helpers)
        .filter((name) => name.endsWith(".log"))
        .flatMap((name) =>
          [...readFileSync(join(helpers, name), "utf8").matchAll(/\(pid (\d+),/g)].map((match) => Number(match[1])),
        )
    : [];

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Documents without vectors: no chunks yet, or a chunk not embedded (the indexer's own definition). */
const pendingDocuments = (): number => {
  const db = new Database(join(recallHome, "index.sqlite"), { readonly: true });
  try {
    return db
      .query<{ n: number }, []>(
        "SELECT count(*) AS n FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id) OR EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id AND c.status IN (0, 2))",
      )
      .get()!.n;
  } finally {
    db.close();
  }
};

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await Bun.sleep(50)) if (condition()) return true;
  return condition();
}

afterAll(async () => {
  for (const pid of helperPids()) if (isAlive(pid)) process.kill(pid, "SIGTERM");
  await waitFor(() => helperPids().every((pid) => !isAlive(pid)), 10_000);
  rmSync(work, { recursive: true, force: true });
});

const topTurns = (stdout: string) =>
  (JSON.parse(stdout).results as Array<{ session_id: string; turn: number; score: number }>).map(
    (result) => `${result.session_id}:${result.turn}:${result.score.toFixed(6)}`,
  );

describe("recall search with the embedding helper", () => {
  test("no helper is started while it is off", () => {
    expect(recall(["index"], "off").code).toBe(0);
    const result = recall(["search", "docker bridge", "--json"], "off");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).mode).toBe("hybrid");
    expect(existsSync(helpers)).toBe(false);
  });

  test("the first search starts one helper and returns while it keeps running; the next searches reuse it with the answers of an in-process model", () => {
    const inProcess = recall(["search", "containers cannot reach each other", "--json", "--depth", "2"], "off");
    const first = recall(["search", "containers cannot reach each other", "--json", "--depth", "2"], "on");
    expect(first.code).toBe(0);
    expect(first.stderr).toBe("");
    const pids = helperPids();
    expect(pids).toHaveLength(1);
    // spawnSync returned (the search's stdout/stderr closed) while the helper still runs: it holds neither pipe
    expect(isAlive(pids[0]!)).toBe(true);
    expect(readdirSync(helpers).filter((name) => name.endsWith(".sock"))).toHaveLength(1);
    const second = recall(["search", "containers cannot reach each other", "--json", "--depth", "2"], "on");
    expect(helperPids()).toEqual(pids);
    expect(topTurns(first.stdout)).toEqual(topTurns(inProcess.stdout));
    expect(topTurns(second.stdout)).toEqual(topTurns(inProcess.stdout));
    expect(JSON.parse(second.stdout).mode).toBe("hybrid");
  });

  test("a turn appended since the last index is found by the next search at once, and the helper embeds it in the background", async () => {
    appendClaudeTurns(sessionPath, state, [
      {
        prompt: "rename the zebrafish telemetry exporter",
        response: "Renamed it to fishtrack and updated the imports.",
      },
    ]);
    const result = recall(["search", "zebrafish telemetry", "--json", "--depth", "2"], "on");
    expect(result.code).toBe(0);
    const top = JSON.parse(result.stdout).results[0];
    expect(`${top.session_id}:${top.turn}`).toBe(`${session.sessionId}:3`);
    const log = join(helpers, readdirSync(helpers).find((name) => name.endsWith(".log"))!);
    expect(await waitFor(() => /embedded \d+ chunk/.test(readFileSync(log, "utf8")), 20_000)).toBe(true);
    expect(pendingDocuments()).toBe(0);
  });

  test("`recall embed-helper --stop` stops it: it removes its socket and exits", async () => {
    const [pid] = helperPids();
    const result = runCli(["embed-helper", "--stop"], { ...process.env, HOME: work, RECALL_HOME: recallHome });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("stopped 1 embedding helper\n");
    expect(await waitFor(() => !isAlive(pid!), 10_000)).toBe(true);
    expect(readdirSync(helpers).filter((name) => name.endsWith(".sock"))).toEqual([]);
  });

  test("SIGTERM stops a helper the same way", async () => {
    expect(recall(["search", "healthcheck interval", "--json"], "on").code).toBe(0);
    const pid = helperPids().at(-1)!;
    expect(isAlive(pid)).toBe(true);
    process.kill(pid, "SIGTERM");
    expect(await waitFor(() => !isAlive(pid), 10_000)).toBe(true);
    expect(readdirSync(helpers).filter((name) => name.endsWith(".sock"))).toEqual([]);
  });
});
