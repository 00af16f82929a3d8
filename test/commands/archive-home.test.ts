/**
 * Issue 9, through the real CLI: the archive lives in $XDG_DATA_HOME/recall (moved once from ~/.cache/recall,
 * safely when several recall processes start together), every folder is 0700 and every file 0600 even under
 * umask 000, RECALL_HOME at a file or a shared folder is handled in words without chmodding anything, and a
 * damaged index is named (search, index, doctor exit 1 with INDEX_CORRUPT), restored from its snapshot or rebuilt.
 * HOME and RECALL_HOME are temp folders; the example history is the source.
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { repo, runCli, spawnCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-archive-home-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const sources = ["--claude-dir", join(repo, "examples/claude-code"), "--opencode-dir", join(repo, "examples/opencode")];
let counter = 0;
const fresh = (name: string) => join(work, `${name}-${++counter}`);

/** The environment of a user with HOME at `home`: nothing else points recall anywhere unless `extra` says so. */
function userEnv(home: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: home,
    NO_COLOR: "1",
    RECALL_OFFLINE: "1",
    ...extra,
  };
  for (const key of [...sourceLocationVariables, "RECALL_HOME", "XDG_CACHE_HOME"]) {
    if (!(key in extra)) delete env[key];
  }
  return env;
}

function recall(args: string[], env: Record<string, string | undefined>, umask?: string) {
  const prefix = umask ? ["sh", "-c", `umask ${umask}; exec "$0" "$@"`] : [];
  const result = runCli(args, env, { prefix });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** Every entry below `dir` with its permission bits. */
function modes(dir: string): Array<[string, string, number]> {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((name) => {
      const stat = lstatSync(join(dir, name));
      return [name, stat.isDirectory() ? "dir" : "file", stat.mode & 0o777] as [string, string, number];
    });
}

const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at .*:\d+/);

describe("issue 9: where the archive lives and who can read it", () => {
  test("under umask 000, a first index creates the XDG data folder and everything in it 0700 / 0600", () => {
    const home = fresh("umask");
    mkdirSync(home);
    const result = recall(["index", ...sources], userEnv(home), "000");
    expect(result.code).toBe(0);
    const data = join(home, ".local", "share", "recall");
    for (const dir of [join(home, ".local"), join(home, ".local", "share"), data])
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    const entries = modes(data);
    expect(entries.map(([name]) => name)).toContain("index.sqlite");
    expect(entries.some(([name]) => name.startsWith("snapshots/snapshot-") && name.endsWith("index.sqlite"))).toBe(
      true,
    );
    for (const [name, kind, mode] of entries)
      expect(`${name} ${mode.toString(8)}`).toBe(`${name} ${kind === "dir" ? "700" : "600"}`);
    expect(existsSync(join(home, ".cache", "recall", "index.sqlite"))).toBe(false);
  }, 60_000);

  test("RECALL_HOME at a regular file fails in one line (exit 1, no stack) and the file keeps its mode and bytes", () => {
    const file = fresh("file");
    writeFileSync(file, "not a folder");
    chmodSync(file, 0o644);
    for (const command of [["search", "docker"], ["index"], ["status"]]) {
      const result = recall([...command, ...sources], userEnv(work, { RECALL_HOME: file }));
      expect(result.code).toBe(1);
      expect(result.stderr).toStartWith(
        `recall: cannot use ${file} as recall's folder: it is a file, not a folder\nhint: `,
      );
      noStack(result.stderr);
    }
    const json = recall(["search", "docker", "--json", ...sources], userEnv(work, { RECALL_HOME: file }));
    expect(JSON.parse(json.stderr).error.code).toBe("HOME_UNUSABLE");
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(readFileSync(file, "utf8")).toBe("not a folder");
  }, 60_000);

  test("RECALL_HOME at an existing shared 0755 folder is used but never chmodded; recall warns and its own files are 0600", () => {
    const shared = fresh("shared");
    mkdirSync(shared, { mode: 0o755 });
    chmodSync(shared, 0o755);
    const result = recall(["index", ...sources], userEnv(work, { RECALL_HOME: shared }), "000");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`recall: warning: ${shared} is open to other users (mode 0755)`);
    expect(statSync(shared).mode & 0o777).toBe(0o755);
    expect(statSync(join(shared, "index.sqlite")).mode & 0o777).toBe(0o600);
    const doctor = recall(["doctor", "--json", ...sources], userEnv(work, { RECALL_HOME: shared }));
    expect(JSON.parse(doctor.stdout).checks.find((check: { id: string }) => check.id === "folders")).toMatchObject({
      status: "warn",
      fix: `chmod 700 ${shared} (or point RECALL_HOME at a private folder)`,
    });
  }, 60_000);
});

describe("issue 9: the one-time move out of ~/.cache/recall", () => {
  test("four recall processes starting together: one moves the index and says so once, all answer from it", async () => {
    const home = fresh("move");
    const cache = join(home, ".cache", "recall");
    mkdirSync(home);
    expect(recall(["index", ...sources], userEnv(home, { RECALL_HOME: cache })).code).toBe(0); // the old layout
    rmSync(join(cache, "snapshots"), { recursive: true });
    writeFileSync(join(cache, ".env"), "EMBEDDINGS_API_KEY=sk-moved\n");
    const runs = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const child = spawnCli(["search", "postgres", "--json", "--no-reindex", ...sources], userEnv(home), {
          stdout: "pipe",
          stderr: "pipe",
        });
        const [stdout, stderr, code] = await Promise.all([
          new Response(child.stdout).text(),
          new Response(child.stderr).text(),
          child.exited,
        ]);
        return { stdout, stderr, code };
      }),
    );
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).results.length).toBeGreaterThan(0);
    }
    expect(runs.filter((run) => run.stderr.includes("recall: moved the index from")).length).toBe(1);
    const data = join(home, ".local", "share", "recall");
    expect(existsSync(join(data, "index.sqlite"))).toBe(true);
    expect(existsSync(join(cache, "index.sqlite"))).toBe(false);
    expect(readFileSync(join(home, ".config", "recall", ".env"), "utf8")).toBe("EMBEDDINGS_API_KEY=sk-moved\n");
    expect(statSync(join(home, ".config", "recall", ".env")).mode & 0o777).toBe(0o600);
  }, 60_000);
});

describe("issue 9: a damaged index through the CLI", () => {
  /** A RECALL_HOME with an index and its snapshot, then garbage over every page after the header. */
  function damagedHome(): string {
    const home = fresh("damaged");
    expect(recall(["index", ...sources], userEnv(work, { RECALL_HOME: home })).code).toBe(0);
    const db = join(home, "index.sqlite");
    for (const suffix of ["-wal", "-shm"]) rmSync(db + suffix, { force: true });
    const bytes = readFileSync(db);
    for (let offset = 4096; offset < bytes.length; offset += 97) bytes[offset] = 0xff;
    writeFileSync(db, bytes);
    return home;
  }

  test("search, index and doctor exit 1 with INDEX_CORRUPT and the snapshot restore; nothing is overwritten", () => {
    const home = damagedHome();
    const env = userEnv(work, { RECALL_HOME: home });
    const before = readFileSync(join(home, "index.sqlite"));
    const search = recall(["search", "postgres", "--json", ...sources], env);
    expect(search.code).toBe(1);
    expect(JSON.parse(search.stderr).error).toMatchObject({
      code: "INDEX_CORRUPT",
      hint: expect.stringContaining("recall doctor --restore-snapshot"),
    });
    const index = recall(["index", ...sources], env);
    expect(index.code).toBe(1);
    expect(index.stderr).toStartWith(`recall: the index at ${join(home, "index.sqlite")} is damaged (`);
    expect(index.stderr).not.toContain("unexpected error");
    noStack(index.stderr);
    const doctor = recall(["doctor", "--json", ...sources], env);
    expect(doctor.code).toBe(1);
    const check = JSON.parse(doctor.stdout).checks.find((entry: { id: string }) => entry.id === "index");
    expect(check).toMatchObject({ status: "fail", fix: expect.stringContaining("recall doctor --restore-snapshot") });
    expect(Buffer.compare(readFileSync(join(home, "index.sqlite")), before)).toBe(0);
  }, 60_000);

  test("doctor --restore-snapshot puts the snapshot back, keeps the damaged file aside, and search works again", () => {
    const home = damagedHome();
    const env = userEnv(work, { RECALL_HOME: home });
    const restore = recall(["doctor", "--restore-snapshot"], env);
    expect(restore.code).toBe(0);
    expect(restore.stdout).toContain("restored the snapshot of");
    expect(restore.stdout).toContain("next: run `recall index`");
    expect(readdirSync(home).filter((name) => name.startsWith("index.sqlite.damaged-"))).toHaveLength(1);
    const search = recall(["search", "postgres", "--json", ...sources], env);
    expect(search.code).toBe(0);
    expect(JSON.parse(search.stdout).results.length).toBeGreaterThan(0);
  }, 60_000);

  test("index --full sets the damaged file aside, says so, and rebuilds from the sources", () => {
    const home = damagedHome();
    const env = userEnv(work, { RECALL_HOME: home });
    const rebuild = recall(["index", "--full", ...sources], env);
    expect(rebuild.code).toBe(0);
    expect(rebuild.stderr).toMatch(
      /is damaged \(.*\); kept it as .*index\.sqlite\.damaged-.* and rebuilding from the sources on disk/,
    );
    expect(readdirSync(home).filter((name) => name.startsWith("index.sqlite.damaged-"))).toHaveLength(1);
    expect(recall(["search", "postgres", "--json", ...sources], env).code).toBe(0);
  }, 60_000);
});
