/**
 * `recall model pull [name]`, `recall model list` and `recall model use <name>`: fetch an embedding model into the
 * cache folder's models/, show what is present, and choose the model in the settings file. Flags and help only; what the commands do is model-handler.ts, loaded when one runs.
 */
import { command, flag, optional, positional, string, subcommands } from "cmd-ts";
import type { ParsedArgs } from "../service/args.ts";

/** The positional of `recall model pull`. */
const pullArgs = {
  name: positional({
    type: optional(string),
    displayName: "name",
    description:
      "Preset name (default: the configured model, else qwen3-embedding-0.6b with a GPU and bge-small-en-v1.5 without; see `recall model list`)",
  }),
};

/** `recall model pull`'s arguments as cmd-ts parsed them. */
export type PullArgs = ParsedArgs<typeof pullArgs>;

/** The flags of `recall model list`. */
const listArgs = { json: flag({ long: "json", description: "Print one JSON object" }) };

/** `recall model list`'s arguments as cmd-ts parsed them. */
export type ListArgs = ParsedArgs<typeof listArgs>;

/** The positional of `recall model use`. */
const useArgs = {
  name: positional({
    type: string,
    displayName: "name",
    description: "A preset name, a path to a .gguf file, or `default` (the choice by hardware)",
  }),
};

/** `recall model use`'s arguments as cmd-ts parsed them. */
export type UseArgs = ParsedArgs<typeof useArgs>;

const use = command({
  name: "use",
  description:
    "Choose the local embedding model: saves RECALL_MODEL in the settings file (~/.config/recall/.env, 0600); the next `recall index` downloads it and re-embeds",
  args: useArgs,
  handler: async (args) => (await import("./model-handler.ts")).use(args),
});

const pull = command({
  name: "pull",
  description:
    "Download an embedding model preset into ~/.cache/recall/models or RECALL_HOME/models (resumes a partial download)",
  args: pullArgs,
  handler: async (args) => (await import("./model-handler.ts")).pull(args),
});

const list = command({
  name: "list",
  description: "Show the model files present (size, dims, pooling) and the presets that can be pulled",
  args: listArgs,
  handler: async (args) => (await import("./model-handler.ts")).list(args),
});

/** The `model` subcommand group. */
export const modelCommand = subcommands({
  name: "model",
  description: "Manage embedding models (list, use, pull)",
  cmds: { list, use, pull },
});
