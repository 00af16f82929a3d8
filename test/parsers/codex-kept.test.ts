import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { codexParser } from "../../src/parsers/codex.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";

/** Fixtures of issue 26 (see their README.md for origin and licence). */
const fixtures = resolve(import.meta.dir, "../fixtures/codex/issue-26");

/** Units of a folder and the files listUnits rejected, with their reasons. */
function listFolder(dir: string): { units: SourceUnit[]; rejected: Array<[string, string]> } {
  const rejected: Array<[string, string]> = [];
  const units = codexParser.listUnits(codexParser.scan([dir]).containers, {
    onRejected: (path, reason) => rejected.push([path, reason]),
  });
  return { units, rejected };
}

function parseFolder(name: string, withOutputs = false): ParseResult {
  const { units } = listFolder(join(fixtures, name));
  if (units.length !== 1) throw new Error(`expected one unit in ${name}`);
  return codexParser.parse(units[0] as SourceUnit, { withOutputs });
}

describe("codex tool call inputs are kept as written (issue 26)", () => {
  test("arguments that are not JSON, a patch that does not parse and a code-mode program keep their text as the input", () => {
    const { turns } = parseFolder("tool-inputs", true);
    const calls = turns[0]?.toolCalls ?? [];
    expect(calls.map((call) => [call.name, call.isError])).toEqual([
      ["Bash", true],
      ["Bash", true],
      ["Bash", false],
      ["Patch", true],
      ["Write", false],
      ["exec", false],
      ["Bash", false],
    ]);
    expect(calls[0]?.input).toBe('{"command":"mkdir -p myapp","workdir":"/Users/test_user/agent-sa');
    expect(calls[0]?.output).toStartWith("failed to parse function arguments");
    expect(calls[1]?.input).toBe("mkdir -p myapp");
    expect(calls[3]?.input).toBe("*** Begin Patch *** Create File: myapp/hoge.py +print(1 + 1) *** End Patch");
    expect(calls[5]?.input).toStartWith('const listing = await tools.exec_command({"cmd":"ls -la myapp"');
    expect(calls[5]?.input.length).toBe(300); // clipped like every compact input (compactInputMaxChars)
    expect(calls[6]?.input).toBe("ls -la myapp"); // local_shell_call: the script of bash -lc
  });
});
