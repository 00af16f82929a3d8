/**
 * Grok CLI's identity and folders (source-info.ts; docs/formats/grok-cli.md). superagent-ai/grok-cli (the
 * `@vibe-kit/grok-cli` package, command `grok`) keeps its sessions in one SQLite database, `~/.grok/grok.db`, on every
 * platform (`os.homedir()` joined with `.grok`): `src/storage/db.ts` `getDatabasePath`, commit fb97af83.
 */
import { join } from "node:path";
import type { SourceInfo } from "../source-info.ts";

/** `~/.grok`. */
export const grokCliSource: SourceInfo<"grokDir"> = {
  id: "grok-cli",
  displayName: "Grok CLI",
  flag: "grok-dir",
  argName: "grokDir",
  variable: "RECALL_GROK_DIRS",
  locationVariables: [],
  help: "Grok CLI folder holding grok.db (its SQLite session store), or the database itself, or any copy of them (repeatable; default ~/.grok; env RECALL_GROK_DIRS)",
  defaultRoots: (_env, home) => [join(home, ".grok")],
};
