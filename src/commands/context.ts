/**
 * What every command that reads history shares: the source options (`--claude-dir`,
 * `--opencode-dir`), RECALL_HOME, the example-history fallback for a machine with no agent
 * history, and "open a fresh index" (staleness check, then an incremental re-index when needed).
 * Messages go to stderr; stdout is left to the command's results.
 */
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { array, multioption, string } from "cmd-ts";
import { IndexError } from "../errors.ts";
import { checkStaleness, databasePath, openIndex, resolveRecallHome, runIndex, type IndexSummary } from "../index/index.ts";
import { parsers, resolveSourceRoots, type SourceContainer, type SourceId } from "../parsers/index.ts";
import { createIndexProgress } from "../render/progress.ts";
import { renderIndexSummaryText } from "../render/index-summary.ts";
import { writeErr } from "../render/terminal.ts";
import type { EmbedderOpener } from "./embedder.ts";
import { findExamplesRoot } from "./examples.ts";

/** cmd-ts arguments shared by every command that reads sources. */
export const sourceArgs = {
  claudeDir: multioption({
    long: "claude-dir",
    type: array(string),
    description: "Claude Code history: a .claude folder, its projects folder or any copy of them (repeatable; default $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects; env RECALL_CLAUDE_DIRS)",
  }),
  opencodeDir: multioption({
    long: "opencode-dir",
    type: array(string),
    description: "OpenCode data folder holding opencode.db and/or storage/ (repeatable; default $XDG_DATA_HOME/opencode or ~/.local/share/opencode; env RECALL_OPENCODE_DIRS)",
  }),
};

/** Where history comes from and where the index lives, for one command run. */
export interface HistoryContext {
  recallHome: string;
  roots: Record<SourceId, string[]>;
  /** True when the machine has no history and the shipped examples are used (separate index). */
  usingExamples: boolean;
  /** Containers already scanned to decide on the examples (default roots only), reused by the staleness check. */
  scanned: Partial<Record<SourceId, SourceContainer[]>>;
}

/** Write one line to stderr. */
export const warn = (line: string): void => writeErr(`${line}\n`);

/**
 * Resolve roots and RECALL_HOME. When no source was named (flags or env) and the default places
 * hold no session at all, switch to the example history in its own index (`RECALL_HOME/examples`)
 * so it is never mixed into real history, and say so in one line on stderr.
 */
export function resolveHistory(args: { claudeDir: string[]; opencodeDir: string[] }, env = process.env): HistoryContext {
  const resolved = resolveSourceRoots({ "claude-code": args.claudeDir, opencode: args.opencodeDir }, env);
  const recallHome = resolveRecallHome(env);
  if (Object.values(resolved.explicit).some(Boolean)) return { recallHome, roots: resolved.roots, usingExamples: false, scanned: {} };
  const scanned = Object.fromEntries(parsers.map((parser) => [parser.id, parser.scan(resolved.roots[parser.id]).containers])) as Record<SourceId, SourceContainer[]>;
  if (Object.values(scanned).some((containers) => containers.length > 0)) return { recallHome, roots: resolved.roots, usingExamples: false, scanned };
  const examples = findExamplesRoot();
  if (!examples) return { recallHome, roots: resolved.roots, usingExamples: false, scanned };
  warn(`recall: no Claude Code or OpenCode history found (looked in ${[...resolved.roots["claude-code"], ...resolved.roots.opencode].join(", ")}); using the example history shipped with recall`);
  return {
    recallHome: join(recallHome, "examples"),
    roots: { "claude-code": [join(examples, "claude-code")], opencode: [join(examples, "opencode")] },
    usingExamples: true,
    scanned: {},
  };
}

/** Run an index with a progress bar (TTY only) and warnings on stderr; prints the summary line unless `quiet`. */
export async function indexWithProgress(
  context: HistoryContext,
  options: { full?: boolean; lockWaitMs?: number; quiet?: boolean; embedder?: EmbedderOpener; alwaysEmbed?: boolean },
): Promise<IndexSummary> {
  const progress = await createIndexProgress();
  try {
    const summary = await runIndex({
      recallHome: context.recallHome,
      roots: context.roots,
      full: options.full,
      lockWaitMs: options.lockWaitMs,
      hooks: {
        onProgress: progress.onProgress,
        onEmbedProgress: ({ done, total }) => progress.onProgress({ source: "embeddings", done, total }),
        onWarning: (message) => warn(`recall: warning: ${message}`),
        onNotice: options.quiet ? undefined : (message) => warn(`recall: ${message}`),
      },
      openEmbedder: options.embedder ? () => options.embedder!.open() : undefined,
      alwaysEmbed: options.alwaysEmbed,
    });
    progress.stop();
    if (!options.quiet) warn(renderIndexSummaryText(summary));
    return summary;
  } finally {
    progress.stop();
  }
}

/**
 * Open the index for reading, first bringing it up to date unless `reindex` is false:
 * a missing index is built; a stale one (file stats changed) is updated incrementally. When another
 * run holds the lock, the search answers from the last committed state and says so.
 * @throws IndexError INDEX_MISSING when there is no index and `reindex` is false
 */
export async function openFreshIndex(context: HistoryContext, options: { reindex: boolean; embedder?: EmbedderOpener }): Promise<Database> {
  const path = databasePath(context.recallHome);
  if (options.reindex) {
    let stale = !existsSync(path);
    if (!stale) {
      const db = openIndex(path, { readonly: true });
      try {
        stale = checkStaleness(db, context.roots, context.scanned).stale;
      } finally {
        db.close();
      }
    }
    if (stale) {
      try {
        await indexWithProgress(context, { lockWaitMs: existsSync(path) ? 0 : 60_000, quiet: true, embedder: options.embedder });
      } catch (error) {
        if (!(error instanceof IndexError && error.code === "INDEX_LOCKED" && existsSync(path))) throw error;
        warn("recall: another index run is in progress; answering from the last committed index");
      }
    }
  }
  return openIndex(path, { readonly: true });
}
