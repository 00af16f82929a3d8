/**
 * The end-to-end check every source of the Cline task-folder family passes (issue 40): a HOME holding the fixture's
 * task folders at the agent's default place, `recall index`, then `recall status` lists the source with its session
 * count, and a phrase from a prompt, a reply and a tool call is each found by `recall search --depth 2`; `recall show`
 * reads a turn from the source, then from recall's own copy once the task folder is deleted.
 */
import { expect } from "bun:test";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceLocationVariables, type SourceId } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

/** What one source's end-to-end run checks. */
export interface TaskFolderCase {
  source: SourceId;
  /** The fixture folder holding `tasks/<id>/`. */
  fixture: string;
  /** Where below HOME the agent keeps it by default on Linux, e.g. `.config/Code/User/globalStorage/<extension id>`. */
  defaultPlace: string;
  sessions: number;
  /** One phrase each from a prompt, a reply and a tool call, and the session and turn that hold it. */
  phrases: Array<{ text: string; session: string; turn: number }>;
  /** The session and turn `recall show` reads, and a line its text holds. */
  shown: { session: string; turn: number; contains: string };
}

/** Run the end-to-end check of one source in a fresh HOME (Linux layout); removes it afterwards. */
export function checkTaskFolderSource(run: TaskFolderCase): void {
  const work = mkdtempSync(join(tmpdir(), `recall-${run.source}-`));
  try {
    const home = join(work, "home");
    const storage = join(home, run.defaultPlace);
    cpSync(run.fixture, storage, { recursive: true });
    const env: Record<string, string | undefined> = { ...process.env, HOME: home, RECALL_HOME: join(work, "recall") };
    for (const key of sourceLocationVariables) delete env[key];
    const recall = (...args: string[]) => runCli(args, env);

    const indexed = recall("index", "--keyword-only");
    expect(indexed.exitCode).toBe(0);
    const status = JSON.parse(recall("status", "--json").stdout) as {
      by_source: Array<{ source: string; sessions: number }>;
    };
    expect(status.by_source.find((row) => row.source === run.source)?.sessions).toBe(run.sessions);
    for (const phrase of run.phrases) {
      const found = JSON.parse(recall("search", phrase.text, "--depth", "2", "--json", "--no-reindex").stdout) as {
        results: Array<{ session_id: string; source: string; turn: number }>;
      };
      expect(found.results[0]).toMatchObject({ session_id: phrase.session, source: run.source, turn: phrase.turn });
    }

    const label = `${run.shown.session}:${run.shown.turn}`;
    const fromSource = recall("show", label, "--no-reindex");
    expect(fromSource.exitCode).toBe(0);
    expect(fromSource.stdout).toContain(run.shown.contains);
    rmSync(join(storage, "tasks", run.shown.session), { recursive: true });
    const fromCopy = recall("show", label, "--json");
    expect(fromCopy.exitCode).toBe(0);
    expect(JSON.parse(fromCopy.stdout)).toMatchObject({ from_archive: true });
    expect(fromCopy.stdout).toContain(JSON.stringify(run.shown.contains).slice(1, -1));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
