/**
 * Where the example history shipped with recall lives (used when a machine has no agent history at all):
 * `examples/` in the repository under `bun src/cli.ts`, or the copy embedded in the compiled binary, extracted
 * on first use into RECALL_HOME/runtime/examples-<hash12>/ (src/binary/embedded-files.ts). This is the single
 * place that locates it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { extractEmbeddedGroup, isCompiledBinary } from "../binary/embedded-files.ts";

/**
 * Absolute path of the examples folder (holding `claude-code/` and `opencode/`), or undefined when it is not
 * available (a binary built without examples, or an extraction that failed).
 */
export function findExamplesRoot(): string | undefined {
  let candidate = join(import.meta.dir, "..", "..", "examples");
  if (isCompiledBinary()) {
    try {
      candidate = extractEmbeddedGroup("examples");
    } catch {
      return undefined;
    }
  }
  return existsSync(join(candidate, "claude-code")) ? candidate : undefined;
}
