/**
 * What `recall embed-helper` does (its flags and help: embed-helper.ts): loads the embedding model once and serves
 * query embeddings on a private Unix socket, so the next CLI or skill searches skip the model load (issue 17). After a
 * search has indexed new turns keyword-only, it embeds them here in the background. It exits after
 * RECALL_EMBED_HELPER_IDLE_MS (default 10 minutes) without a request, or on SIGTERM/SIGINT, and removes its socket.
 * Its stderr is the log file `<cache>/helpers/embed-<key>.log`.
 */
import packageJson from "../../package.json" with { type: "json" };
import { EmbedError, IndexError, UsageError } from "../errors.ts";
import {
  helperSocketPath,
  helpersDir,
  openEmbedder,
  resolveEmbedConfig,
  serveEmbedHelper,
  stopEmbedHelpers,
  type Embedder,
  type HelperRoots,
} from "../embed/index.ts";
import { resolveRecallPaths, runIndex } from "../index/index.ts";
import type { SourceId } from "../parsers/index.ts";
import { countOf } from "../render/format.ts";
import { writeOut } from "../render/terminal.ts";
import { warn } from "../service/context.ts";
import type { EmbedHelperArgs } from "./embed-helper.ts";

/** Default idle time before the helper exits, in ms (10 minutes). */
export const defaultHelperIdleMs = 10 * 60 * 1000;

/** RECALL_EMBED_HELPER_IDLE_MS when it is a whole number of ms ≥ 100, else {@link defaultHelperIdleMs}. */
export function helperIdleMs(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env.RECALL_EMBED_HELPER_IDLE_MS);
  return Number.isInteger(value) && value >= 100 ? value : defaultHelperIdleMs;
}

/** One incremental index run that embeds what is pending; a run already holding the index lock wins (we skip). */
async function indexPending(recallHome: string, roots: HelperRoots, embedder: Embedder): Promise<void> {
  try {
    const summary = await runIndex({
      recallHome,
      roots: roots as Record<SourceId, string[]>,
      lockWaitMs: 0,
      openEmbedder: async () => embedder,
      hooks: { onWarning: (line) => warn(`index: ${line}`) },
    });
    if (summary.embedding?.embedded) warn(`index: embedded ${countOf(summary.embedding.embedded, "chunk")}`);
  } catch (error) {
    if (error instanceof IndexError && error.code === "INDEX_LOCKED")
      return warn("index: another run holds the index; its chunks wait for the next request");
    throw error;
  }
}

/** Runs `recall embed-helper` with its parsed arguments; resolves to the exit code when the helper stops. */
export async function embedHelper(args: EmbedHelperArgs): Promise<number> {
  const paths = resolveRecallPaths(process.env);
  if (args.stop) {
    const stopped = await stopEmbedHelpers(helpersDir(paths));
    writeOut(`stopped ${countOf(stopped, "embedding helper")}\n`);
    return 0;
  }
  if (!args.indexHome)
    throw new UsageError(
      "--index-home is missing",
      "`recall search` starts the helper by itself; `recall embed-helper --stop` stops them",
    );
  const config = resolveEmbedConfig({ env: process.env, home: paths, modelFlag: args.model });
  if (config.kind !== "local")
    throw new UsageError("the embedding helper serves local models only (a remote endpoint is already warm)");
  const indexHome = args.indexHome;
  const socketPath = helperSocketPath(paths, indexHome, config, packageJson.version);
  if (!socketPath)
    throw new EmbedError(
      "MODEL_MISSING",
      `no socket path for ${config.modelPath} (missing model file, or the cache path is too long)`,
    );
  const embedder = await openEmbedder({ env: process.env, home: paths, modelFlag: args.model, config });
  let stop: (() => void) | undefined;
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => stop?.());
  const reason = await serveEmbedHelper({
    socketPath,
    embedder,
    idleMs: helperIdleMs(),
    onIndex: (roots, queued) => indexPending(indexHome, roots, queued),
    log: (line) => warn(line),
    onReady: (shutdown) => (stop = shutdown),
  });
  return reason === "idle" || reason === "stopped" || reason === "already-running" ? 0 : 1;
}
