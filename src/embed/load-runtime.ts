/**
 * The one place that decides how node-llama-cpp is imported, so the compiled-binary runtime (extract the
 * pre-bundled package on first run, runtime-notes §2) can replace it later without touching callers.
 * Everything else in src/ uses `import type` only; test/embed/lazy-import.test.ts enforces that.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Llama } from "node-llama-cpp";
import { extractEmbeddedGroup, isCompiledBinary } from "../binary/embedded-files.ts";
import { EmbedError } from "../errors.ts";

/** The node-llama-cpp module namespace. */
export type NodeLlamaCpp = typeof import("node-llama-cpp");

let modulePromise: Promise<NodeLlamaCpp> | undefined;
let llamaPromise: Promise<Llama> | undefined;

/**
 * Imports node-llama-cpp once (dynamic import; ~150 ms under Bun, runtime-notes §1).
 * @throws EmbedError(EMBED_FAILED) when the package or its native binary cannot be loaded
 */
export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  modulePromise ??= (isCompiledBinary() ? importEmbeddedRuntime() : import("node-llama-cpp")).catch(
    (cause: unknown) => {
      modulePromise = undefined;
      throw new EmbedError("EMBED_FAILED", `cannot load node-llama-cpp: ${String(cause)}`, { cause });
    },
  );
  return modulePromise;
}

/**
 * Compiled binary only: extracts the pre-bundled node-llama-cpp (dist/index.js, llama/*.json, bins/<platform>)
 * into RECALL_HOME/runtime on first use and imports it by absolute path, since a compiled Bun binary cannot
 * resolve packages from disk and node-llama-cpp finds its native libs relative to its own file (runtime-notes §2).
 * The build patches out the 3 "testBindingBinary.js is not independent" console.warn lines (scripts/build/runtime.ts).
 */
async function importEmbeddedRuntime(): Promise<NodeLlamaCpp> {
  const dir = extractEmbeddedGroup("node-llama-cpp");
  return (await import(join(dir, "dist", "index.js"))) as NodeLlamaCpp;
}

/** A log sink for llama.cpp's native messages (level name, one message). */
export type NativeLogHook = (level: string, message: string) => void;

let nativeLogHook: NativeLogHook | undefined;

/** Routes llama.cpp's error-level messages to `hook` (default: dropped). Never reaches stdout. */
export function setNativeLogHook(hook: NativeLogHook | undefined): void {
  nativeLogHook = hook;
}

/**
 * Returns the shared Llama instance: `gpu: "auto"` (falls back to CPU; none here), `build: "never"` (never
 * compiles or downloads), `maxThreads: os.availableParallelism()` (the default of 4 threads is ~100× slower on
 * 2 cores: 1684 ms vs 15.5 ms per short embedding, runtime-notes §1), logs at error level through a logger so
 * native chatter never reaches stdout.
 * @throws EmbedError(EMBED_FAILED) when no usable binary exists
 */
export function getSharedLlama(): Promise<Llama> {
  llamaPromise ??= (async () => {
    const nlc = await loadNodeLlamaCpp();
    const options = {
      build: "never" as const,
      maxThreads: availableParallelism(),
      logLevel: nlc.LlamaLogLevel.error,
      logger: (level: string, message: string) => nativeLogHook?.(level, message.trimEnd()),
    };
    try {
      return await nlc.getLlama({ ...options, gpu: "auto" });
    } catch {
      return await nlc.getLlama({ ...options, gpu: false });
    }
  })().catch((cause: unknown) => {
    llamaPromise = undefined;
    throw cause instanceof EmbedError
      ? cause
      : new EmbedError("EMBED_FAILED", `cannot start llama.cpp: ${String(cause)}`, { cause });
  });
  return llamaPromise;
}
