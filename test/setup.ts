/**
 * Preloaded before every test file (bunfig.toml): the suite never touches the network for models
 * (issue 4: RECALL_OFFLINE=1 forbids every download), never reads the developer's real history, and
 * never prints colors.
 */
process.env.RECALL_OFFLINE = "1";
process.env.NO_COLOR = "1";
// Searches load the model in their own process unless a test starts the embedding helper on purpose
// (test/commands/embed-helper.test.ts): no helper outlives a test run.
process.env.RECALL_EMBED_HELPER = "off";
