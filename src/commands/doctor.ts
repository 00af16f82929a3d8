/**
 * `recall doctor`: checks sources, folders, index, snapshot, vectors, model or endpoint, and Claude Code's cleanup
 * period. Flags and help only; what the command does is doctor-handler.ts, loaded when it runs.
 */
import { command, flag, option, optional, string } from "cmd-ts";
import type { ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags of `recall doctor`. */
const doctorArgs = {
  checkModel: flag({ long: "check-model", description: "Also load the local model and embed a probe text (slower)" }),
  model: option({
    long: "model",
    type: optional(string),
    description: "Model preset name or .gguf path to check (default: RECALL_MODEL or the default preset)",
  }),
  json: flag({
    long: "json",
    description: 'Print one JSON object: {"ok": bool, "checks": [{id, status, message, fix}]}',
  }),
  restoreSnapshot: flag({
    long: "restore-snapshot",
    description:
      "Replace the index with its last snapshot (kept daily by `recall index`; the replaced file is kept aside as index.sqlite.damaged-<time>), then run `recall index`",
  }),
  ...sourceArgs,
};

/** `recall doctor`'s arguments as cmd-ts parsed them. */
export type DoctorArgs = ParsedArgs<typeof doctorArgs>;

/** The `doctor` subcommand. */
export const doctorCommand = command({
  name: "doctor",
  description:
    "Check sources, folders, index health, its snapshot, vectors, the embedding model or endpoint, and Claude Code's cleanup period",
  args: doctorArgs,
  handler: async (args) => (await import("./doctor-handler.ts")).doctor(args),
});
