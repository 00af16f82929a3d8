/**
 * Where the example history shipped with recall lives (`examples/` in the repository, used when a
 * machine has no agent history at all). Returns undefined when it is not available.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Absolute path of the examples folder (holding `claude-code/` and `opencode/`), or undefined. */
export function findExamplesRoot(): string | undefined {
  const candidate = join(import.meta.dir, "..", "..", "examples");
  return existsSync(join(candidate, "claude-code")) ? candidate : undefined;
}
