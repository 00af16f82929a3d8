/**
 * What the command definitions share: the `--model` option and the type a handler receives. The definitions
 * (search.ts, index.ts, ...) hold flags and help only and load their handler (search-handler.ts, ...) when the command
 * runs, so wiring every command in app.ts loads cmd-ts and the definitions, not the layers a command uses (issue 14).
 */
import { flag, option, optional, string } from "cmd-ts";
import type { ArgParser, ParsingInto } from "cmd-ts/dist/cjs/argparser";

/** What cmd-ts hands the handler of a command whose arguments are `Args` (cmd-ts' own `Output<Args>`, which it does not export). */
export type ParsedArgs<Args extends Record<string, ArgParser<unknown>>> = {
  [Name in keyof Args]: ParsingInto<Args[Name]>;
};

/** The `--model` option shared by `index`, `search`, `watch`, `mcp` and `embed-helper`. */
export const modelArg = {
  model: option({
    long: "model",
    type: optional(string),
    description:
      "Embedding model: a preset name (qwen3-embedding-0.6b, embeddinggemma-300m, nomic-embed-text-v1.5, bge-small-en-v1.5, all-minilm-l6-v2; the default depends on the GPU: `recall model list`) or a path to a .gguf file (env RECALL_MODEL)",
  }),
};

/** The `--no-reindex` flag of the commands that read the index (search and the picker word it their own way). */
export const noReindexArg = {
  noReindex: flag({ long: "no-reindex", description: "Do not update the index first" }),
};
