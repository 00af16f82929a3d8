/**
 * The warm path of a CLI search (issue 17): embed the query through the per-user embedding helper
 * (embed-helper.ts) instead of loading the model in this short-lived process. The first hybrid search of a
 * (index, model) starts the helper and waits for it (about what loading the model here costs); later searches
 * connect in a few ms. The helper exits by itself after 10 idle minutes, listens on a Unix socket in the user's
 * private cache folder (no port), and never holds the caller's stdout or stderr (an agent's shell tool would
 * otherwise wait for it). Off with RECALL_EMBED_HELPER=off (then every search loads the model, as before); remote
 * endpoints never use it. Keyword-only searches never reach this file.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { isCompiledBinary } from "../binary/embedded-files.ts";
import {
  connectEmbedHelper,
  helperSocketPath,
  helpersDir,
  resolveEmbedConfig,
  type HelperConnection,
  type HelperRoots,
  type LocalEmbedConfig,
  type QueryEmbedder,
} from "../embed/index.ts";
import { makePrivateDirs, type RecallPaths } from "../index/index.ts";

/** A helper connection presented as the model a search needs, plus the helper's extra request. */
export interface HelperQueryEmbedder extends QueryEmbedder {
  /** Asks the helper to embed, in the background, what this index lacks (after a keyword-only update). */
  requestIndex(roots: HelperRoots): Promise<void>;
  /** Closes the connection (the helper keeps running). */
  close(): void;
}

/** How long a search waits for a helper it started to answer, in ms (default 120 000; env RECALL_EMBED_HELPER_START_MS). */
export function helperStartWaitMs(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env.RECALL_EMBED_HELPER_START_MS);
  return Number.isFinite(value) && value >= 0 ? value : 120_000;
}

/** False when RECALL_EMBED_HELPER is `off`, `0`, `false` or `no`. */
export function helperEnabled(env: Record<string, string | undefined> = process.env): boolean {
  return !["off", "0", "false", "no"].includes((env.RECALL_EMBED_HELPER ?? "").toLowerCase());
}

/**
 * The local model a search would embed its query with through the helper, or undefined when the helper does not
 * apply: it is switched off, the model is remote, or its file is missing. Never throws (a bad model name is reported
 * by the in-process path).
 */
export function helperModel(
  paths: RecallPaths,
  modelFlag: string | undefined,
  env: Record<string, string | undefined> = process.env,
): LocalEmbedConfig | undefined {
  if (!helperEnabled(env)) return undefined;
  try {
    const config = resolveEmbedConfig({ env, home: paths, modelFlag });
    return config.kind === "local" && existsSync(config.modelPath) ? config : undefined;
  } catch {
    return undefined;
  }
}

/** How this recall runs: `[binary]` compiled, `[bun, <repo>/src/cli.ts]` from source. */
function recallInvocation(): string[] {
  return isCompiledBinary() ? [process.execPath] : [process.execPath, join(import.meta.dir, "..", "cli.ts")];
}

function wrap(connection: HelperConnection): HelperQueryEmbedder {
  return {
    fingerprint: connection.model.fingerprint,
    fingerprintKey: connection.model.fingerprintKey,
    dims: connection.model.dims,
    embedQuery: (text) => connection.embedQuery(text),
    requestIndex: (roots) => connection.requestIndex(roots),
    close: () => connection.close(),
  };
}

/**
 * Start a helper for `socketPath`: detached, in its own process group, stdin/stdout closed, stderr to
 * `<socket without .sock>.log`. Resolves to a function telling whether it has exited.
 */
function startHelper(
  socketPath: string,
  recallHome: string,
  modelFlag: string | undefined,
  env: Record<string, string | undefined>,
): () => boolean {
  const log = openSync(socketPath.replace(/\.sock$/, ".log"), "w", 0o600);
  try {
    const [command, ...prefix] = recallInvocation();
    const child = spawn(
      command!,
      [...prefix, "embed-helper", "--index-home", recallHome, ...(modelFlag ? ["--model", modelFlag] : [])],
      {
        detached: true,
        stdio: ["ignore", "ignore", log],
        env: env as NodeJS.ProcessEnv,
      },
    );
    let exited = false;
    child.once("exit", () => (exited = true));
    child.once("error", () => (exited = true));
    child.unref();
    return () => exited;
  } finally {
    closeSync(log);
  }
}

/**
 * The query embedder of a running helper for this index and model, starting one when none answers.
 * @param paths recall's folders (the socket lives in `<cache>/helpers`)
 * @param recallHome the index folder being searched
 * @param config the model, as {@link helperModel} resolved it (the started helper resolves it again from `modelFlag`
 *        and the same environment)
 * @returns undefined when the helper could not be started or did not answer in time (the caller then loads the model
 *          itself); never throws
 */
export async function openHelperQueryEmbedder(
  paths: RecallPaths,
  recallHome: string,
  config: LocalEmbedConfig,
  modelFlag: string | undefined,
  env: Record<string, string | undefined> = process.env,
): Promise<HelperQueryEmbedder | undefined> {
  try {
    const socketPath = helperSocketPath(paths, recallHome, config, packageJson.version);
    if (!socketPath) return undefined;
    const running = await connectEmbedHelper(socketPath, 2000);
    if (running) return wrap(running);
    makePrivateDirs(helpersDir(paths));
    const hasExited = startHelper(socketPath, recallHome, modelFlag, env);
    const deadline = Date.now() + helperStartWaitMs(env);
    while (Date.now() < deadline) {
      await Bun.sleep(25);
      const started = existsSync(socketPath) ? await connectEmbedHelper(socketPath, 2000) : undefined;
      if (started) return wrap(started);
      if (hasExited()) return undefined;
    }
  } catch {
    // any trouble here means: no helper, load the model in this process
  }
  return undefined;
}
