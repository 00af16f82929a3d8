/**
 * Under RECALL_OFFLINE=1 a search without vectors says so once, with advice that can help offline (issue 26: every
 * search advised `recall index`, "it fetches the default model when online", which cannot fetch anything offline;
 * `--vector-only` printed that notice and then an error advising `recall model pull`). Runs the real CLI on Claude
 * Code files written with the test writer; the vectors of the last test come from a stand-in endpoint on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { startHashEmbeddings } from "./hash-embeddings.ts";
import { runCli, spawnCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-offline-hint-"));
const claude = join(work, "claude");
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  mkdirSync(join(work, "none"));
  writeClaudeSession(join(claude, "-home-dev-harbor", "c0000000-0000-4000-8000-00000000000c.jsonl"), {
    sessionId: "c0000000-0000-4000-8000-00000000000c",
    cwd: "/home/dev/harbor",
    turns: [{ prompt: "why does the harbor crane stall", response: "Its hydraulic valve sticks when cold." }],
  });
});

/** The CLI's environment: a private home, the given RECALL_OFFLINE (unset when null), no model configured. */
function environment(home: string, offline: string | null, extra: Record<string, string> = {}) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: home,
    RECALL_HOME: join(home, "recall"),
    ...extra,
  };
  for (const key of [...sourceLocationVariables, "RECALL_MODEL", "EMBEDDINGS_URL", "XDG_CACHE_HOME"])
    if (!(key in extra)) delete env[key];
  if (offline === null) delete env.RECALL_OFFLINE;
  else env.RECALL_OFFLINE = offline;
  return env;
}

const sources = ["--claude-dir", claude, "--opencode-dir", join(work, "none")];

function recall(args: string[], home: string, offline: string | null = "1") {
  const { exitCode: code, stdout, stderr } = runCli([...args, ...sources], environment(home, offline));
  return { code, stdout, stderr };
}

/** A home with a keyword-only index of the session. */
function indexedHome(name: string): string {
  const home = join(work, name);
  mkdirSync(home);
  expect(recall(["index", "--keyword-only"], home).code).toBe(0);
  return home;
}

/** Make the keyword-only notice of `home` last shown 25 hours ago. */
function dayOver(home: string): void {
  const before = (Date.now() - 25 * 3_600_000) / 1000;
  utimesSync(join(home, "recall", "keyword-only-notice"), before, before);
}

describe("the keyword-only notice of an index without embeddings, once a day (issue 38, item 18)", () => {
  test("the first search says it, the next ones that day do not, the first one a day later says it again", () => {
    const home = indexedHome("daily");
    const said = () =>
      recall(["search", "harbor crane"], home).stderr.includes("keyword-only search: no embeddings yet");
    expect(said()).toBe(true);
    expect(said()).toBe(false);
    expect(said()).toBe(false);
    dayOver(home);
    expect(said()).toBe(true);
    expect(said()).toBe(false);
  });

  test("a --since that leaves out every session names the date it read, not 'no sources'", () => {
    const result = recall(["search", "harbor crane", "--since", "2099-01-01"], indexedHome("since"));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Searched 0 sessions across 0 projects (none active from 2099-01-01 00:00");
    expect(result.stdout).not.toContain("no sources");
  });
});

describe("the no-embeddings hint under RECALL_OFFLINE=1 (issue 26)", () => {
  test("a search says it once, with how to get a model offline, not that `recall index` fetches one", () => {
    const home = indexedHome("search");
    const result = recall(["search", "harbor crane"], home);
    expect(result.code).toBe(0);
    const hints = result.stderr.split("\n").filter((line) => line.includes("embeddings"));
    expect(hints).toEqual([
      "recall: keyword-only search: no embeddings yet, and RECALL_OFFLINE=1 forbids downloading a model (set RECALL_MODEL or --model to a .gguf file on this machine, or unset RECALL_OFFLINE to download one or to use an EMBEDDINGS_URL endpoint; then run `recall index`)",
    ]);
    expect(result.stderr).not.toContain("fetches the default model");
    // Online, `recall index` can fetch the default model: that advice stays (said again once the day is over).
    dayOver(home);
    expect(recall(["search", "harbor crane"], home, null).stderr).toContain(
      "no embeddings yet (run `recall index`; it fetches the default model when online",
    );
  });

  test("--vector-only fails once, with the reason and the offline advice, not the notice and then `recall model pull`", () => {
    const home = indexedHome("vector-only");
    const result = recall(["search", "harbor crane", "--vector-only"], home);
    expect(result.code).toBe(1); // a failure, not a usage error (issue 38, item 15)
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      "recall: vector search needs embeddings: no embeddings yet, and RECALL_OFFLINE=1 forbids downloading a model",
      "hint: set RECALL_MODEL or --model to a .gguf file on this machine, or unset RECALL_OFFLINE to download one or to use an EMBEDDINGS_URL endpoint; then run `recall index`",
    ]);
  });

  test("with vectors but no model file, offline advice replaces `recall model pull`", async () => {
    const home = join(work, "vectors");
    mkdirSync(home);
    const embeddings = startHashEmbeddings();
    try {
      const child = spawnCli(["index", ...sources], environment(home, null, { EMBEDDINGS_URL: embeddings.url }), {
        stdout: "ignore",
        stderr: "ignore",
      });
      expect(await child.exited).toBe(0);
    } finally {
      embeddings.close();
    }
    const result = recall(["search", "harbor crane", "--no-reindex"], home);
    expect(result.code).toBe(0);
    const hints = result.stderr.split("\n").filter((line) => line.includes("keyword-only"));
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatch(
      /is missing: it is not downloaded, and RECALL_OFFLINE=1 forbids downloading it \(set RECALL_MODEL/,
    );
    expect(result.stderr).not.toContain("recall model pull");
  });
});
