/**
 * `recall init zsh|bash|fish`: prints the shell code that binds Alt-R to `recall pick` (src/pick/shell-init.ts).
 */
import { command, oneOf, positional } from "cmd-ts";
import { supportedShells } from "./shell-init.ts";
import type { ParsedArgs } from "../service/args.ts";

const initArgs = {
  shell: positional({
    type: oneOf(supportedShells),
    displayName: "shell",
    description: "zsh, bash or fish",
  }),
};

/** `recall init`'s arguments as cmd-ts parsed them. */
export type InitArgs = ParsedArgs<typeof initArgs>;

/** The `init` subcommand. */
export const initCommand = command({
  name: "init",
  description:
    'Print a key binding for your shell: Alt-R opens `recall pick` and puts the chosen resume command on the command line. zsh: eval "$(recall init zsh)" in ~/.zshrc; bash: eval "$(recall init bash)" in ~/.bashrc; fish: recall init fish | source in config.fish',
  args: initArgs,
  handler: async (args) => {
    const [{ shellInit }, { recallCommandLine }, { writeOut }] = await Promise.all([
      import("./shell-init.ts"),
      import("../binary/install-skill.ts"),
      import("../render/terminal.ts"),
    ]);
    writeOut(shellInit(args.shell, recallCommandLine()));
    return 0;
  },
});
