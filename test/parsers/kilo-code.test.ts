/**
 * Kilo Code (issue 40): a task of its Roo Code-based extension, from messages a Kilo Code developer committed as a
 * sample of its chat (test/fixtures/kilo-code/SOURCE.md). Read by the Cline family's parser (src/parsers/cline/).
 */
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { kiloCodeParser } from "../../src/parsers/kilo-code.ts";
import { checkTaskFolderSource } from "./task-folders.ts";

const fixture = resolve(import.meta.dir, "../fixtures/kilo-code");
const task = "0199dc7e-4a1b-7d33-8f0e-2c6b9e1f5a70";

describe("Kilo Code task folders", () => {
  test("a new file and a SEARCH/REPLACE edit, with their line counts; the model comes from the environment details", () => {
    const units = kiloCodeParser.listUnits(kiloCodeParser.scan([fixture]).containers);
    expect(units.map((unit) => unit.sessionId)).toEqual([task]);
    const { session, turns, skipped } = kiloCodeParser.parse(units[0]!);
    expect(session).toMatchObject({
      source: "kilo-code",
      projectPath: "",
      startedAt: 1760348100000,
      endedAt: 1760355664372,
      turnCount: 1,
    });
    expect(skipped.count).toBe(0);
    const [turn] = turns;
    expect(turn!.response).toStartWith("I'll create the ReadFileMessage component first");
    expect(turn!.toolCalls.map((call) => [call.name, call.filePath, call.linesAdded, call.linesRemoved])).toEqual([
      ["Write", "apps/kilo-remote/src/components/messages/ReadFileMessage.js", 18, 0],
      ["Edit", "apps/kilo-remote/src/components/ChatRow.js", 3, 2],
    ]);
    expect(turn!.usage).toEqual([
      { model: "gemini-2.5-pro", input: 269573, output: 124, cacheRead: 0, cacheWrite: 0, costUsd: 0 },
    ]);
  });

  test("end to end: indexed from VS Code's default place, found by its prompt, its reply and an edited file, shown", () => {
    checkTaskFolderSource({
      source: "kilo-code",
      fixture,
      defaultPlace: ".config/Code/User/globalStorage/kilocode.kilo-code",
      sessions: 1,
      phrases: [
        { text: "Kilo wants to read this file tool message", session: task, turn: 1 },
        { text: "instead of the generic API request row", session: task, turn: 1 },
        { text: "ChatRow.js", session: task, turn: 1 },
      ],
      shown: { session: task, turn: 1, contains: "apps/kilo-remote/src/components/ChatRow.js" },
    });
  });
});
