/**
 * Shared by the watcher tests (issue 10): a temp workspace with a copy of the example history, a watcher
 * whose hooks are recorded, the real `recall search --no-reindex` as the judge of "searchable", and polling.
 */
import { Database } from "bun:sqlite";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  databasePath,
  startWatcher,
  type IndexSummary,
  type Watcher,
  type WatchOptions,
} from "../../../src/index/index.ts";
import type { EmbeddingSummary } from "../../../src/index/index.ts";
import type { SourceRootMap } from "../../../src/parsers/index.ts";
import { sourceLocationVariables } from "../../../src/parsers/index.ts";
import { repo, spawnCli } from "../../helpers/cli.ts";

/** A temp folder with `claude/projects` (a copy of examples/claude-code), an OpenCode folder and a RECALL_HOME. */
export interface Workspace {
  dir: string;
  claude: string;
  opencode: string;
  recallHome: string;
  roots: SourceRootMap;
  cleanup(): void;
}

/** Create a workspace; `opencode` is created empty unless `withOpencode` is false (then it does not exist). */
export function makeWorkspace(options: { withOpencode?: boolean } = {}): Workspace {
  const dir = mkdtempSync(join(tmpdir(), "recall-watch-"));
  const claude = join(dir, "claude", "projects");
  cpSync(join(repo, "examples", "claude-code", "projects"), claude, { recursive: true });
  const opencode = join(dir, "opencode");
  if (options.withOpencode ?? true) mkdirSync(opencode);
  mkdirSync(join(dir, "home"));
  const recallHome = join(dir, "recall-home");
  return {
    dir,
    claude,
    opencode,
    recallHome,
    roots: { "claude-code": [claude], opencode: [opencode] },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Everything a watcher reported, in order. */
export interface Recorded {
  indexed: Array<{ at: number; summary: IndexSummary }>;
  embedded: EmbeddingSummary[];
  skipped: string[];
  warnings: string[];
  notices: string[];
}

/** Start a watcher on the workspace with recorded hooks; `overrides` replace any option. */
export async function startRecorded(
  workspace: Workspace,
  overrides: Partial<WatchOptions> = {},
): Promise<{ watcher: Watcher; recorded: Recorded }> {
  const recorded: Recorded = { indexed: [], embedded: [], skipped: [], warnings: [], notices: [] };
  const watcher = await startWatcher({
    recallHome: workspace.recallHome,
    roots: workspace.roots,
    hooks: {
      onIndexed: (summary) => recorded.indexed.push({ at: Date.now(), summary }),
      onEmbedded: (summary) => recorded.embedded.push(summary),
      onSkipped: (skip) => recorded.skipped.push(skip.message),
      onWarning: (message) => recorded.warnings.push(message),
      onNotice: (message) => recorded.notices.push(message),
    },
    ...overrides,
  });
  return { watcher, recorded };
}

/** The environment of a CLI run: HOME and RECALL_HOME private to the workspace, nothing pointing at real history. */
export function cliEnv(workspace: Workspace): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: join(workspace.dir, "home"),
    RECALL_HOME: workspace.recallHome,
  };
  for (const key of [...sourceLocationVariables]) delete env[key];
  return env;
}

/** The source flags of the workspace. */
export const sourceFlags = (workspace: Workspace) => [
  "--claude-dir",
  workspace.claude,
  "--opencode-dir",
  workspace.opencode,
];

/** Prompts of the turns `recall search --depth 2 --no-reindex --keyword-only --json` finds ([] when no index yet). */
export async function searchTurns(
  workspace: Workspace,
  query: string,
  extraArgs: string[] = [],
): Promise<Array<{ session_id: string; prompt: string }>> {
  const child = spawnCli(
    [
      "search",
      query,
      "--depth",
      "2",
      "--no-reindex",
      "--keyword-only",
      "--json",
      ...extraArgs,
      ...sourceFlags(workspace),
    ],
    cliEnv(workspace),
    { stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) return [];
  return (JSON.parse(stdout) as { results: Array<{ session_id: string; prompt: string }> }).results;
}

/**
 * Polls `check` every `intervalMs` until it returns true; resolves to the ms it took.
 * @throws Error when `timeoutMs` passes first
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await Bun.sleep(intervalMs);
  }
}

/**
 * True when the index in `recallHome` holds a document with `word` (FTS5 MATCH); false also while a writer holds the
 * lock a read needs (SQLITE_BUSY during a watcher's commit), so a {@link waitFor} check simply tries again.
 */
export function indexHoldsWord(recallHome: string, word: string): boolean {
  let db: Database | undefined;
  try {
    db = new Database(databasePath(recallHome), { readonly: true });
    return db.query("SELECT 1 FROM documents_fts WHERE documents_fts MATCH ?").get(word) !== null;
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) return false;
    throw error;
  } finally {
    db?.close();
  }
}

/** Resolves to the ms until the search for `query` (with `extraArgs`) finds a turn whose prompt contains `words`. */
export function waitUntilSearchable(
  workspace: Workspace,
  query: string,
  words: string,
  timeoutMs = 5000,
  extraArgs: string[] = [],
): Promise<number> {
  return waitFor(
    async () => (await searchTurns(workspace, query, extraArgs)).some((turn) => turn.prompt.includes(words)),
    timeoutMs,
    150,
  );
}
