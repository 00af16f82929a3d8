/**
 * The application: wires the subcommands and is the only place that catches errors. Each command is imported as its
 * definition (flags and help, src/commands/<name>.ts); what it does (<name>-handler.ts) loads when it runs (issue 14).
 * Exit codes (docs/style.md §4): 0 success (zero hits included), 1 failure, 2 usage error.
 * A RecallError prints `recall: <message>` and its hint on stderr (one JSON object on stderr under
 * `--json`, also for cmd-ts' own usage errors); an unexpected error prints one line, and its stack only with RECALL_DEBUG=1.
 * A closed stdout (`recall search … | head`) exits 0 quietly.
 */
import { binary, runSafely, subcommands } from "cmd-ts";
import packageJson from "../package.json" with { type: "json" };
import { doctorCommand } from "./commands/doctor.ts";
import { exportCommand } from "./commands/export.ts";
import { forgetCommand } from "./commands/forget.ts";
import { indexCommand } from "./commands/index.ts";
import { mcpCommand } from "./commands/mcp.ts";
import { modelCommand } from "./commands/model.ts";
import { searchCommand } from "./commands/search.ts";
import { sessionsCommand } from "./commands/sessions.ts";
import { showCommand } from "./commands/show.ts";
import { skillCommand } from "./commands/skill.ts";
import { statusCommand } from "./commands/status.ts";
import { watchCommand } from "./commands/watch.ts";
import { embedHelperCommand } from "./commands/embed-helper.ts";
import { isRecallError, SessionLookupError } from "./errors.ts";
import { neutralizeControls } from "./render/escapes.ts";
import { ClosedOutputError, writeErr, writeOut } from "./render/terminal.ts";

const app = subcommands({
  name: "recall",
  version: packageJson.version,
  description:
    "Search your AI coding sessions (Claude Code, OpenCode, Codex CLI, Gemini CLI, Cursor, Aider) by keyword and by meaning.\n" +
    '  recall search "docker bridge network"        which session was it? (level 1)\n' +
    '  recall search "..." --depth 2 --session ID   which exchange? (level 2)\n' +
    "  recall show ID:5-9                            everything around it (level 3)",
  cmds: {
    search: searchCommand,
    show: showCommand,
    sessions: sessionsCommand,
    index: indexCommand,
    model: modelCommand,
    status: statusCommand,
    doctor: doctorCommand,
    forget: forgetCommand,
    export: exportCommand,
    skill: skillCommand,
    mcp: mcpCommand,
    watch: watchCommand,
    "embed-helper": embedHelperCommand,
  },
});

function reportError(error: unknown, wantsJson: boolean): number {
  if (isRecallError(error)) {
    const candidates = error instanceof SessionLookupError ? error.candidates : [];
    if (wantsJson) {
      writeErr(
        `${JSON.stringify({ error: { code: error.code, message: error.message, hint: error.hint ?? null, candidates } })}\n`,
      );
    } else {
      // Messages can carry session titles and file names: never let their control characters reach the terminal.
      writeErr(`recall: ${neutralizeControls(error.message)}\n`);
      for (const candidate of candidates) writeErr(`  ${neutralizeControls(candidate)}\n`);
      if (error.hint) writeErr(`hint: ${error.hint}\n`);
    }
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  writeErr(`recall: unexpected error: ${neutralizeControls(message.split("\n")[0]!)}\n`);
  if (process.env.RECALL_DEBUG === "1" && error instanceof Error && error.stack) writeErr(`${error.stack}\n`);
  else writeErr("hint: run again with RECALL_DEBUG=1 for details, and report it\n");
  return 1;
}

/**
 * The one-line message and hint of a cmd-ts parse failure, for the `--json` error object. cmd-ts prints a
 * multi-line report (cmd-ts 0.15 `runSafely`): a caret under the offending word of the echoed command line
 * (`^ Unknown arguments`), numbered lines (`1. No value provided for query`) and
 * `hint: for more information, try 'recall search --help'`.
 *   → {message: "unknown arguments: --bogus; no value provided for query", hint: "run `recall search --help`"}
 */
export function describeParseFailure(report: string): { message: string; hint: string | null } {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removes the colour escapes the report itself wrote
  const lines = report.replace(/\u001b\[[0-9;]*m/g, "").split("\n");
  const problems: string[] = [];
  let hint: string | null = null;
  lines.forEach((line, at) => {
    const caret = /^(\s*)\^+\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+\.\s+(.*)$/.exec(line);
    const help = /^hint: for more information, try '(.*)'$/.exec(line.trim());
    if (caret) {
      const words = (lines[at - 1] ?? "").slice(caret[1]!.length).trim().split(/\s+/);
      const offending =
        words[0]?.startsWith("-") && words[1] !== undefined && !words[1].startsWith("-")
          ? `${words[0]} ${words[1]}`
          : (words[0] ?? "");
      problems.push(`${caret[2]!.trim().toLowerCase()}: ${offending}`);
    } else if (numbered) {
      problems.push(`${numbered[1]!.trim().charAt(0).toLowerCase()}${numbered[1]!.trim().slice(1)}`);
    } else if (help) {
      hint = `run \`${help[1]}\``;
    }
  });
  return {
    message:
      problems.length > 0 ? problems.join("; ") : (lines.find((line) => line.trim())?.trim() ?? "invalid arguments"),
    hint,
  };
}

/** Run the CLI with the given arguments (without `bun` and the script path); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const wantsJson = argv.includes("--json");
  try {
    const result = await runSafely(binary(app), ["bun", "recall", ...argv]);
    if (result._tag === "ok") return 0;
    const { exitCode, message, into } = result.error.config;
    if (wantsJson && exitCode !== 0) {
      const { message: line, hint } = describeParseFailure(message);
      writeErr(`${JSON.stringify({ error: { code: "USAGE", message: line, hint, candidates: [] } })}\n`);
      return 2;
    }
    (into === "stdout" ? writeOut : writeErr)(`${message}\n`);
    // cmd-ts exits 1 on its own parse errors; usage errors are 2 in recall (grep convention).
    return exitCode === 0 ? 0 : 2;
  } catch (error) {
    if (error instanceof ClosedOutputError) return 0; // `recall … | head`: the reader has what it wanted
    return reportError(error, wantsJson);
  }
}
