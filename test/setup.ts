/**
 * Preloaded before every test file (bunfig.toml): the suite never touches the network for models
 * (issue 4: RECALL_OFFLINE=1 forbids every download), never reads the developer's real history, never
 * prints colors, and never inherits the caller's recall configuration (issue 39: with `RECALL_AIDER_DIRS`
 * exported, as the README documents, 19 tests failed). Every test that spawns the CLI passes
 * `...process.env` on, so cleaning it here cleans every child too.
 */
import { sources } from "../src/parsers/sources.ts";

/**
 * What the caller's shell may set that recall reads: its own settings (`RECALL_*`), the embedding endpoint
 * (`EMBEDDINGS_*`), the summary backends (`SUMMARIES_*`, `ANTHROPIC_*`), and the agents' and the system's folders.
 */
const callerSettings =
  /^(RECALL_|EMBEDDINGS_|SUMMARIES_|ANTHROPIC_)|^(XDG_(CONFIG|DATA|CACHE|STATE)_HOME|APPDATA|LOCALAPPDATA)$/;

/** Every agent's own folder variables, from the registry (parsers/sources.ts: CODEX_HOME, COPILOT_HOME, …). */
const agentLocations = new Set(sources.flatMap((source) => source.locationVariables));

/** Knobs of the tests themselves (crash-recovery's fault injection, extra Aider histories, bench caches): kept. */
const testKnobs = /^RECALL_(FAULT_|AIDER_HISTORIES$|TEST_|BENCH_)/;

for (const name of Object.keys(process.env)) {
  if ((callerSettings.test(name) || agentLocations.has(name)) && !testKnobs.test(name)) delete process.env[name];
}
process.env.RECALL_OFFLINE = "1";
process.env.NO_COLOR = "1";
// Searches load the model in their own process unless a test starts the embedding helper on purpose
// (test/commands/embed-helper.test.ts): no helper outlives a test run.
process.env.RECALL_EMBED_HELPER = "off";
