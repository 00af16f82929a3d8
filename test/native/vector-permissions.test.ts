import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repo, runCli } from "../helpers/cli.ts";
import { getTestModelPath } from "../helpers/models.ts";

// Issue 9: `vectors/` was 0755 and `*.vec` 0644 (0777/0666 under umask 000). Vectors of private history are
// created 0700 / 0600 whatever the umask, and recall never changes the mode of a folder it did not create.

const work = mkdtempSync(join(tmpdir(), "recall-vector-modes-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const model = getTestModelPath();
const sources = ["--claude-dir", join(repo, "examples/claude-code"), "--opencode-dir", join(repo, "examples/opencode")];

/** Runs `recall index` with the tiny model under `umask 000`, as a shell would. */
function indexUnderUmask000(home: string) {
  const script = 'umask 000 && exec "$@"';
  const result = runCli(
    ["index", "--model", model, ...sources],
    { ...process.env, RECALL_HOME: home, HOME: work },
    { prefix: ["sh", "-c", script, "sh"] },
  );
  expect(result.exitCode).toBe(0);
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("vector file permissions (issue 9)", () => {
  test("under umask 000, vectors/ is 0700, every .vec is 0600 and index.lock is 0600", () => {
    const home = join(work, "home");
    indexUnderUmask000(home);
    const vectors = join(home, "vectors");
    expect(modeOf(vectors)).toBe(0o700);
    const files = readdirSync(vectors);
    expect(files.filter((name) => name.endsWith(".vec")).length).toBeGreaterThanOrEqual(2);
    for (const name of files) expect({ name, mode: modeOf(join(vectors, name)) }).toEqual({ name, mode: 0o600 });
    expect(modeOf(join(home, "index.lock"))).toBe(0o600);
  });

  test("a vectors/ folder the user created keeps its own mode; the segment files inside are still 0600", () => {
    const home = join(work, "home-own-folder");
    mkdirSync(join(home, "vectors"), { recursive: true });
    chmodSync(join(home, "vectors"), 0o750);
    indexUnderUmask000(home);
    expect(modeOf(join(home, "vectors"))).toBe(0o750);
    for (const name of readdirSync(join(home, "vectors"))) expect(modeOf(join(home, "vectors", name))).toBe(0o600);
  });
});
