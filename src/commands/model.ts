/**
 * `recall model pull [name]` and `recall model list`: fetch an embedding model into the cache folder's models/, and
 * show what is present. Flags and help only; what the commands do is model-handler.ts, loaded when one runs.
 */
import { command, flag, optional, positional, string, subcommands } from "cmd-ts";
import type { ParsedArgs } from "./args.ts";

/** The positional of `recall model pull`. */
const pullArgs = {
  name: positional({ type: optional(string), displayName: "name", description: "Preset name (default: the configured model, else qwen3-embedding-0.6b with a GPU and bge-small-en-v1.5 without; see `recall model list`)" }),
};

/** `recall model pull`'s arguments as cmd-ts parsed them. */
export type PullArgs = ParsedArgs<typeof pullArgs>;

/** The flags of `recall model list`. */
const listArgs = { json: flag({ long: "json", description: "Print one JSON object" }) };

/** `recall model list`'s arguments as cmd-ts parsed them. */
export type ListArgs = ParsedArgs<typeof listArgs>;

const pull = command({
  name: "pull",
  description: "Download an embedding model preset into ~/.cache/recall/models or RECALL_HOME/models (resumes a partial download)",
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
export const modelCommand = subcommands({ name: "model", description: "Manage embedding model files (pull, list)", cmds: { pull, list } });
