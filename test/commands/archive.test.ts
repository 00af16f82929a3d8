/**
 * The archive from the command line (issue 9): sessions whose source files are deleted are still found, shown
 * and exported; `recall forget` deletes on purpose, from every file under RECALL_HOME; an unreadable file is
 * retried. Spawns the real CLI with RECALL_HOME and HOME in a temp dir.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, spawnCli } from "../helpers/cli.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { startHashEmbeddings } from "./hash-embeddings.ts";

const work = mkdtempSync(join(tmpdir(), "recall-archive-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const deletedId = "d0000000-0000-4000-8000-00000000000d";
const keptId = "e0000000-0000-4000-8000-00000000000e";

function writeSources(root: string): void {
  writeClaudeSession(join(root, "-home-dev-zoo", `${deletedId}.jsonl`), {
    sessionId: deletedId,
    cwd: "/home/dev/zoo",
    title: "Capybara enclosure",
    turns: [
      {
        prompt: "why is the capybara pool cold",
        response: "The heater relay tripped.",
        tools: [
          {
            name: "Bash",
            input: { command: "journalctl -u heater" },
            output: Array.from({ length: 60 }, (_, i) => `relay log ${i}`).join("\n"),
          },
        ],
      },
      { prompt: "reset the relay", response: "Reset; the pool warms up." },
    ],
  });
  writeClaudeSession(join(root, "-home-dev-zoo", `${keptId}.jsonl`), {
    sessionId: keptId,
    cwd: "/home/dev/zoo",
    turns: [{ prompt: "order flamingo food", response: "Ordered." }],
  });
}

/** Run the CLI; `prefix` runs it through another program (sh for a umask, setpriv to drop root). */
function recall(args: string[], home: string, options: { prefix?: string[]; env?: Record<string, string> } = {}) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    RECALL_HOME: join(home, "recall"),
    HOME: home,
    NO_COLOR: "1",
    ...options.env,
  };
  for (const key of [
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "CLAUDE_CONFIG_DIR",
    "RECALL_CLAUDE_DIRS",
    "RECALL_OPENCODE_DIRS",
    "RECALL_MODEL",
  ])
    delete env[key];
  const result = runCli(args, env, { prefix: options.prefix });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

function newHome(name: string): { home: string; root: string; sources: string[] } {
  const home = join(work, name);
  const root = join(home, "claude");
  mkdirSync(home, { recursive: true });
  writeSources(root);
  mkdirSync(join(home, "no-opencode"), { recursive: true }); // a named folder must exist (issue 15)
  return { home, root, sources: ["--claude-dir", root, "--opencode-dir", join(home, "no-opencode")] };
}

describe("recall keeps sessions whose source is deleted (issue 9)", () => {
  test("a deleted session is still found at both levels, shown from the archive and exported; written again it is present", () => {
    const { home, root, sources } = newHome("deleted");
    expect(recall(["index", ...sources, "--keyword-only"], home).code).toBe(0);
    const path = join(root, "-home-dev-zoo", `${deletedId}.jsonl`);
    copyFileSync(path, join(home, "backup.jsonl"));
    unlinkSync(path);

    const found = recall(["search", "capybara pool", "--json", ...sources], home);
    expect(found.code).toBe(0);
    const session = JSON.parse(found.stdout).results[0];
    expect(session).toMatchObject({ session_id: deletedId, source_status: "deleted" });
    expect(session.last_seen_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(recall(["search", "capybara pool", ...sources], home).stdout).toContain(
      `(source deleted, last seen ${session.last_seen_at.slice(0, 10)})`,
    );
    const listed = JSON.parse(recall(["sessions", "--json", ...sources], home).stdout).sessions;
    expect(
      listed.map((s: { session_id: string; source_status: string }) => [s.session_id, s.source_status]).sort(),
    ).toEqual([
      [deletedId, "deleted"],
      [keptId, "present"],
    ]);
    expect(JSON.parse(recall(["status", "--json", ...sources], home).stdout)).toMatchObject({
      sessions: 2,
      deleted_sessions: 1,
    });
    const turns = JSON.parse(
      recall(["search", "heater relay", "--depth", "2", "--session", deletedId, "--json", ...sources], home).stdout,
    );
    expect(turns.results[0]).toMatchObject({ session_id: deletedId, turn: 1, source_status: "deleted" });

    const shown = recall(["show", `${deletedId}:1`, "--json", ...sources], home);
    expect(shown.code).toBe(0);
    const view = JSON.parse(shown.stdout);
    expect(view).toMatchObject({
      from_archive: true,
      session: { session_id: deletedId, source_status: "deleted", title: "Capybara enclosure" },
    });
    const output: string = view.turns[0].tool_calls[0].output;
    expect(output.split("\n")).toHaveLength(41);
    expect(output).toContain("recall archived the first 40 lines / 4 KB of this output: 60 lines");
    expect(shown.stderr).toContain("shown from recall's archive (source deleted");
    expect(recall(["show", deletedId, ...sources], home).stdout).toContain(
      "shown from recall's archive (source deleted, last seen",
    );
    expect(recall(["show", deletedId, "--no-redact", ...sources], home).stdout).toContain(
      "> why is the capybara pool cold",
    );

    const jsonl = recall(["export", ...sources], home);
    expect(jsonl.code).toBe(0);
    const exported = jsonl.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(exported.map((entry) => [entry.session.session_id, entry.from_archive])).toEqual([
      [deletedId, true],
      [keptId, false],
    ]);
    expect(exported[0].turns.map((turn: { prompt: string }) => turn.prompt)).toEqual([
      "why is the capybara pool cold",
      "reset the relay",
    ]);
    const file = join(home, "archive.md");
    const markdown = recall(["export", "--format", "markdown", "--output", file, ...sources], home, {
      prefix: ["sh", "-c", 'umask 000; exec "$@"', "sh"],
    });
    expect(markdown.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("## Capybara enclosure");
    expect(text).toContain("> why is the capybara pool cold");
    expect(text).toContain("- source deleted (last seen");
    expect(markdown.stderr).toContain("exported 2 sessions (1 from the archive)");

    copyFileSync(join(home, "backup.jsonl"), path);
    const back = JSON.parse(recall(["search", "capybara pool", "--json", ...sources], home).stdout).results[0];
    expect(back).toMatchObject({ session_id: deletedId, source_status: "present" });
    expect(JSON.parse(recall(["show", deletedId, "--json", ...sources], home).stdout).from_archive).toBe(false);
  });
});

/** Run the CLI without blocking this process (the stand-in embedding server below answers from it). */
async function recallAsync(args: string[], home: string, env: Record<string, string>) {
  const merged: Record<string, string | undefined> = {
    ...process.env,
    RECALL_HOME: join(home, "recall"),
    HOME: home,
    NO_COLOR: "1",
    ...env,
  };
  for (const key of ["RECALL_OFFLINE", "RECALL_MODEL", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"])
    delete merged[key];
  const child = spawnCli(args, merged, { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** Ids stored in the vector segment files below `dir` (header: row count at byte 12; ids from byte 64, int32). */
function storedVectorIds(dir: string): number[] {
  return filesBelow(dir)
    .filter((file) => file.endsWith(".vec"))
    .flatMap((file) => {
      const bytes = readFileSync(file);
      const rows = bytes.readUInt32LE(12);
      return Array.from({ length: rows }, (_, i) => bytes.readInt32LE(64 + 4 * i));
    });
}

/** Every file below `dir`, recursively. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesBelow(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe("recall forget (issue 9)", () => {
  test("without a session, --project or --before it is a usage error and removes nothing", () => {
    const { home, sources } = newHome("forget-usage");
    recall(["index", ...sources, "--keyword-only"], home);
    const result = recall(["forget", ...sources], home);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("say what to forget");
    expect(recall(["forget", deletedId, "--project", "zoo", ...sources], home).code).toBe(2);
    expect(JSON.parse(recall(["sessions", "--json", ...sources], home).stdout).sessions).toHaveLength(2);
  });

  test("removes the session from every file under RECALL_HOME, vectors included; the next index does not add it back until --undo", async () => {
    const { home, root, sources } = newHome("forget");
    const embeddings = startHashEmbeddings();
    try {
      const indexed = await recallAsync(["index", "--json", ...sources], home, { EMBEDDINGS_URL: embeddings.url });
      expect(indexed.code).toBe(0);
    } finally {
      embeddings.close();
    }
    const recallHome = join(home, "recall");
    const chunkIds = (sessionId: string) => {
      const db = new Database(join(recallHome, "index.sqlite"), { readonly: true });
      const ids = db
        // Embedded chunks only: a document with nothing to embed has a skipped chunk and no vector (issue 12).
        .query<{ id: number }, [string]>(
          "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sessions s ON s.id = d.session_rowid WHERE s.session_id = ? AND c.status = 1",
        )
        .all(sessionId)
        .map((row) => row.id);
      db.close();
      return ids;
    };
    const forgottenChunks = chunkIds(deletedId);
    const keptChunks = chunkIds(keptId);
    expect(forgottenChunks.length).toBeGreaterThanOrEqual(3);
    expect(storedVectorIds(recallHome)).toEqual(expect.arrayContaining(forgottenChunks)); // the checks below can fail
    const word = Buffer.from("capybara");
    const occurrences = () => filesBelow(recallHome).filter((file) => readFileSync(file).includes(word));
    expect(occurrences().length).toBeGreaterThan(0);

    const dryRun = recall(["forget", deletedId, "--dry-run", "--json", ...sources], home);
    expect(dryRun.code).toBe(0);
    expect(JSON.parse(dryRun.stdout)).toMatchObject({
      dry_run: true,
      forgotten: [{ session_id: deletedId }],
      documents: 0,
    });
    expect(chunkIds(deletedId)).toEqual(forgottenChunks); // --dry-run changed nothing

    const result = recall(["forget", deletedId, "--json", ...sources], home);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.forgotten.map((entry: { session_id: string }) => entry.session_id)).toEqual([deletedId]);
    expect(report).toMatchObject({ turns: 2, documents: 3 });
    expect(report.vector_rows).toBe(forgottenChunks.length);
    expect(occurrences()).toEqual([]);
    // No vector file anywhere (snapshots included) keeps a forgotten row; the live store holds exactly the rest.
    expect(storedVectorIds(recallHome).filter((id) => forgottenChunks.includes(id))).toEqual([]);
    expect(storedVectorIds(join(recallHome, "vectors")).sort((a, b) => a - b)).toEqual(
      keptChunks.sort((a, b) => a - b),
    );
    expect(
      JSON.parse(recall(["search", "capybara", "--json", "--keyword-only", ...sources], home).stdout).results,
    ).toEqual([]);

    // The source still holds it and changes: the next index run must not add it back.
    writeClaudeSession(join(root, "-home-dev-zoo", `${deletedId}.jsonl`), {
      sessionId: deletedId,
      cwd: "/home/dev/zoo",
      turns: [{ prompt: "capybara again", response: "ok" }],
    });
    expect(recall(["index", ...sources, "--keyword-only"], home).code).toBe(0);
    expect(
      JSON.parse(recall(["sessions", "--json", ...sources], home).stdout).sessions.map(
        (s: { session_id: string }) => s.session_id,
      ),
    ).toEqual([keptId]);
    const status = JSON.parse(recall(["status", "--json", ...sources], home).stdout);
    expect(status).toMatchObject({ sessions: 1, forgotten_sessions: 1 });

    const undo = recall(["forget", "--undo", deletedId, ...sources], home);
    expect(undo.stdout).toContain("1 session is no longer forgotten");
    expect(recall(["index", ...sources, "--keyword-only"], home).code).toBe(0);
    expect(JSON.parse(recall(["sessions", "--json", ...sources], home).stdout).sessions).toHaveLength(2);
  });
});

/** Run as an unprivileged user: root ignores file modes, so drop to nobody with setpriv when running as root. */
const asRoot = process.getuid?.() === 0;
const hasSetpriv = Bun.which("setpriv") !== null;
const unprivileged = asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] : [];

describe.skipIf(asRoot && !hasSetpriv)("an unreadable session file (issue 9; needs a non-root user or setpriv)", () => {
  test("is not recorded as indexed: the run warns and is degraded, and the file is read on the next run once readable", () => {
    const { home, root, sources } = newHome("eacces");
    const chownAll = (path: string) => {
      if (!asRoot) return;
      chownSync(path, 65534, 65534);
      if (statSync(path).isDirectory()) for (const name of readdirSync(path)) chownAll(join(path, name));
    };
    chmodSync(work, 0o755); // mkdtemp made it 0700: nobody could not reach the home below it
    chownAll(home);
    const path = join(root, "-home-dev-zoo", `${deletedId}.jsonl`);
    chmodSync(path, 0o000);
    const first = recall(["index", "--json", "--keyword-only", ...sources], home, { prefix: unprivileged });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ added: 1, unreadable: 1, degraded: true });
    expect(first.stderr).toContain(path);
    chmodSync(path, 0o644);
    const second = recall(["index", "--json", "--keyword-only", ...sources], home, { prefix: unprivileged });
    expect(JSON.parse(second.stdout)).toMatchObject({ added: 1, unreadable: 0, degraded: false });
    expect(
      JSON.parse(recall(["sessions", "--json", "--no-reindex", ...sources], home, { prefix: unprivileged }).stdout)
        .sessions,
    ).toHaveLength(2);
  });

  test("doctor names a folder that index finds unreadable, and does not advise a re-index that cannot help (issue 26)", () => {
    const { home, root, sources } = newHome("doctor-eacces");
    chmodSync(work, 0o755);
    if (asRoot) Bun.spawnSync(["chown", "-R", "65534:65534", home]);
    expect(recall(["index", "--keyword-only", ...sources], home, { prefix: unprivileged }).code).toBe(0);
    const folder = join(root, "-home-dev-zoo");
    chmodSync(folder, 0o000);
    const indexed = recall(["index", "--json", "--keyword-only", ...sources], home, { prefix: unprivileged });
    expect(JSON.parse(indexed.stdout)).toMatchObject({ unavailable: 1, kept: 2 });
    const doctor = recall(["doctor", "--json", ...sources], home, { prefix: unprivileged });
    const checks = Object.fromEntries(
      JSON.parse(doctor.stdout).checks.map((check: { id: string }) => [check.id, check]),
    );
    expect(checks.sources.status).toBe("fail");
    expect(checks.sources.message).toContain(`${folder} (permission denied)`);
    expect(checks.index.status).toBe("warn");
    expect(checks.index.message).toContain("cannot be read whole");
    expect(checks.index.fix).toContain(`make ${folder} readable`);
    expect(checks.index.fix).not.toContain("run `recall index`");
    chmodSync(folder, 0o755);
  });
});
