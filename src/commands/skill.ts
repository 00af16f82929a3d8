/**
 * `recall skill install [--dir DIR]`: copies the Claude Code skill (SKILL.md, references/, scripts/) into
 * ~/.claude/skills/recall/ (or DIR), wired to this recall by absolute path.
 */
import { command, option, optional, string, subcommands } from "cmd-ts";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { countOf } from "../render/format.ts";
import { writeOut, writeErr } from "../render/terminal.ts";

const installCommand = command({
  name: "install",
  description:
    "Install the Claude Code skill into ~/.claude/skills/recall (or --dir), calling this recall by absolute path",
  args: {
    dir: option({
      long: "dir",
      type: optional(string),
      description: "Skill folder to write (default $CLAUDE_CONFIG_DIR/skills/recall or ~/.claude/skills/recall)",
    }),
  },
  handler: async (args) => {
    const { defaultSkillDir, installSkill, recallCommandLine } = await import("../binary/install-skill.ts");
    const target = args.dir ? resolve(args.dir) : defaultSkillDir(process.env, process.env.HOME || homedir());
    const files = installSkill(target);
    writeOut(`installed the recall skill in ${target} (${countOf(files.length, "file")})\n`);
    writeErr(
      `the skill runs: ${recallCommandLine()}\nnext: in Claude Code, ask "have we seen this error before?"; the first use walks you through setup (references/FIRST_RUN.md)\n`,
    );
    return 0;
  },
});

/** The `skill` subcommand group. */
export const skillCommand = subcommands({
  name: "skill",
  description: "Manage the Claude Code skill (install)",
  cmds: { install: installCommand },
});
