/**
 * What `recall pick` does (its flags and help: pick.ts): checks it has a terminal, opens the index once (the last
 * committed state, so the first frame never waits for an index run; a first index is built before, with a note), and
 * shows the picker (src/pick). After the first frame, two things happen in the background: the index is brought up to
 * date (keyword-only, without a progress bar on the screen; the results refresh when it commits), and when a model is
 * set up the semantic leg is opened through the warm embedding helper (or the remote endpoint), after which every
 * query is re-ranked hybrid a moment after the keyword answer. Enter replaces recall with the session's resume command
 * (src/pick/resume.ts); `--print` prints it instead.
 * Exit codes: 0 resumed or printed, 1 the session cannot be resumed (the reason and the command to copy are printed),
 * 2 usage (no terminal), 130 quit without choosing (as fzf, so shell bindings leave the command line alone).
 */
import type { Database } from "bun:sqlite";
import { IndexError, UsageError } from "../errors.ts";
import { databasePath } from "../home/paths.ts";
import { checkStaleness, needsIndexRun } from "../index/plan/staleness.ts";
import { longLivedPageCacheKibibytes, openIndex } from "../index/schema.ts";
import type { PickAppProps } from "./app.tsx";
import { printableText } from "./keys.ts";
import { PickerSearch } from "./picker-search.ts";
import { planResume, runResume } from "./resume.ts";
import { runPicker } from "./run-picker.tsx";
import { errorLine } from "../render/escapes.ts";
import { paletteFor } from "../render/format.ts";
import { writeOut } from "../render/terminal.ts";
import { loadDateWords, parseFilterArgs } from "../search/listing/arguments.ts";
import { projectOfFolder } from "../search/listing/recent.ts";
import { openFreshIndex, resolveHistory, warn, type HistoryContext } from "../service/context.ts";
import type { PickArgs } from "./command.ts";
import type { HelperQueryEmbedder } from "../service/query-embedder.ts";
import type { EmbedderOpener } from "../service/embedder.ts";

/** Exit code when the person quits without choosing (fzf's, which shell key bindings test for). */
export const quitExitCode = 130;

/**
 * Delay after the first answer (the first list of sessions) before background work starts, in ms: its frame is drawn
 * without contention. The work waited for that answer: started 30 ms after set-up instead, the index check ran before
 * the first search (timers run in the order they fall due, and Ink's first render takes longer), holding the first
 * frame back by the check, and by a whole walk when one was due (~0.5 s at 20,000 sessions).
 */
const backgroundDelayMs = 30;

/**
 * The picker's palette: colours unless NO_COLOR is set (any value, no-color.org; paletteFor) or the terminal is dumb
 * (TERM=dumb), else as the output's palette decides. Its `isColorSupported` also switches the screen's own colours.
 */
function pickerPalette(fd: 1 | 2, env: Record<string, string | undefined>) {
  return paletteFor(fd, env.TERM === "dumb" ? { ...env, NO_COLOR: "1" } : env);
}

/** Runs `recall pick` with its parsed arguments; resolves to the exit code. */
export async function pick(args: PickArgs): Promise<number> {
  const outputFd = args.print ? 2 : 1;
  if (!process.stdin.isTTY || !(args.print ? process.stderr.isTTY : process.stdout.isTTY))
    throw new UsageError(
      `recall pick needs a terminal (its ${process.stdin.isTTY ? (args.print ? "stderr" : "stdout") : "stdin"} is not one); from a script or an agent, use recall search "<query>"`,
    );
  await loadDateWords([args.since]);
  const filters = parseFilterArgs({ project: args.project, source: args.source, since: args.since });
  const context = resolveHistory(args);
  const db = await openCommittedOrFirst(context, args.noReindex);
  const search = new PickerSearch(db, filters, projectOfFolder(db, process.cwd()));
  const palette = await pickerPalette(outputFd, process.env);
  const colors = palette.isColorSupported;
  const semantic = new SemanticSide(context, args.model, args.keywordOnly);
  const updates: Array<(note: string) => void> = [];
  let answered!: () => void;
  const firstAnswer = new Promise<void>((resolve) => (answered = resolve));
  const afterFirstFrame = firstAnswer.then(() => Bun.sleep(backgroundDelayMs));
  let quit = false;
  void afterFirstFrame.then(() => {
    if (!args.noReindex && !quit)
      refreshIndex(context, search)
        .then((note) => {
          if (note) for (const listener of updates) listener(note);
          if (note && semantic.started) semantic.reopen(search);
        })
        .catch((error: unknown) => {
          for (const listener of updates) listener(`index not updated: ${errorLine(error)}`);
        });
  });

  const output = args.print ? process.stderr : process.stdout;
  const props: PickAppProps = {
    initialQuery: printableText(args.query.join(" ")),
    sessions: (query, wantsSemantic, limit) => search.sessions(query, wantsSemantic, limit).finally(answered),
    turns: (row, query, wantsSemantic) => search.turns(row, query, wantsSemantic),
    showLines: (row, from, to) => search.showLines(row, from, to, palette),
    openPager: (lines) => openPager(lines),
    semanticReady: semantic.start(search, afterFirstFrame),
    subscribeIndexUpdates: (listener) => updates.push(listener),
    colors,
    // The note `resolveHistory` printed is hidden by the picker's screen: say it there too.
    initialNote: context.usingExamples ? "no agent history found: these are recall's example sessions" : undefined,
  };
  let outcome: Awaited<ReturnType<typeof runPicker>>;
  try {
    outcome = await runPicker(props, { output, input: process.stdin });
  } finally {
    quit = true;
  }
  await semantic.requestPendingEmbeddings(search, context);
  search.close();
  await semantic.close();
  if (outcome.kind === "quit") return quitExitCode;

  const plan = planResume(outcome.row);
  if (args.print) {
    if (plan.kind === "refuse") warn(`recall: ${plan.reason}`);
    if (plan.kind === "refuse" && plan.command.startsWith("recall show")) return 1;
    writeOut(`${plan.command}\n`);
    return 0;
  }
  if (plan.kind === "refuse") {
    warn(`recall: cannot resume: ${plan.reason}; the command, to copy:`);
    writeOut(`${plan.command}\n`);
    return 1;
  }
  runResume(plan);
}

/**
 * The last committed index, opened read-only; when there is none yet (and re-indexing is allowed) the first index is
 * built first, with a note on stderr, before the screen opens.
 * @throws IndexError INDEX_MISSING under --no-reindex without an index, or what building the first index throws
 */
async function openCommittedOrFirst(context: HistoryContext, noReindex: boolean): Promise<Database> {
  try {
    return await openFreshIndex(context, { reindex: false, pageCacheKibibytes: longLivedPageCacheKibibytes });
  } catch (error) {
    if (noReindex || !(error instanceof IndexError && error.code === "INDEX_MISSING")) throw error;
    warn("recall: building the first index (keyword search: a few seconds; embeddings follow in the background)…");
    return await openFreshIndex(context, { reindex: true, pageCacheKibibytes: longLivedPageCacheKibibytes });
  }
}

/**
 * Bring the index up to date in this process (keyword-only: the embedding helper embeds the new turns afterwards),
 * quietly (the picker owns the screen), and point the search at the new state.
 * @returns a note for the status line when something changed, undefined when the index was fresh
 */
async function refreshIndex(context: HistoryContext, search: PickerSearch): Promise<string | undefined> {
  const path = databasePath(context.recallHome);
  const staleness = search.withDatabase((db) => checkStaleness(db, context.roots, context.scanned));
  // a whole walk that found nothing is stored too, or the next check walks everything again (staleness.ts)
  if (!needsIndexRun(staleness)) return undefined;
  const { runIndex } = await import("../index/write/indexer.ts");
  const warnings: string[] = [];
  try {
    const summary = await runIndex({
      recallHome: context.recallHome,
      roots: context.roots,
      lockWaitMs: 0,
      hooks: { onWarning: (message) => warnings.push(message) },
      prescanned: staleness.wholeScans, // the run plans from the check's walks instead of walking again
    });
    search.reopen(openIndex(path, { readonly: true, pageCacheKibibytes: longLivedPageCacheKibibytes }));
    if (!staleness.stale) return undefined; // only a walk was stored: nothing to say
    const changed = summary.added + summary.updated + summary.deleted;
    return `index updated: ${changed} session${changed === 1 ? "" : "s"} changed${warnings.length > 0 ? `, ${warnings.length} warnings (recall index shows them)` : ""}`;
  } catch (error) {
    if (error instanceof IndexError && error.code === "INDEX_LOCKED")
      return staleness.stale ? "another index run is in progress: showing the last committed index" : undefined;
    throw error;
  }
}

/**
 * The semantic leg of the picker: opened in the background after the first frame, through the warm embedding helper
 * for a local model (started when none runs) or directly for a remote endpoint; never when `--keyword-only`, and
 * never blocking the screen. Its notice (why there is no vector leg) goes to the status line.
 */
class SemanticSide {
  started = false;
  private closed = false;
  private helper: HelperQueryEmbedder | undefined;
  private embedder: EmbedderOpener | undefined;

  constructor(
    private readonly context: HistoryContext,
    private readonly model: string | undefined,
    private readonly keywordOnly: boolean,
  ) {}

  /**
   * Resolves when the vector leg is set on `search` ({ready: true}), or with the reason there is none.
   * @param after the leg is opened once this resolves (the first frame is out)
   */
  start(search: PickerSearch, after: Promise<void>): Promise<{ ready: boolean; note?: string }> {
    if (this.keywordOnly) return Promise.resolve({ ready: false });
    return (async () => {
      await after;
      if (this.closed) return { ready: false }; // the picker was left before the leg was due
      this.started = true;
      const semantic = await import("../service/search-semantic.ts");
      this.embedder = semantic.createEmbedderOpener(this.context.paths, this.model, false);
      const model = semantic.helperModel(this.context.paths, this.model);
      this.helper = model
        ? await semantic.openHelperQueryEmbedder(this.context.paths, this.context.recallHome, model, this.model)
        : undefined;
      return await this.openLeg(search);
    })().catch((error: unknown) => ({ ready: false, note: `keyword-only: ${errorLine(error)}` }));
  }

  private async openLeg(search: PickerSearch): Promise<{ ready: boolean; note?: string }> {
    const { openVectorLeg } = await import("../service/vector-leg.ts");
    const helper = this.helper;
    const choice = await search.withDatabase((db) =>
      openVectorLeg(db, this.context.recallHome, helper ? { open: async () => helper } : this.embedder!),
    );
    search.vectorLeg = choice.leg;
    if (choice.leg) return { ready: true };
    // An index that never had embeddings is keyword-only by choice (the status line says "keyword"); a reason is worth
    // the status line when vectors exist but cannot be used (model missing or changed, files damaged).
    return { ready: false, note: choice.neverEmbedded ? undefined : choice.notice };
  }

  /** Open the leg again on the search's new connection (after a background index run). */
  reopen(search: PickerSearch): void {
    if (this.embedder) this.openLeg(search).catch(() => (search.vectorLeg = undefined));
  }

  /** Ask the helper to embed what the index lacks (as `recall search` does after updating the index keyword-only). */
  async requestPendingEmbeddings(search: PickerSearch, context: HistoryContext): Promise<void> {
    if (!this.helper) return;
    const { hasPendingEmbeddings } = await import("../service/search-semantic.ts");
    if (search.withDatabase((db) => hasPendingEmbeddings(db)))
      await this.helper.requestIndex(context.roots).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.helper?.close();
    await this.embedder?.dispose();
  }
}

/** Show `lines` in $PAGER (default `less -R`), the picker's screen handed over meanwhile by the caller. */
async function openPager(lines: string[]): Promise<void> {
  const pager = process.env.PAGER?.trim() || "less -R";
  const child = Bun.spawn(["sh", "-c", pager], {
    stdin: new Blob([`${lines.join("\n")}\n`]),
    stdout: "inherit",
    stderr: "inherit",
  });
  await child.exited;
}
