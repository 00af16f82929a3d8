/**
 * Issue 9: where the archive lives (data / config / cache folders, RECALL_HOME overriding all), folders created
 * 0700 without ever chmodding one recall did not create, and the one-time move of an index out of the old cache
 * location: same-filesystem rename, a real cross-filesystem copy (/dev/shm is a tmpfs here), an interrupted move
 * that resumes, and an existing index that is never overwritten. Real SQLite indexes built from examples/.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  databasePath,
  describeExposure,
  ensureRecallHome,
  migrateLegacyHome,
  prepareRecallPaths,
  resolveRecallPaths,
  runIndex,
  type RecallPaths,
} from "../../../src/index/index.ts";
import { copyPrivate } from "../../../src/index/store/home-migration.ts";
import { loadEnvWithDotEnv, resolveEmbedConfig } from "../../../src/embed/index.ts";

const repo = resolve(import.meta.dir, "../../..");
const work = mkdtempSync(join(tmpdir(), "recall-home-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const examples = {
  "claude-code": [join(repo, "examples", "claude-code")],
  opencode: [join(repo, "examples", "opencode")],
};
const mode = (path: string) => statSync(path).mode & 0o777;
let counter = 0;
const fresh = (name: string) => join(work, `${name}-${++counter}`);

/** An index in the old layout (everything in one cache folder, as recall wrote it before issue 9). */
async function legacyIndex(cache: string): Promise<number> {
  await runIndex({ recallHome: cache, roots: examples });
  rmSync(join(cache, "snapshots"), { recursive: true, force: true }); // old versions wrote none
  writeFileSync(join(cache, ".env"), "RECALL_MODEL=bge-small-en-v1.5\nEMBEDDINGS_API_KEY=sk-old\n", { mode: 0o644 });
  chmodSync(join(cache, ".env"), 0o644);
  return sessionCount(databasePath(cache));
}

function sessionCount(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM sessions").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function homePaths(home: string): RecallPaths {
  return {
    data: join(home, ".local/share/recall"),
    config: join(home, ".config/recall"),
    cache: join(home, ".cache/recall"),
    overridden: false,
  };
}

describe("issue 9: where recall keeps things", () => {
  test("the index goes to XDG_DATA_HOME, settings to XDG_CONFIG_HOME, models to XDG_CACHE_HOME, each with a ~ fallback", () => {
    expect(resolveRecallPaths({ HOME: "/h" })).toEqual(homePaths("/h"));
    expect(
      resolveRecallPaths({ HOME: "/h", XDG_DATA_HOME: "/d", XDG_CONFIG_HOME: "~/c", XDG_CACHE_HOME: "/k" }),
    ).toEqual({
      data: "/d/recall",
      config: "/h/c/recall",
      cache: "/k/recall",
      overridden: false,
    });
  });

  test("empty or relative XDG variables are ignored, as the XDG spec says (never the cwd)", () => {
    expect(
      resolveRecallPaths({ HOME: "/h", XDG_DATA_HOME: "", XDG_CONFIG_HOME: "rel/conf", XDG_CACHE_HOME: "./x" }),
    ).toEqual(homePaths("/h"));
  });

  test("RECALL_HOME overrides all three, ~ expanded", () => {
    expect(resolveRecallPaths({ HOME: "/h", RECALL_HOME: "~/r", XDG_DATA_HOME: "/d" })).toEqual({
      data: "/h/r",
      config: "/h/r",
      cache: "/h/r",
      overridden: true,
    });
  });

  test("the .env and the models follow the config and cache folders", () => {
    const paths = homePaths(fresh("xdg"));
    mkdirSync(paths.config, { recursive: true });
    writeFileSync(join(paths.config, ".env"), "EMBEDDINGS_MODEL=from-config\n");
    expect(loadEnvWithDotEnv({}, paths).EMBEDDINGS_MODEL).toBe("from-config");
    const config = resolveEmbedConfig({ env: {}, home: paths });
    expect(config.kind === "local" && config.modelPath.startsWith(join(paths.cache, "models"))).toBe(true);
  });

  test("a missing folder is created 0700 with its parents; an existing 0755 folder keeps its mode and is reported", () => {
    const created = join(fresh("mk"), "a", "b");
    ensureRecallHome(created);
    expect(mode(created)).toBe(0o700);
    expect(mode(join(created, ".."))).toBe(0o700);
    const shared = fresh("shared");
    mkdirSync(shared, { mode: 0o755 });
    chmodSync(shared, 0o755);
    ensureRecallHome(shared);
    expect(mode(shared)).toBe(0o755);
    expect(describeExposure(shared)).toContain("open to other users (mode 0755)");
    expect(describeExposure(created)).toBeUndefined();
  });

  test("a regular file, or a path below one, fails with HOME_UNUSABLE in words and the file is left as it was", () => {
    const file = join(fresh("file"), "not-a-folder");
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, "mine");
    chmodSync(file, 0o644);
    expect(() => ensureRecallHome(file)).toThrow("it is a file, not a folder");
    expect(() => ensureRecallHome(join(file, "sub"))).toThrow("a file is in the way on its path");
    expect(() => prepareRecallPaths({ RECALL_HOME: file })).toThrow(expect.objectContaining({ code: "HOME_UNUSABLE" }));
    expect(mode(file)).toBe(0o644);
    expect(readFileSync(file, "utf8")).toBe("mine");
  });
});

describe("issue 9: moving an index out of the old cache folder", () => {
  test("same filesystem: index, vectors and .env are renamed once, the .env becomes 0600, models stay in the cache", async () => {
    const paths = homePaths(fresh("same-fs"));
    const sessions = await legacyIndex(paths.cache);
    mkdirSync(join(paths.cache, "vectors"));
    writeFileSync(join(paths.cache, "vectors", "turn-00000001.vec"), "rows");
    mkdirSync(join(paths.cache, "models"));
    writeFileSync(join(paths.cache, "models", "m.gguf"), "model");
    const inode = statSync(databasePath(paths.cache)).ino;
    const notices: string[] = [];
    expect(migrateLegacyHome(paths, { onNotice: (line) => notices.push(line) })).toEqual([
      "vectors",
      "index.sqlite",
      ".env",
    ]);
    expect(statSync(databasePath(paths.data)).ino).toBe(inode); // renamed, not copied
    expect(sessionCount(databasePath(paths.data))).toBe(sessions);
    expect(readFileSync(join(paths.data, "vectors", "turn-00000001.vec"), "utf8")).toBe("rows");
    expect(readFileSync(join(paths.config, ".env"), "utf8")).toContain("sk-old");
    expect(mode(join(paths.config, ".env"))).toBe(0o600);
    expect(existsSync(join(paths.cache, "models", "m.gguf"))).toBe(true);
    expect(existsSync(databasePath(paths.cache))).toBe(false);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`moved the index from ${paths.cache} to ${paths.data}`);
    expect(migrateLegacyHome(paths, { onNotice: (line) => notices.push(line) })).toEqual([]); // once
    expect(notices).toHaveLength(1);
  }, 30_000);

  const otherDevice = existsSync("/dev/shm") && statSync("/dev/shm").dev !== statSync(tmpdir()).dev;
  test.skipIf(!otherDevice)(
    "across filesystems (cache on /dev/shm, a tmpfs): copied into a temp name, renamed, source removed",
    async () => {
      const home = fresh("cross-fs");
      const cacheRoot = mkdtempSync(join("/dev/shm", "recall-cache-"));
      try {
        const paths = { ...homePaths(home), cache: join(cacheRoot, "recall") };
        const sessions = await legacyIndex(paths.cache);
        mkdirSync(join(paths.cache, "vectors"));
        writeFileSync(join(paths.cache, "vectors", "session-00000001.vec"), "rows", { mode: 0o644 });
        expect(migrateLegacyHome(paths)).toEqual(["vectors", "index.sqlite", ".env"]);
        expect(sessionCount(databasePath(paths.data))).toBe(sessions);
        expect(statSync(databasePath(paths.data)).dev).not.toBe(statSync(cacheRoot).dev);
        expect(mode(databasePath(paths.data))).toBe(0o600);
        expect(mode(join(paths.data, "vectors"))).toBe(0o700);
        expect(mode(join(paths.data, "vectors", "session-00000001.vec"))).toBe(0o600);
        expect(existsSync(databasePath(paths.cache))).toBe(false);
        expect(existsSync(join(paths.cache, "vectors"))).toBe(false);
        expect(readdirSync(paths.data).filter((name) => name.includes(".migrate-"))).toEqual([]);
        expect(readFileSync(join(paths.config, ".env"), "utf8")).toContain("sk-old");
      } finally {
        rmSync(cacheRoot, { recursive: true, force: true });
      }
    },
    30_000,
  );

  test("copies made for a cross-filesystem move are private (folders 0700, files 0600) whatever the source modes", () => {
    const dir = fresh("copy");
    mkdirSync(join(dir, "src", "sub"), { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, "src", "sub", "f"), "x", { mode: 0o666 });
    chmodSync(join(dir, "src", "sub", "f"), 0o666);
    copyPrivate(join(dir, "src"), join(dir, "dst"));
    expect(mode(join(dir, "dst"))).toBe(0o700);
    expect(mode(join(dir, "dst", "sub", "f"))).toBe(0o600);
    expect(readFileSync(join(dir, "dst", "sub", "f"), "utf8")).toBe("x");
  });

  test("a move interrupted after the database left its old name resumes on the next run", async () => {
    const paths = homePaths(fresh("resume"));
    const sessions = await legacyIndex(paths.cache);
    // The state a crash right after the first step leaves: the database renamed to its step name.
    renameSync(databasePath(paths.cache), `${databasePath(paths.cache)}.moving`);
    expect(migrateLegacyHome(paths)).toContain("index.sqlite");
    expect(sessionCount(databasePath(paths.data))).toBe(sessions);
    expect(existsSync(`${databasePath(paths.cache)}.moving`)).toBe(false);
  }, 30_000);

  test("an index already in the data folder is never overwritten: the old one stays and a warning names both", async () => {
    const paths = homePaths(fresh("conflict"));
    await legacyIndex(paths.cache);
    mkdirSync(paths.data, { recursive: true });
    writeFileSync(databasePath(paths.data), "");
    mkdirSync(paths.config, { recursive: true });
    writeFileSync(join(paths.config, ".env"), "EMBEDDINGS_MODEL=new\n");
    const warnings: string[] = [];
    expect(migrateLegacyHome(paths, { onWarning: (line) => warnings.push(line) })).toEqual([]);
    expect(statSync(databasePath(paths.data)).size).toBe(0);
    expect(existsSync(databasePath(paths.cache))).toBe(true);
    expect(readFileSync(join(paths.config, ".env"), "utf8")).toBe("EMBEDDINGS_MODEL=new\n");
    expect(warnings.join("\n")).toContain(`an older index is still at ${databasePath(paths.cache)}`);
    expect(warnings.join("\n")).toContain(`${join(paths.cache, ".env")} is no longer read`);
  }, 30_000);

  test("RECALL_HOME means no move at all", async () => {
    const paths = homePaths(fresh("override"));
    await legacyIndex(paths.cache);
    expect(
      prepareRecallPaths({ HOME: join(paths.cache, "../.."), RECALL_HOME: join(work, "elsewhere") }).overridden,
    ).toBe(true);
    expect(existsSync(databasePath(paths.cache))).toBe(true);
  }, 30_000);
});
