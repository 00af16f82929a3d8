import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, cpSync, mkdtempSync, openSync, readdirSync, rmSync, truncateSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getTestModelPath } from "../helpers/models.ts";
import { runCli } from "../helpers/cli.ts";

// Issue 9: with vector files deleted or damaged, search ran without its vector leg while reporting "hybrid",
// `recall index` did not re-embed, and `index --full` did not repair. Each case damages a copy of one index
// built with the tiny generated model, then checks what search says and that `recall index` restores it.

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-vector-damage-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const model = getTestModelPath();
const sources = ["--claude-dir", join(repo, "examples/claude-code"), "--opencode-dir", join(repo, "examples/opencode")];
const query = ["search", "refresh token 401 after idle", "--json", "--limit", "8", "--model", model, ...sources];
const base = join(work, "base");

function recall(args: string[], home: string) {
  const { exitCode: code, stdout, stderr } = runCli([...args], { ...process.env, RECALL_HOME: home, HOME: work });
  return { code, stdout, stderr };
}

/** The ranked sessions and scores of a search, rounded so identical vectors compare equal. */
function ranking(stdout: string): Array<[string, number]> {
  return JSON.parse(stdout).results.map((hit: { session_id: string; score: number }) => [
    hit.session_id,
    Math.round(hit.score * 1e5) / 1e5,
  ]);
}

function overwrite(path: string, offset: number, bytes: Uint8Array): void {
  const fd = openSync(path, "r+");
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

let baseline: Array<[string, number]>;

beforeAll(() => {
  expect(recall(["index", "--model", model, ...sources], base).code).toBe(0);
  const search = recall(query, base);
  expect(JSON.parse(search.stdout).mode).toBe("hybrid");
  baseline = ranking(search.stdout);
  expect(baseline.length).toBe(8);
  // The cases below rely on this layout (64 dims, batches of 32 chunks).
  expect(readdirSync(join(base, "vectors")).sort()).toEqual([
    "session-00000001.vec",
    "turn-00000001.vec",
    "turn-00000002.vec",
    "turn-00000003.vec",
  ]);
});

const damages: Array<[string, (vectors: string) => void, RegExp]> = [
  [
    "a deleted turn segment",
    (vectors) => rmSync(join(vectors, "turn-00000002.vec")),
    /32 of \d+ vectors are missing or damaged \(run `recall index` to rebuild them\)/,
  ],
  [
    "a truncated turn segment",
    (vectors) => truncateSync(join(vectors, "turn-00000001.vec"), 5000),
    /vectors\/turn-00000001\.vec is 5000 bytes, its header says 10560/,
  ],
  [
    "a session segment whose magic is overwritten",
    (vectors) => overwrite(join(vectors, "session-00000001.vec"), 0, new Uint8Array([0, 0, 0, 0])),
    /vectors\/session-00000001\.vec is unreadable: bad magic/,
  ],
  [
    "a turn segment whose model fingerprint is overwritten",
    (vectors) => overwrite(join(vectors, "turn-00000003.vec"), 16, new Uint8Array(16).fill(7)),
    /vectors\/turn-00000003\.vec was written by another model/,
  ],
  // Same size and a valid header: only the recorded hash of the ids block tells that rows are gone.
  [
    "a turn segment whose ids are overwritten in place",
    (vectors) => overwrite(join(vectors, "turn-00000002.vec"), 64, new Uint8Array(32 * 4)),
    /vectors are missing or damaged/,
  ],
];

describe("vector files deleted or damaged (issue 9)", () => {
  test.each(damages)(
    "%s: search says keyword mode and why; `recall index` re-embeds and hybrid results come back unchanged",
    (_, damage, notice) => {
      const home = join(work, `case-${damages.findIndex(([name]) => name === _)}`);
      cpSync(base, home, { recursive: true });
      damage(join(home, "vectors"));

      const damaged = recall(query, home);
      expect(damaged.code).toBe(0);
      expect(JSON.parse(damaged.stdout).mode).toBe("keyword");
      const lines = damaged.stderr
        .trim()
        .split("\n")
        .filter((line) => line.includes("keyword-only"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(notice);
      expect(lines[0]).toContain("run `recall index`");

      const repaired = recall(["index", "--model", model, ...sources], home);
      expect(repaired.code).toBe(0);
      expect(repaired.stderr).toMatch(/\d+ vector\(s\) were missing or damaged .*; their chunks are embedded again/);

      const after = recall(query, home);
      expect(JSON.parse(after.stdout).mode).toBe("hybrid");
      expect(after.stderr).not.toContain("keyword-only");
      expect(ranking(after.stdout)).toEqual(baseline);
    },
  );

  test("a deleted vectors folder is rebuilt by `recall index --full`, the fix doctor suggests", () => {
    const home = join(work, "case-full");
    cpSync(base, home, { recursive: true });
    rmSync(join(home, "vectors"), { recursive: true });
    expect(JSON.parse(recall(query, home).stdout).mode).toBe("keyword");
    const rebuilt = recall(["index", "--full", "--model", model, ...sources], home);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stderr).toContain("rows absent from vectors/");
    expect(ranking(recall(query, home).stdout)).toEqual(baseline);
  });

  test("an intact index is left alone: a second `recall index` re-embeds nothing and says nothing about vectors", () => {
    const home = join(work, "case-intact");
    cpSync(base, home, { recursive: true });
    const again = recall(["index", "--model", model, "--json", ...sources], home);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain("missing or damaged");
    expect(JSON.parse(again.stdout).embedding ?? { embedded: 0 }).toMatchObject({ embedded: 0 });
  });
});
