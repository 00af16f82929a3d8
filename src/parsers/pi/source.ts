/**
 * pi's identity and folders (source-info.ts; docs/formats/pi.md). pi (badlogic/pi-mono `packages/coding-agent`,
 * `src/config.ts` `getAgentDir` at 83378aad) keeps its data in `$PI_CODING_AGENT_DIR`, else `~/.pi/agent` (Node's
 * `homedir()`, so the same place on Linux, macOS and Windows), sessions in its `sessions/` folder.
 */
import { join } from "node:path";
import { expandPath } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export const piSource: SourceInfo<"piDir"> = {
  id: "pi",
  displayName: "pi",
  flag: "pi-dir",
  argName: "piDir",
  variable: "RECALL_PI_DIRS",
  locationVariables: ["PI_CODING_AGENT_DIR"],
  help: "pi agent folder holding sessions/<project>/*.jsonl, or any copy of it (repeatable; default $PI_CODING_AGENT_DIR or ~/.pi/agent; env RECALL_PI_DIRS)",
  defaultRoots: (env, home) => [
    env.PI_CODING_AGENT_DIR ? expandPath(env.PI_CODING_AGENT_DIR, home) : join(home, ".pi", "agent"),
  ],
};
