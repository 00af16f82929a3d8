/**
 * What `recall eval` does (its flags and help: eval.ts): bring the index up to date, find the labelled queries of this
 * history (evaluate/labels.ts) and store them in the index, then
 *   * plain: measure them at levels 1 and 2 (evaluate/measure.ts), with the vector leg when a model is set (hybrid, and
 *     keyword-only beside it) and with the user's tuning when there is one, as their searches rank;
 *   * `--tune`: fit on half, measure the other half, store the tuning only when it is no worse (evaluate/tune.ts);
 *   * `--reset`: remove the stored tuning.
 * A progress bar on a terminal; the text or `--json` report from render/eval.ts. Exit 0, also when the history holds no
 * labels (it says so); 1 when `--tune` has fewer than 50 labels; 2 for `--tune` with `--reset`.
 */
import type { Database } from "bun:sqlite";
import { UsageError } from "../errors.ts";
import {
  countLabelledSessions,
  findLabels,
  measureLabels,
  readStoredLabels,
  removeTuning,
  storeLabels,
  storeTuning,
  tuneOnLabels,
} from "../evaluate/index.ts";
import type { RecallPaths } from "../home/paths.ts";
import { databasePath, openIndex } from "../index/index.ts";
import { renderEvalJson, renderEvalText, renderTuneJson, renderTuneText } from "../render/eval.ts";
import { createProgressBar } from "../render/progress.ts";
import { writeOut } from "../render/terminal.ts";
import type { VectorLeg } from "../search/index.ts";
import { readTuning } from "../search/ranking/tuning.ts";
import { openFreshIndex, resolveHistory, warn } from "../service/context.ts";
import type { EmbedderOpener } from "../service/embedder.ts";
import type { EvalArgs } from "./eval.ts";

/** The embedding model's opener (what `recall search` would use), or undefined for `--keyword-only`. */
async function embedderOpener(args: EvalArgs, paths: RecallPaths): Promise<EmbedderOpener | undefined> {
  if (args.keywordOnly) return undefined;
  const semantic = await import("../service/search-semantic.ts");
  return semantic.createEmbedderOpener(paths, args.model, false);
}

/** The vector leg of the index's model, or undefined (with a notice when vectors exist but cannot be used). */
async function vectorLegFor(
  db: Database,
  recallHome: string,
  opener: EmbedderOpener | undefined,
): Promise<VectorLeg | undefined> {
  if (!opener) return undefined;
  const { openVectorLeg } = await import("../service/search-semantic.ts");
  const choice = await openVectorLeg(db, recallHome, opener);
  if (!choice.leg && !choice.neverEmbedded && choice.notice) warn(`recall: ${choice.notice}`);
  return choice.leg;
}

/** Runs `recall eval` with its parsed arguments; resolves to the exit code. */
export async function evaluate(args: EvalArgs): Promise<number> {
  if (args.tune && args.reset) throw new UsageError("give --tune or --reset, not both", "example: recall eval --tune");
  if (args.limit !== undefined && (!Number.isInteger(args.limit) || args.limit < 1))
    throw new UsageError(`--limit must be a whole number of at least 1, got ${args.limit}`);
  const context = resolveHistory(args);
  const opener = await embedderOpener(args, context.paths);
  (await openFreshIndex(context, { reindex: !args.noReindex, embedder: opener })).close();
  // Read-write: the labels are stored, and each is measured in a transaction that is rolled back (evaluate/withhold.ts).
  // An index run (the watcher) commits in batches of a few seconds: wait for one rather than fail.
  const db = openIndex(databasePath(context.recallHome), { busyTimeoutMs: 60_000 });
  try {
    if (args.reset) {
      const had = removeTuning(db);
      writeOut(
        args.json
          ? `${JSON.stringify({ version: 1, reset: had })}\n`
          : had
            ? "removed your tuning: searches use the committed calibration\n"
            : "no tuning was stored: searches use the committed calibration\n",
      );
      return 0;
    }
    storeLabels(db, findLabels(db, { perKind: args.limit }));
    const labels = readStoredLabels(db);
    const vectorLeg = labels.length > 0 ? await vectorLegFor(db, context.recallHome, opener) : undefined;
    const bar = args.json ? { update() {}, stop() {} } : await createProgressBar("measuring", "queries");
    try {
      if (args.tune) {
        const report = await tuneOnLabels(db, labels, {
          vectorLeg,
          onProgress: (done, total) => bar.update(done, total),
        });
        bar.stop();
        if (report.tuning) storeTuning(db, report.tuning);
        writeOut(args.json ? `${renderTuneJson(report)}\n` : renderTuneText(report));
        return 0;
      }
      const tuning = readTuning(db);
      const hybrid = vectorLeg
        ? await measureLabels(db, labels, {
            mode: "hybrid",
            vectorLeg,
            onProgress: (done, total) => bar.update(done, 2 * total),
          })
        : undefined;
      const offset = hybrid ? labels.length : 0;
      const keyword = await measureLabels(db, labels, {
        mode: "keyword",
        onProgress: (done, total) => bar.update(offset + done, offset + total),
      });
      bar.stop();
      const sessions = countLabelledSessions(db);
      const report = { labels, sessions, keyword, hybrid, model: vectorLeg?.model ?? null, tuning };
      writeOut(args.json ? `${renderEvalJson(report)}\n` : renderEvalText(report));
      return 0;
    } finally {
      bar.stop();
    }
  } finally {
    db.close();
  }
}
