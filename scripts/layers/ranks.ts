/**
 * DESIGN.md "Layout": a folder of `src/` is a layer and imports go downward only. The ranks, lowest first, shared by
 * the import test (test/layers.test.ts) and the query walk (query-walk.ts): a file may value-import from its own layer
 * or a lower one. `binary/` (files embedded in the compiled executable) sits between the index and the embedding
 * runtime; `service/` (opening the index with its freshness check, the embedder, the vector leg, the shared flags)
 * under the front ends.
 */
export const layerRanks: Readonly<Record<string, number>> = {
  "errors.ts": 0,
  parsers: 1,
  home: 1,
  redact: 1,
  native: 1,
  index: 2,
  binary: 3,
  embed: 4,
  summarize: 5,
  search: 5,
  "team-archive": 5,
  doctor: 5,
  evaluate: 6,
  render: 6,
  http: 6,
  service: 7,
  commands: 8,
  mcp: 8,
  pick: 8,
  ui: 8,
  "app.ts": 9,
  "cli.ts": 10,
};

/**
 * The front ends (issue 39): the CLI's commands, the MCP server, the picker and the web view. Siblings over `service/`
 * (the application layer every one of them calls) and the layers below: none imports another.
 */
export const frontEnds: ReadonlySet<string> = new Set(["commands", "mcp", "pick", "ui"]);

/** The layer of a path relative to `src/`: its first folder, or the file itself at the top (`app.ts`). */
export const layerOfRelative = (relativePath: string): string => relativePath.split("/")[0]!;
