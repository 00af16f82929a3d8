/**
 * A command line that names a command is parsed by an app of that command alone (src/app.ts `wireApp`, issue 42: a
 * cold search loads and registers one command's flags, not twenty's). cmd-ts registers the flags and options of every
 * command it holds before it parses, so the two apps could read a word differently: here every command's every flag
 * and option (with a value, without one, and as the last word) parse to the same value or the same errors in both
 * apps, and the flags and options only other commands have are refused by both (the words an error quotes may differ).
 */
import { describe, expect, test } from "bun:test";
import { parse } from "cmd-ts";
import { commandNames, registeredNames, wireApp, type CommandName } from "../../src/app.ts";

/** The flags and options one command registers (long and short names). */
interface Registered {
  flags: string[];
  options: string[];
}

/** What `app` makes of `argv`: the parsed value with functions left out, or each error's message and words. */
async function outcome(app: Awaited<ReturnType<typeof wireApp>>, argv: string[]): Promise<string> {
  const result = await parse(app, argv);
  if (result._tag === "ok") return JSON.stringify({ ok: result.value });
  return JSON.stringify({
    errors: result.error.errors.map((error) => [error.message, error.nodes.map((node) => node.raw)]),
  });
}

async function registered(name: CommandName): Promise<Registered> {
  const sets = registeredNames(await wireApp([name]));
  return {
    flags: [...sets.forceFlagLongNames]
      .map((flag) => `--${flag}`)
      .concat([...sets.forceFlagShortNames].map((flag) => `-${flag}`)),
    options: [...sets.forceOptionLongNames]
      .map((option) => `--${option}`)
      .concat([...sets.forceOptionShortNames].map((option) => `-${option}`)),
  };
}

describe("an app of the named command parses as the whole app", () => {
  test("every command line made of the command's own flags and options parses alike; another command's are refused by both", async () => {
    const whole = await wireApp(commandNames);
    const own = new Map(await Promise.all(commandNames.map(async (name) => [name, await registered(name)] as const)));
    const everyFlag = [...new Set([...own.values()].flatMap((entry) => entry.flags))];
    const everyOption = [...new Set([...own.values()].flatMap((entry) => entry.options))];
    expect(own.get("search")!.options).toContain("--session"); // the registration is read, not empty
    expect(own.get("search")!.flags).toContain("--keyword-only");
    let alike = 0;
    let refused = 0;
    for (const name of commandNames) {
      const alone = await wireApp([name]);
      const { flags, options } = own.get(name)!;
      const lines: string[][] = [[name], [name, "x"], [name, "x", "y"], [name, "--", "--json"], [name, "--help"]];
      for (const flag of flags) lines.push([name, flag], [name, "x", flag], [name, flag, "x"]);
      for (const option of options)
        lines.push([name, option, "7"], [name, "x", option], [name, option, "--json"], [name, `${option}=7`, "x"]);
      for (const argv of lines) {
        expect(`${argv.join(" ")} → ${await outcome(alone, argv)}`).toBe(
          `${argv.join(" ")} → ${await outcome(whole, argv)}`,
        );
        alike++;
      }
      // A word only another command knows is an unknown argument here: cmd-ts reads it as that command's kind in the
      // whole app and as an option taking the next word alone (as any unknown word), so the words quoted may differ.
      const strangers = [
        ...everyFlag.filter((flag) => !flags.includes(flag) && !options.includes(flag)),
        ...everyOption.filter((option) => !flags.includes(option) && !options.includes(option)),
      ];
      for (const stranger of strangers)
        for (const argv of [
          [name, stranger, "x"],
          [name, "x", stranger],
        ]) {
          const [answer, wholeAnswer] = [await outcome(alone, argv), await outcome(whole, argv)];
          expect(`${argv.join(" ")} → ${answer.startsWith('{"errors"')}`).toBe(`${argv.join(" ")} → true`);
          expect(`${argv.join(" ")} → ${wholeAnswer.startsWith('{"errors"')}`).toBe(`${argv.join(" ")} → true`);
          refused++;
        }
    }
    expect(alike).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });
});
