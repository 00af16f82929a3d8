/**
 * Issue 42: the agents whose sessions sit in one folder tree walk a changed folder again alone
 * (`Parser.rescanFolders`): every folder their whole walk of the fixtures watched gives, walked alone, exactly the
 * containers and watched paths the whole walk gave below it (test/helpers/rescan.ts). The roots are the fixtures at
 * two levels: the agent's data folder, and the folder above it (a copy, found at some depth).
 */
import { describe, expect, test } from "bun:test";
import { dirname, join } from "node:path";
import { continueParser } from "../../src/parsers/continue.ts";
import { copilotCliParser } from "../../src/parsers/copilot-cli.ts";
import { droidParser } from "../../src/parsers/droid.ts";
import { gooseParser } from "../../src/parsers/goose.ts";
import { piParser } from "../../src/parsers/pi.ts";
import { qwenCodeParser } from "../../src/parsers/qwen-code.ts";
import type { Parser } from "../../src/parsers/types.ts";
import { expectRescansMatchWholeWalk } from "../helpers/rescan.ts";

const fixtures = join(import.meta.dir, "../fixtures");

const trees: Array<[Parser, string]> = [
  [qwenCodeParser, join(fixtures, "qwen-code", ".qwen")],
  [copilotCliParser, join(fixtures, "copilot-cli")],
  [piParser, join(fixtures, "pi")],
  [droidParser, join(fixtures, "droid")],
  [gooseParser, join(fixtures, "goose")],
  [continueParser, join(fixtures, "continue")],
];

describe("walking changed folders again, tree by tree (issue 42)", () => {
  for (const [parser, root] of trees)
    test(`${parser.id}: each folder of the fixtures, walked alone, gives what the whole walk gave below it`, () => {
      expect(expectRescansMatchWholeWalk(parser, [root])).toBeGreaterThan(0);
      expect(expectRescansMatchWholeWalk(parser, [dirname(root)])).toBeGreaterThan(0);
    });
});
