/**
 * `recall doctor` on real indexes and real servers: every check's OK / WARN / FAIL, the fixes it names, the
 * JSON report, and exit code 1 only when a check fails. The example history is the source; RECALL_HOME and
 * HOME are private temp folders; the remote endpoint is a Bun.serve on 127.0.0.1.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkFolders,
  runDoctor,
  renderDoctorJson,
  renderDoctorText,
  renderRestoreJson,
  readCleanupPeriodDays,
  type CheckResult,
} from "../../src/doctor/index.ts";
import { openEmbedder } from "../../src/embed/index.ts";
import { runIndex } from "../../src/index/index.ts";
import { pathsUnder, resolveRecallPaths } from "../../src/home/paths.ts";
import { repo, runCli } from "../helpers/cli.ts";
import { getTestModelPath } from "../helpers/models.ts";

const work = mkdtempSync(join(tmpdir(), "recall-doctor-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const roots = {
  "claude-code": [join(repo, "examples", "claude-code")],
  opencode: [join(repo, "examples", "opencode")],
};
const offlineEnv = { RECALL_OFFLINE: "1" };

function byId(results: CheckResult[]): Record<string, CheckResult> {
  return Object.fromEntries(results.map((result) => [result.id, result]));
}

async function indexedHome(name: string, sourceRoots = roots): Promise<string> {
  const recallHome = join(work, name);
  await runIndex({ recallHome, roots: sourceRoots });
  return recallHome;
}

describe("recall doctor checks", () => {
  test("before any index: sources OK, index WARN with `recall index` as the fix, no vectors line", async () => {
    const results = byId(
      await runDoctor({ recallHome: join(work, "empty"), roots, env: offlineEnv, home: join(work, "nohome") }),
    );
    expect(results.sources?.status).toBe("ok");
    expect(results.sources?.message).toContain("claude-code: 9 file(s)");
    expect(results.index).toMatchObject({ status: "warn", fix: "run `recall index`" });
    expect(results.vectors).toBeUndefined();
  });

  test("after an index: SQLite and FTS5 integrity pass, vectors match, and the report says so in text and JSON", async () => {
    const recallHome = await indexedHome("indexed");
    const results = await runDoctor({ recallHome, roots, env: offlineEnv, home: join(work, "nohome") });
    const checks = byId(results);
    expect(checks.index?.status).toBe("ok");
    expect(checks.index?.message).toContain("13 sessions indexed");
    expect(checks.vectors?.status).toBe("ok");
    expect(checks.vectors?.message).toContain("dot product: simsimd");
    const json = JSON.parse(renderDoctorJson(results));
    expect(json.version).toBe(1); // as every other --json (issue 38, item 20)
    expect(json.ok).toBe(true);
    expect(json.checks.map((check: { id: string }) => check.id)).toEqual([
      "sources",
      "unread",
      "folders",
      "index",
      "snapshot",
      "not-kept",
      "vectors",
      "model",
      "calibration",
      "summaries",
      "tuning",
      "cleanup",
    ]);
    expect(renderDoctorText(results)).toMatch(/^OK {3}sources/m);
  }, 60_000);

  test("vectors: embedded chunks match the segment files, and deleting the files turns the check to WARN with a re-embed fix", async () => {
    const recallHome = join(work, "with-vectors");
    const modelFlag = getTestModelPath();
    await runIndex({
      recallHome,
      roots,
      openEmbedder: () => openEmbedder({ env: offlineEnv, home: recallHome, modelFlag }),
    });
    const healthy = byId(
      await runDoctor({ recallHome, roots, env: offlineEnv, home: join(work, "nohome"), modelFlag }),
    );
    expect(healthy.vectors?.status).toBe("ok");
    const embedded = /turn: (\d+) embedded, (\d+) stored/.exec(healthy.vectors!.message);
    expect(Number(embedded?.[1])).toBeGreaterThan(0);
    expect(embedded?.[2]).toBe(embedded?.[1]);
    rmSync(join(recallHome, "vectors"), { recursive: true, force: true });
    const broken = byId(await runDoctor({ recallHome, roots, env: offlineEnv, home: join(work, "nohome"), modelFlag }));
    expect(broken.vectors?.status).toBe("warn");
    expect(broken.vectors?.message).toContain("have no vector");
    expect(broken.vectors?.fix).toContain("recall index --full");
  }, 60_000);

  test("a damaged database is a FAIL with the rebuild command, and the CLI exits 1 with the JSON report on stdout", async () => {
    const recallHome = await indexedHome("damaged");
    const db = join(recallHome, "index.sqlite");
    const bytes = await Bun.file(db).bytes();
    for (let offset = 4096; offset < bytes.length; offset += 97) bytes[offset] = 0xff; // trash every page after the header
    writeFileSync(db, bytes);
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    const checks = byId(await runDoctor({ recallHome, roots, env: offlineEnv, home: join(work, "nohome") }));
    expect(checks.index?.status).toBe("fail");
    expect(checks.index?.fix).toContain("recall index --full");
    const cli = runCli(
      ["doctor", "--json", "--claude-dir", roots["claude-code"][0]!, "--opencode-dir", roots.opencode[0]!],
      { ...process.env, RECALL_HOME: recallHome, HOME: join(work, "nohome") },
    );
    expect(cli.exitCode).toBe(1);
    expect(JSON.parse(cli.stdout).ok).toBe(false);
    expect(JSON.parse(cli.stderr).error.code).toBe("INDEX_CORRUPT");
    // One failed check is "1 check", not "1 check(s)" (issue 26).
    expect(JSON.parse(cli.stderr).error.message).toMatch(/^doctor: 1 check failed \(index\)$/);
  }, 60_000);

  test("a model path that does not exist FAILs; a generated model is read from its header, and loaded with --check-model", async () => {
    const home = join(work, "nohome");
    const missing = byId(
      await runDoctor({
        recallHome: join(work, "m1"),
        roots,
        env: offlineEnv,
        home,
        modelFlag: join(work, "nope.gguf"),
      }),
    );
    expect(missing.model).toMatchObject({ status: "fail", errorCode: "MODEL_MISSING" });
    const header = byId(
      await runDoctor({ recallHome: join(work, "m1"), roots, env: offlineEnv, home, modelFlag: getTestModelPath() }),
    );
    expect(header.model?.status).toBe("ok");
    expect(header.model?.message).toContain("64 dims, mean pooling");
    expect(header.model?.message).toContain("not loaded");
    const loaded = byId(
      await runDoctor({
        recallHome: join(work, "m1"),
        roots,
        env: offlineEnv,
        home,
        modelFlag: getTestModelPath(),
        loadModel: true,
      }),
    );
    expect(loaded.model?.message).toMatch(/embedded a probe \(64 dims\)/);
  }, 60_000);

  test("a configured endpoint is called once when online, reported FAIL when it errors, and never called under RECALL_OFFLINE=1", async () => {
    let requests = 0;
    let fail = false;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch() {
        requests++;
        return fail
          ? new Response("boom", { status: 500 })
          : Response.json({ data: [{ index: 0, embedding: [0.6, 0.8, 0] }] });
      },
    });
    try {
      const env = { EMBEDDINGS_URL: `http://127.0.0.1:${server.port}/v1`, RECALL_OFFLINE: "0" };
      const ok = byId(await runDoctor({ recallHome: join(work, "e1"), roots, env, home: join(work, "nohome") }));
      expect(ok.endpoint).toMatchObject({ status: "ok" });
      expect(ok.endpoint?.message).toContain("3 dims");
      fail = true;
      const failed = byId(await runDoctor({ recallHome: join(work, "e1"), roots, env, home: join(work, "nohome") }));
      expect(failed.endpoint).toMatchObject({ status: "fail", errorCode: "ENDPOINT_UNREACHABLE" });
      expect(failed.endpoint?.message).toContain("HTTP 500");
      expect(requests).toBe(2);
      // RECALL_OFFLINE=1 forbids an endpoint off this machine (not called, WARN) but not one on loopback (checked).
      const offline = byId(
        await runDoctor({
          recallHome: join(work, "e1"),
          roots,
          env: { EMBEDDINGS_URL: "http://10.0.0.2:9/v1", RECALL_OFFLINE: "1" },
          home: join(work, "nohome"),
        }),
      );
      expect(offline.endpoint?.status).toBe("warn");
      expect(requests).toBe(2);
      const loopback = byId(
        await runDoctor({
          recallHome: join(work, "e1"),
          roots,
          env: { ...env, RECALL_OFFLINE: "1" },
          home: join(work, "nohome"),
        }),
      );
      expect(loopback.endpoint).toMatchObject({ status: "fail", errorCode: "ENDPOINT_UNREACHABLE" });
      expect(requests).toBe(3);
      // The endpoint's model ("default") has no calibration: doctor says what that means.
      expect(loopback.calibration).toMatchObject({ status: "warn" });
      expect(loopback.calibration?.message).toContain(
        "default has no calibration: hybrid search uses the conservative default",
      );
    } finally {
      server.stop(true);
    }
  }, 60_000);
});

describe("the Claude Code cleanup-period warning", () => {
  test("reads cleanupPeriodDays from settings.json, 30 when unset or unreadable", () => {
    const dir = join(work, "settings");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "a.json"), '{"cleanupPeriodDays": 7}');
    writeFileSync(join(dir, "bad.json"), "{not json");
    writeFileSync(join(dir, "none.json"), '{"theme": "dark"}');
    expect(readCleanupPeriodDays([join(dir, "bad.json"), join(dir, "a.json")])).toEqual({
      days: 7,
      from: join(dir, "a.json"),
    });
    expect(readCleanupPeriodDays([join(dir, "none.json"), join(dir, "missing.json")])).toEqual({
      days: 30,
      from: undefined,
    });
  });

  test("warns with the days left when history older than the period is not indexed, and is OK once it is", async () => {
    const home = join(work, "cleanup-home");
    const projects = join(home, ".claude", "projects");
    cpSync(join(repo, "examples", "claude-code", "projects"), projects, { recursive: true });
    writeFileSync(join(home, ".claude", "settings.json"), '{"cleanupPeriodDays": 10}');
    const old = join(projects, "-home-dev-src-tidy-rs", "938e69b8-d823-4d86-8dca-2ae00303666c.jsonl");
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000 + 3_600_000); // 7 days 23 h: 2 whole days left
    utimesSync(old, eightDaysAgo, eightDaysAgo);
    const homeRoots = { "claude-code": [projects], opencode: [] as string[] };
    const recallHome = join(work, "cleanup-recall");
    const before = byId(await runDoctor({ recallHome, roots: homeRoots, env: offlineEnv, home }));
    expect(before.cleanup?.status).toBe("warn");
    expect(before.cleanup?.message).toContain("9 Claude Code session file(s) are not indexed yet");
    expect(before.cleanup?.message).toContain("about 2 day(s)");
    expect(before.cleanup?.message).toContain(`cleanupPeriodDays = 10 in ${join(home, ".claude", "settings.json")}`);
    expect(before.cleanup?.fix).toContain("recall index");
    await runIndex({ recallHome, roots: homeRoots });
    const after = byId(await runDoctor({ recallHome, roots: homeRoots, env: offlineEnv, home }));
    expect(after.cleanup?.status).toBe("ok");
  }, 60_000);
});

describe("doctor's folders check (issue 15)", () => {
  const base = mkdtempSync(join(tmpdir(), "recall-doctor-folders-"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  test("a .env others can read WARNs with chmod 600; once it is 0600 the folders are OK", () => {
    const paths = resolveRecallPaths({
      HOME: base,
      XDG_CONFIG_HOME: join(base, "config"),
      XDG_DATA_HOME: join(base, "data"),
      XDG_CACHE_HOME: join(base, "cache"),
    });
    for (const dir of [paths.data, paths.config, paths.cache]) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const dotEnv = join(paths.config, ".env");
    writeFileSync(dotEnv, "EMBEDDINGS_API_KEY=sk-test\n", { mode: 0o644 });
    Bun.spawnSync(["chmod", "644", dotEnv]);
    const open = checkFolders(paths);
    expect(open.status).toBe("warn");
    expect(open.message).toContain(`${dotEnv} is readable by other users (mode 644)`);
    expect(open.fix).toBe(`chmod 600 ${dotEnv}`);
    Bun.spawnSync(["chmod", "600", dotEnv]);
    expect(checkFolders(paths).status).toBe("ok");
  });

  test("a file where the folder should be is a FAIL in words, not an ENOTDIR crash", () => {
    const file = join(base, "a-file");
    writeFileSync(file, "x");
    const result = checkFolders(pathsUnder(join(file, "recall")));
    expect(result.status).toBe("fail");
    expect(result.message).toBe(
      `cannot use ${join(file, "recall")} as recall's folder: a file is in the way on its path (${file})`,
    );
  });
});

describe("doctor's JSON reports carry the contract version (issue 38, item 20)", () => {
  test("the text summary counts one check and one warning in the singular (issue 38, item 18)", () => {
    const results: CheckResult[] = [
      { id: "index", status: "fail", message: "damaged" },
      { id: "model", status: "warn", message: "none" },
    ];
    expect(renderDoctorText(results).trimEnd().split("\n").at(-1)).toBe("1 check failed, 1 warning");
    expect(renderDoctorText([results[1]!]).trimEnd().split("\n").at(-1)).toBe("no failures, 1 warning");
  });

  test("a restore's JSON starts with version 1, as search, show and the checks' report do", () => {
    const json = JSON.parse(
      renderRestoreJson({
        snapshot: {
          dir: "/d/snapshots/snapshot-0",
          databasePath: "/d/snapshots/snapshot-0/index.sqlite",
          takenAtMs: 0,
          databaseBytes: 1,
          vectorBytes: 0,
          sessions: 3,
        },
        setAside: undefined,
        databasePath: "/d/index.sqlite",
      }),
    );
    expect(json).toEqual({
      version: 1,
      restored: {
        snapshot_taken_at: "1970-01-01T00:00:00.000Z",
        sessions: 3,
        database: "/d/index.sqlite",
        set_aside: null,
      },
      next: "recall index",
    });
  });
});
