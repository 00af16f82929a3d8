import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { databasePath } from "../../src/index/index.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-crash-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const root = join(work, "claude");
for (let s = 0; s < 400; s++) {
  const id = `${String(s).padStart(8, "0")}-aaaa-4aaa-8aaa-${String(s).padStart(12, "0")}`;
  writeClaudeSession(join(root, `-home-dev-p${s % 7}`, `${id}.jsonl`), {
    sessionId: id,
    cwd: `/home/dev/p${s % 7}`,
    turns: Array.from({ length: 12 }, (_, t) => ({
      prompt: `question ${t} ${fillerText(s * 100 + t, 30)}`,
      response: fillerText(s * 1000 + t, 150),
      tools: [{ name: "Bash", input: { command: `make target-${t}` }, output: fillerText(t, 20) }],
    })),
  });
}

const env = (home: string) => ({ ...process.env, RECALL_HOME: home, HOME: work, NO_COLOR: "1" });
const indexArgs = ["src/cli.ts", "index", "--claude-dir", root, "--opencode-dir", join(work, "none")];

/** Everything the index holds, without rowids (which legitimately differ between runs). */
function dump(home: string): string[] {
  const db = new Database(databasePath(home));
  const rows = [
    ...db.query("SELECT source, session_id, unit_key, change_key, project_path, title, turn_count, started_at, ended_at, files, resume_state FROM sessions ORDER BY session_id").all(),
    ...db.query("SELECT s.session_id, t.number, t.timestamp, t.prompt, t.response, t.tools, t.files FROM turns t JOIN sessions s ON s.id = t.session_rowid ORDER BY 1, 2").all(),
    ...db.query("SELECT s.session_id, d.level, d.turn_number, d.text_hash, d.embed_hash FROM documents d JOIN sessions s ON s.id = d.session_rowid ORDER BY 1, 2, 3").all(),
    ...db.query("SELECT path, fingerprint FROM containers ORDER BY path").all(),
    db.query("SELECT count(*) AS fts_rows FROM documents_fts").get(),
    // What the FTS index answers, not only its size.
    ...["question", "target", "cache", "worker"].map((word) =>
      db.query("SELECT s.session_id, d.level, d.turn_number FROM documents_fts f JOIN documents d ON d.id = f.rowid JOIN sessions s ON s.id = d.session_rowid WHERE documents_fts MATCH ? ORDER BY 1, 2, 3").all(word),
    ),
  ].map((row) => JSON.stringify(row));
  db.exec("INSERT INTO documents_fts(documents_fts) VALUES ('integrity-check')");
  db.close();
  return rows;
}

describe("crash recovery", () => {
  test("kill -9 during indexing, then a new run, gives exactly the contents of a clean --full run", async () => {
    const crashed = join(work, "home-crashed");
    const child = Bun.spawn(["bun", ...indexArgs], { cwd: repo, env: env(crashed), stdout: "ignore", stderr: "ignore" });
    // Wait until some batches are committed, then kill without warning.
    const deadline = Date.now() + 30_000;
    let committed = 0;
    while (Date.now() < deadline && committed === 0) {
      await Bun.sleep(20);
      if (!existsSync(databasePath(crashed))) continue;
      try {
        const db = new Database(databasePath(crashed), { readonly: true });
        committed = (db.query("SELECT count(*) AS n FROM sessions").get() as { n: number }).n;
        db.close();
      } catch {
        // schema not created yet
      }
    }
    child.kill("SIGKILL");
    await child.exited;
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThan(400);

    const resumed = Bun.spawnSync(["bun", ...indexArgs], { cwd: repo, env: env(crashed) });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stderr.toString()).toMatch(/indexed: \d+ added/);

    const clean = join(work, "home-clean");
    expect(Bun.spawnSync(["bun", ...indexArgs, "--full"], { cwd: repo, env: env(clean) }).exitCode).toBe(0);
    expect(dump(crashed)).toEqual(dump(clean));
  });
});
