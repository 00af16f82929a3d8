/**
 * The application: wires the subcommands and is the only place that catches errors. Each command is imported as its
 * definition (flags and help: src/commands/<name>.ts for the CLI's own, `command.ts` in src/pick, src/ui and src/mcp for
 * the other front ends); what it does (its handler) loads when it runs (issue 14). A command line that names a command
 * loads that command's definition alone (issue 42: wiring all twenty took up to 0.6 ms of a cold search, 0.4 ms of
 * `recall sessions`); `recall --help`, a name recall does not know and no name at all load every one.
 * Exit codes (docs/style.md §4): 0 success (zero hits included), 1 failure, 2 usage error.
 * A RecallError prints `recall: <message>` and its hint on stderr (one JSON object on stderr under
 * `--json`, also for cmd-ts' own usage errors, each of which gets a line of its own); an unexpected error prints one
 * line, and its stack only with RECALL_DEBUG=1. `recall help [command]` is `recall [command] --help`.
 * A closed stdout (`recall search … | head`) exits 0 quietly.
 */
import { binary, parse, runSafely, subcommands } from "cmd-ts";
import packageJson from "../package.json" with { type: "json" };
import { diskFullError, isRecallError, SessionLookupError } from "./errors.ts";
import { neutralizeControls } from "./render/escapes.ts";
import { sources } from "./parsers/sources.ts";
import { maskPassword } from "./team-archive/password-mask.ts";
import { ClosedOutputError, writeErr, writeOut } from "./render/terminal.ts";

/** A subcommand's definition (flags and help), as cmd-ts's `subcommands` takes it. */
type CommandDefinition = Parameters<typeof subcommands>[0]["cmds"][string];

/** The subcommands by name, in `recall --help`'s order, each loading its definition when asked. */
const commandLoaders = {
  search: async () => (await import("./commands/search.ts")).searchCommand,
  pick: async () => (await import("./pick/command.ts")).pickCommand,
  show: async () => (await import("./commands/show.ts")).showCommand,
  sessions: async () => (await import("./commands/sessions.ts")).sessionsCommand,
  index: async () => (await import("./commands/index-command.ts")).indexCommand,
  model: async () => (await import("./commands/model.ts")).modelCommand,
  status: async () => (await import("./commands/status.ts")).statusCommand,
  doctor: async () => (await import("./commands/doctor.ts")).doctorCommand,
  summarize: async () => (await import("./commands/summarize.ts")).summarizeCommand,
  eval: async () => (await import("./commands/eval.ts")).evalCommand,
  forget: async () => (await import("./commands/forget.ts")).forgetCommand,
  archive: async () => (await import("./commands/archive.ts")).archiveCommand,
  export: async () => (await import("./commands/export.ts")).exportCommand,
  skill: async () => (await import("./commands/skill.ts")).skillCommand,
  mcp: async () => (await import("./mcp/command.ts")).mcpCommand,
  watch: async () => (await import("./commands/watch.ts")).watchCommand,
  init: async () => (await import("./pick/init-command.ts")).initCommand,
  ui: async () => (await import("./ui/command.ts")).uiCommand,
  "embed-helper": async () => (await import("./commands/embed-helper.ts")).embedHelperCommand,
} satisfies Record<string, () => Promise<CommandDefinition>>;

/** A subcommand's name: `search`, `pick`, … */
export type CommandName = keyof typeof commandLoaders;

/** Every subcommand's name, in `recall --help`'s order. */
export const commandNames = Object.keys(commandLoaders) as CommandName[];

/** True when `word` names a subcommand. */
export function isCommandName(word: string | undefined): word is CommandName {
  return word !== undefined && Object.hasOwn(commandLoaders, word);
}

/** The definitions of the named subcommands, loaded (in parallel) and keyed by name. */
async function loadCommands(names: readonly CommandName[]): Promise<Partial<Record<CommandName, CommandDefinition>>> {
  const loaded = await Promise.all(names.map(async (name) => [name, await commandLoaders[name]()] as const));
  return Object.fromEntries(loaded);
}

/**
 * The application cmd-ts runs: `recall` with the named subcommands (every one for `recall --help`). cmd-ts registers
 * the flags and options of every subcommand it holds before it parses, so a word could parse differently in an app of
 * one command than in the whole app: test/commands/app-wiring.test.ts holds the two to one answer for every flag and
 * option of each command (a word only other commands know is refused by both).
 */
export async function wireApp(names: readonly CommandName[]) {
  return appOf(await loadCommands(names));
}

/** The application of these loaded subcommand definitions (see {@link wireApp}). */
function appOf(commands: Partial<Record<CommandName, CommandDefinition>>) {
  return subcommands({
    name: "recall",
    version: packageJson.version,
    description:
      `Search your AI coding sessions (${sources.map((source) => source.displayName).join(", ")}) by keyword and by meaning.\n` +
      '  recall search "docker bridge network"        which session was it? (level 1)\n' +
      '  recall search "..." --session ID             which exchange? (level 2: the turns of one session)\n' +
      "  recall show ID:5-9                            everything around it (level 3)\n" +
      "  recall pick                                   find a session interactively and resume it\n" +
      "  recall ui                                     a local web view: search, sessions, activity, usage\n" +
      "  recall archive push; recall search --archive  share sessions in a team archive on PostgreSQL\n" +
      "  recall help <command>                         the flags of a command (as recall <command> --help)",
    cmds: commands as Record<string, CommandDefinition>,
  });
}

/** The names cmd-ts's `register` collects: each flag's and option's long and short names, without their dashes. */
export type RegisteredNames = Parameters<CommandDefinition["register"]>[0];

/**
 * The names of the flags and options `parser` (a command, or a whole app) registers with cmd-ts before it parses.
 *   registeredNames(searchDefinition).forceOptionLongNames.has("session") → true
 */
export function registeredNames(parser: { register(names: RegisteredNames): void }): RegisteredNames {
  const names: RegisteredNames = {
    forceFlagLongNames: new Set<string>(),
    forceFlagShortNames: new Set<string>(),
    forceOptionLongNames: new Set<string>(),
    forceOptionShortNames: new Set<string>(),
  };
  parser.register(names);
  return names;
}

/** The subcommands a command line needs: the one it names, else every one (help, an unknown name, no name). */
function commandsFor(argv: readonly string[]): readonly CommandName[] {
  return isCommandName(argv[0]) ? [argv[0]] : commandNames;
}

function reportError(thrown: unknown, wantsJson: boolean): number {
  const error = diskFullError(thrown) ?? thrown;
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
 * `--archive <url>` as `--archive --archive-url <url>` (issue 30: `recall search --archive [URL]`): cmd-ts has no
 * option whose value may be left out, so a PostgreSQL URL right after `--archive` is moved to --archive-url.
 */
export function archiveUrlArguments(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]!);
    if (argv[i] === "--archive" && /^postgres(ql)?:\/\//.test(argv[i + 1] ?? "")) out.push("--archive-url", argv[++i]!);
  }
  return out;
}

/** What a cmd-ts parse error holds (cmd-ts 0.15 `ParsingError`): a message and the command-line words it is about. */
interface ParseProblem {
  message: string;
  nodes: Array<{ type: string; raw: string }>;
}

/**
 * One lower-case line per cmd-ts parse error, naming the words it is about (issue 26: cmd-ts' own report said
 * "found 2 errors" above a box that pointed at one word and listed the other apart, and dropped the second word of
 * an "Unknown arguments" error). A bad value leads with its option; other problems end with their words. A long
 * option's word carries its value as cmd-ts read it; a short one gets its dash.
 *   {message: "Not a number", nodes: [--limit lots]} → "--limit lots: not a number"
 *   {message: "Unknown arguments", nodes: [--bogus, --other foo]} → "unknown arguments: --bogus, --other foo"
 *   {message: "Not a valid subcommand name\nDid you mean search?", nodes: [serch]} →
 *     "not a valid subcommand name: serch (did you mean search?)"
 *   {message: "No value provided for query", nodes: []} → "no value provided for query"
 */
export function describeParseProblems(problems: readonly ParseProblem[]): string[] {
  // cmd-ts writes sentences ("Invalid value '3'. Expected one of: '1', '2'"): one lower-case clause each.
  const clauses = (text: string) =>
    text
      .split(/\.\s+(?=[A-Z])/)
      .map((clause) => clause.charAt(0).toLowerCase() + clause.slice(1))
      .join("; ");
  return problems.map(({ message, nodes }) => {
    const [first = "invalid arguments", ...rest] = message.split("\n").map((line) => line.trim());
    const words = nodes.map((node) => (node.type === "shortOption" ? `-${node.raw}` : node.raw));
    const more = rest.filter(Boolean).join(" ");
    const isBadValue = nodes.length === 1 && nodes[0]!.type.endsWith("Option") && first !== "Unknown arguments";
    const line = isBadValue
      ? `${words[0]}: ${clauses(first)}`
      : `${clauses(first)}${words.length > 0 ? `: ${words.join(", ")}` : ""}`;
    return more ? `${line} (${clauses(more)})` : line;
  });
}

/**
 * Print the usage error of a refused command line, one line per problem (or one JSON object), and return exit code 2
 * (cmd-ts exits 1 on its own parse errors; usage errors are 2 in recall, the grep convention). `found` are problems
 * found before cmd-ts ran ({@link findMissingValues}); cmd-ts' own are parsed again, without running anything, for
 * their words. The hint is the help command cmd-ts' report names (`for more information, try 'recall search
 * --help'`), else the one of the command line's command. Options before any command are not reported by cmd-ts (it
 * only says the command is missing): they are named here.
 */
async function refuseLine(
  app: ReturnType<typeof appOf>,
  argv: string[],
  found: Array<{ option: string; problem: string }>,
  wantsJson: boolean,
  report = "",
): Promise<number> {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removes the colour escapes cmd-ts' report holds
  const plain = report.replace(/\u001b\[[0-9;]*m/g, "");
  const command = isCommandName(argv[0]) ? `recall ${argv[0]}` : "recall";
  const help = /for more information, try '([^']+)'/.exec(plain)?.[1] ?? `${command} --help`;
  const parsed = await parse(app, argv);
  // An option found without its value took the next word as one: cmd-ts' complaint about that pair says no more.
  const valueless = new Set(found.map((entry) => entry.option));
  const theirs = (parsed._tag === "error" ? parsed.error.errors : []).filter(
    (error) => !error.nodes.some((node) => valueless.has(node.raw.split(" ")[0]!.replace(/^(?!-)/, "-"))),
  );
  // A stray archive URL is quoted back as an unknown argument: never with its password (issue 37).
  const problems = [...found.map((entry) => entry.problem), ...describeParseProblems(theirs)].map(maskPassword);
  const leading = argv.slice(0, argv.findIndex((word) => !word.startsWith("-")) >>> 0);
  if (leading.length > 0 && problems.includes("no value provided for subcommand"))
    problems.unshift(`unknown arguments: ${leading.join(", ")}`);
  if (problems.length === 0) problems.push("invalid arguments");
  const hint = `run \`${help}\``;
  if (wantsJson) {
    writeErr(`${JSON.stringify({ error: { code: "USAGE", message: problems.join("; "), hint, candidates: [] } })}\n`);
  } else {
    for (const problem of problems) writeErr(`recall: ${neutralizeControls(problem)}\n`);
    writeErr(`hint: ${hint}\n`);
  }
  return 2;
}

/**
 * Options given without their value, which cmd-ts does not report (issue 26): an optional option as the last word is
 * read as absent (`recall search x --session` searched everything), and one followed by another of the command's
 * options or flags takes that word as its value (`--session --json` searched a session named "--json").
 *   ["search", "x", "--session"] → [{option: "--session", problem: "no value given for --session"}]
 *   ["search", "x", "--session", "--json"] → [{option: "--session", problem: "no value given for --session (--json is
 *     a flag)"}]
 *   ["search", "x", "--since", "7d"], ["search", "--", "--session"] → []
 * @param command the definition of the command `argv[0]` names; undefined (no problem found) when it names none
 */
function findMissingValues(
  argv: readonly string[],
  command: CommandDefinition | undefined,
): Array<{ option: string; problem: string }> {
  if (!command) return [];
  const names = registeredNames(command);
  const kindOf = (word: string | undefined) => {
    const long = /^--([^=]+)$/.exec(word ?? "")?.[1];
    const short = /^-([^-])$/.exec(word ?? "")?.[1];
    if (long) return names.forceOptionLongNames.has(long) ? "option" : names.forceFlagLongNames.has(long) ? "flag" : "";
    if (short)
      return names.forceOptionShortNames.has(short) ? "option" : names.forceFlagShortNames.has(short) ? "flag" : "";
    return "";
  };
  const end = argv.includes("--") ? argv.indexOf("--") : argv.length;
  const found: Array<{ option: string; problem: string }> = [];
  for (let at = 1; at < end; at++) {
    const option = argv[at]!;
    if (kindOf(option) !== "option") continue;
    const next = at + 1 < end ? argv[at + 1] : undefined;
    const nextKind = kindOf(next);
    if (next !== undefined && !nextKind) {
      at++; // its value
      continue;
    }
    const why = next === undefined ? "" : ` (${next} is ${nextKind === "flag" ? "a flag" : "an option"})`;
    found.push({ option, problem: `no value given for ${option}${why}` });
  }
  return found;
}

/**
 * `recall help` and `recall help <command…>` are `recall --help` and `recall <command…> --help` (issue 26: `recall
 * help` was refused as an unknown command). Other command lines are returned as they are.
 */
export function expandHelpCommand(argv: string[]): string[] {
  if (argv[0] !== "help") return argv;
  // `recall help serch` is the unknown command it names, not the general help `recall serch --help` would print.
  return argv[1] === undefined || isCommandName(argv[1]) ? [...argv.slice(1), "--help"] : argv.slice(1);
}

/**
 * The exit code a command's handler resolved to: cmd-ts 0.15 wraps a subcommand's result as `{ command, value }`.
 * 0 when the handler resolved to no number (most report failures by throwing a RecallError instead; `pick` resolves
 * to 1 or 130 after printing what it has to say).
 */
function handlerExitCode(result: unknown): number {
  const value = (result as { value?: unknown } | undefined)?.value;
  return typeof value === "number" && Number.isInteger(value) ? value : 0;
}

/** Run the CLI with the given arguments (without `bun` and the script path); resolves to the exit code. */
export async function main(given: string[]): Promise<number> {
  const argv = archiveUrlArguments(expandHelpCommand(given));
  const wantsJson = argv.includes("--json");
  try {
    const commands = await loadCommands(commandsFor(argv));
    const app = appOf(commands);
    const missing = findMissingValues(argv, isCommandName(argv[0]) ? commands[argv[0]] : undefined);
    if (missing.length > 0) return await refuseLine(app, argv, missing, wantsJson);
    const result = await runSafely(binary(app), ["bun", "recall", ...argv]);
    if (result._tag === "ok") return handlerExitCode(result.value);
    const { exitCode, message, into } = result.error.config;
    if (exitCode === 0) {
      (into === "stdout" ? writeOut : writeErr)(`${message}\n`);
      return 0;
    }
    return await refuseLine(app, argv, [], wantsJson, message);
  } catch (error) {
    if (error instanceof ClosedOutputError) return 0; // `recall … | head`: the reader has what it wanted
    return reportError(error, wantsJson);
  }
}
