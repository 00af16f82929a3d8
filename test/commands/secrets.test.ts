import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeTurnOutputs } from "../../src/index/store/archive.ts";
import { createLocalEmbedder, resolveEmbedConfig, type Embedder } from "../../src/embed/index.ts";
import { startEmbeddingsServer, type EmbeddingsServer } from "../embed/embeddings-server.ts";
import {
  createSchema,
  insertExchange,
  insertMessage,
  insertPart,
  insertSession,
} from "../fixtures/opencode/make-db.ts";
import { spawnCli } from "../helpers/cli.ts";
import { appendClaudeTurns, writeClaudeSession, type TestTurn } from "../helpers/claude-writer.ts";
import { getTestModelPath } from "../helpers/models.ts";
import { findLeaks, leakNeedles, plantedSecrets, type PlantedSecret } from "../helpers/secrets.ts";

/**
 * Issue 9, "Done when": 38 planted secrets in prompts, answers, tool inputs and tool outputs of Claude Code and
 * OpenCode sessions, indexed with embeddings from a local stand-in `/v1/embeddings` server, show up in no byte
 * of any file under RECALL_HOME, in no request body the server received, and in no output of search, show,
 * sessions and export (text and JSON).
 */

const work = mkdtempSync(join(tmpdir(), "recall-secrets-"));
const claudeRoot = join(work, "claude");
const opencodeRoot = join(work, "opencode");
const recallHome = join(work, "recall-home");
const sources = ["--claude-dir", claudeRoot, "--opencode-dir", opencodeRoot];
const mainId = "5ec5e7a1-1111-4111-8111-000000000001";
const otherId = "5ec5e7a1-1111-4111-8111-000000000002";

let local: Embedder;
let server: EmbeddingsServer;

/** Run the CLI without blocking this process (the stand-in server answers from here). */
async function recall(args: string[]) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: work,
    RECALL_HOME: recallHome,
    EMBEDDINGS_URL: server.url,
    EMBEDDINGS_MODEL: "tiny",
    RECALL_OFFLINE: "0",
  };
  for (const key of [
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "CLAUDE_CONFIG_DIR",
    "RECALL_CLAUDE_DIRS",
    "RECALL_OPENCODE_DIRS",
    "EMBEDDINGS_API_KEY",
  ])
    delete env[key];
  const child = spawnCli(args, env, { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** Claude turns carrying secrets `from..to` in the prompt, the answer, a tool input or a tool output, in turn. */
function claudeTurns(secrets: readonly PlantedSecret[]): TestTurn[] {
  return secrets.map((planted, i) => {
    const where = i % 4;
    return {
      prompt:
        where === 0
          ? `deploy step ${i}: here are the credentials\n${planted.carrier}`
          : `deploy step ${i}: check the credentials`,
      response:
        where === 1
          ? `The credentials file holds:\n${planted.carrier}`
          : `Checked the deploy credentials for step ${i}.`,
      tools: [
        where === 2
          ? { name: "Bash", input: { command: planted.carrier }, output: "done" }
          : {
              name: "Bash",
              input: { command: `cat deploy/.env.step${i}` },
              output: where === 3 ? `${planted.carrier}\n` : "ok\n",
            },
      ],
    };
  });
}

function writeOpencode(secrets: readonly PlantedSecret[]): void {
  mkdirSync(opencodeRoot, { recursive: true });
  const db = new Database(join(opencodeRoot, "opencode.db"));
  createSchema(db);
  insertSession(db, {
    id: "ses_secrets",
    title: `rotate ${secrets[0]!.secret}`,
    directory: "/work/ops",
    timeCreated: 1_772_000_000_000,
    timeUpdated: 1_772_000_900_000,
  });
  secrets.forEach((planted, i) => {
    const t = 1_772_000_000_000 + i * 10_000;
    insertExchange(
      db,
      "ses_secrets",
      `s${i}`,
      t,
      `rotate the deploy credentials ${i}: ${i % 2 === 0 ? planted.carrier : "see the file"}`,
      i % 2 === 1 ? `rotated: ${planted.carrier}` : "rotated",
    );
    insertPart(db, "ses_secrets", `msg_s${i}v`, `prt_s${i}t`, {
      type: "tool",
      callID: `c${i}`,
      tool: "bash",
      state: {
        status: "completed",
        input: { command: `cat creds-${i}.env` },
        output: planted.carrier,
        title: "cat",
        metadata: {},
      },
    });
  });
  insertMessage(db, "ses_secrets", "msg_zz", 1_772_000_900_000, { role: "user", time: { created: 1_772_000_900_000 } });
  db.close();
}

/** Every file below `dir`, recursively. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesBelow(path) : [path];
  });
}

const claudeSecrets = plantedSecrets.filter((_, i) => i % 5 !== 4);
const opencodeSecrets = plantedSecrets.filter((_, i) => i % 5 === 4);
const appended = claudeSecrets.slice(-4);

beforeAll(async () => {
  const config = resolveEmbedConfig({ env: {}, home: tmpdir(), modelFlag: getTestModelPath() });
  if (config.kind !== "local") throw new Error("expected a local model");
  local = await createLocalEmbedder(config);
  server = startEmbeddingsServer(local);
  const state = writeClaudeSession(join(claudeRoot, "-work-deploy", `${mainId}.jsonl`), {
    sessionId: mainId,
    cwd: "/work/deploy",
    title: `deploy with ${claudeSecrets[0]!.secret}`,
    turns: claudeTurns(claudeSecrets.slice(0, -8)),
  });
  writeClaudeSession(join(claudeRoot, "-work-deploy", `${otherId}.jsonl`), {
    sessionId: otherId,
    cwd: "/work/deploy",
    turns: claudeTurns(claudeSecrets.slice(-8, -4)),
  });
  writeOpencode(opencodeSecrets);
  const first = await recall(["index", ...sources]);
  if (first.code !== 0) throw new Error(`index failed: ${first.stderr}`);
  // An appended file is parsed resumed from the stored resume state: that path is redacted too.
  appendClaudeTurns(join(claudeRoot, "-work-deploy", `${mainId}.jsonl`), state, claudeTurns(appended));
  const second = await recall(["index", ...sources]);
  if (second.code !== 0) throw new Error(`incremental index failed: ${second.stderr}`);
}, 120_000);

afterAll(async () => {
  server?.close();
  await local?.dispose();
  rmSync(work, { recursive: true, force: true });
});

describe("planted secrets never leave redaction (issue 9)", () => {
  test("the fixtures hold all 38 secrets, and the index holds every session and embeddings for them", () => {
    const planted = [...filesBelow(claudeRoot), ...filesBelow(opencodeRoot)]
      .map((path) => readFileSync(path, "latin1"))
      .join("\n");
    // (A PEM body is multi-line: JSON holds it with escaped newlines, so look for each of its lines.)
    expect(
      plantedSecrets
        .filter((secret) => !secret.secret.split("\n").every((line) => planted.includes(line)))
        .map((secret) => secret.kind),
    ).toEqual([]);
    const db = new Database(join(recallHome, "index.sqlite"), { readonly: true });
    try {
      expect(db.query("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 3 });
      expect((db.query("SELECT count(*) AS n FROM chunks WHERE status = 1").get() as { n: number }).n).toBeGreaterThan(
        10,
      );
    } finally {
      db.close();
    }
  });

  test("no byte of any file under RECALL_HOME (database, WAL, vectors, resume states) holds a secret", () => {
    const files = filesBelow(recallHome);
    expect(files.some((path) => path.endsWith(".sqlite"))).toBe(true);
    expect(files.some((path) => path.includes("vectors"))).toBe(true);
    const leaks = files.flatMap((path) =>
      findLeaks(readFileSync(path, "latin1")).map((leak) => `${path.slice(recallHome.length)}: ${leak}`),
    );
    expect(leaks).toEqual([]);
    expect(files.every((path) => statSync(path).size >= 0)).toBe(true);
  });

  test("archived tool outputs (compressed) and the FTS index hold no secret, and the outputs were archived redacted", () => {
    const db = new Database(join(recallHome, "index.sqlite"), { readonly: true });
    try {
      const outputs = db
        .query<{ outputs: Uint8Array }, []>("SELECT outputs FROM turn_outputs")
        .all()
        .flatMap((row) => decodeTurnOutputs(row.outputs))
        .join("\n");
      expect(outputs).toContain("[REDACTED:");
      expect(findLeaks(outputs)).toEqual([]);
      const terms = plantedSecrets.flatMap(leakNeedles).filter((needle) => /^[a-z0-9]{10,}$/.test(needle));
      expect(terms.length).toBeGreaterThan(30);
      const match = db.query<{ n: number }, [string]>(
        "SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?",
      );
      expect(terms.filter((term) => match.get(`"${term}"`)!.n > 0)).toEqual([]);
    } finally {
      db.close();
    }
  });

  test("no request body sent to the embedding endpoint holds a secret", () => {
    const bodies = server.requests.flatMap((request) => request.inputs).join("\n");
    expect(server.requests.length).toBeGreaterThan(0);
    expect(bodies).toContain("[REDACTED:");
    expect(findLeaks(bodies)).toEqual([]);
  });

  test("search, show, sessions and export print no secret, in text or JSON", async () => {
    const runs = [
      ["search", "deploy credentials"],
      ["search", "deploy credentials", "--json"],
      ["search", "rotate credentials", "--depth", "2"],
      ["search", "deploy credentials", "--depth", "2", "--json", "--limit", "50"],
      ["show", mainId],
      ["show", mainId, "--json"],
      ["show", otherId, "--json"],
      ["show", "ses_secrets"],
      ["show", "ses_secrets", "--json"],
      ["sessions"],
      ["sessions", "--json"],
      ["export"],
      ["export", "--format", "markdown"],
    ];
    const printed: string[] = [];
    for (const args of runs) {
      const result = await recall([...args, "--no-reindex", ...sources]);
      expect({ args, code: result.code, stderr: result.code === 0 ? "" : result.stderr }).toEqual({
        args,
        code: 0,
        stderr: "",
      });
      expect({ args, leaks: findLeaks(result.stdout + result.stderr) }).toEqual({ args, leaks: [] });
      printed.push(result.stdout);
    }
    // Not vacuous: the outputs do show the turns that held the secrets, with markers in their place.
    const shown = JSON.parse(printed[5]!);
    expect(shown.turns.length).toBe(claudeSecrets.length - 8 + appended.length);
    expect(printed[5]).toContain("[REDACTED:");
    expect(printed[11]!.split("\n").filter(Boolean).length).toBe(3);
  }, 60_000);
});
