/**
 * `ToolCall.change` (issue 29): what an Edit/MultiEdit/Write/apply_patch call changed, kept whole at level 3
 * (`withOutputs`) so `recall ui` can draw a diff, and never kept by a parse without outputs (the index's parse).
 * Hand-made fixtures prove the exact texts; the real corpus files named in src/parsers/types.ts `FileChange` prove
 * that every such call of those files carries its change (skipped when ../shared/corpus is absent).
 */
import { unitOfFile } from "./claude-code-replay.ts";
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { claudeCodeParser } from "../../src/parsers/claude-code.ts";
import { codexParser } from "../../src/parsers/codex.ts";
import { capChangeText, fileChangeTextMaxChars } from "../../src/parsers/file-change.ts";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import { closeOpencodeDatabases, opencodeParser } from "../../src/parsers/opencode.ts";
import type { FileChange, Parser, ParseResult, SourceUnit, ToolCall } from "../../src/parsers/types.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { corpusDir } from "../helpers/corpus.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const fixtures = resolve(import.meta.dir, "../fixtures");
const makeDir = tempDirs("recall-file-change-");

/** Every unit below `root` that `parser` lists (scan + listUnits), prompt histories left out. */
function unitsBelow(parser: Parser, root: string): SourceUnit[] {
  return parser.listUnits(parser.scan([root]).containers).filter((unit) => !unit.promptOnly);
}

function unitWithId(parser: Parser, root: string, sessionId: string): SourceUnit {
  const unit = unitsBelow(parser, root).find((candidate) => candidate.sessionId === sessionId);
  if (!unit) throw new Error(`no ${parser.id} unit ${sessionId} below ${root}`);
  return unit;
}

const callsOf = (result: ParseResult): ToolCall[] => result.turns.flatMap((turn) => turn.toolCalls);
const changesOf = (result: ParseResult): FileChange[] =>
  callsOf(result).flatMap((call) => (call.change ? [call.change] : []));
/** A multiset of changes in a stable order, for comparing what a file holds with what a parse kept. */
const sorted = (changes: FileChange[]): string[] => changes.map((change) => JSON.stringify(change)).sort();

/** Asserts that a parse without outputs kept no change at all (the index's parse). */
function expectNoChanges(result: ParseResult): void {
  expect(callsOf(result).length).toBeGreaterThan(0);
  expect(callsOf(result).filter((call) => call.change !== undefined)).toEqual([]);
}

describe("issue 29: Claude Code Edit, MultiEdit and Write calls keep what they changed at level 3", () => {
  const write = (): string => {
    const path = join(makeDir(), "projects", "-home-dev-app", "c0ffee00-0000-4000-8000-000000000029.jsonl");
    writeClaudeSession(path, {
      sessionId: "c0ffee00-0000-4000-8000-000000000029",
      cwd: "/home/dev/app",
      turns: [
        {
          prompt: "Rename total to sum and add a README",
          response: "Done.",
          tools: [
            {
              name: "Edit",
              input: {
                file_path: "/home/dev/app/a.ts",
                old_string: "const total = 1;\n",
                new_string: "const sum = 1;\n",
              },
              output: "The file /home/dev/app/a.ts has been updated.",
            },
            {
              name: "MultiEdit",
              input: {
                file_path: "/home/dev/app/b.ts",
                edits: [
                  { old_string: "total(", new_string: "sum(", replace_all: true },
                  { old_string: "// old\n", new_string: "" },
                ],
              },
              output: "Applied 2 edits to /home/dev/app/b.ts",
            },
            {
              name: "Write",
              input: { file_path: "/home/dev/app/README.md", content: "# App\n\nSums things.\n" },
              output: "File created successfully at: /home/dev/app/README.md",
            },
            { name: "Bash", input: { command: "bun test" }, output: "1 pass" },
          ],
        },
      ],
    });
    return path;
  };

  test("with outputs, each call carries its exact before/after texts or content; other tools carry none", () => {
    const calls = callsOf(claudeCodeParser.parse(unitOfFile(write()), { withOutputs: true }));
    expect(calls.map((call) => [call.name, call.change])).toEqual([
      [
        "Edit",
        {
          path: "/home/dev/app/a.ts",
          kind: "edit",
          edits: [{ before: "const total = 1;\n", after: "const sum = 1;\n" }],
        },
      ],
      [
        "MultiEdit",
        {
          path: "/home/dev/app/b.ts",
          kind: "edit",
          edits: [
            { before: "total(", after: "sum(" },
            { before: "// old\n", after: "" },
          ],
        },
      ],
      ["Write", { path: "/home/dev/app/README.md", kind: "write", content: "# App\n\nSums things.\n" }],
      ["Bash", undefined],
    ]);
  });

  test("without outputs (the index's parse) no call carries a change", () => {
    expectNoChanges(claudeCodeParser.parse(unitOfFile(write())));
  });

  test("a Write longer than 200,000 characters is cut there with a marker line that says how long it was", () => {
    const path = join(makeDir(), "projects", "-home-dev-big", "c0ffee00-0000-4000-8000-000000000030.jsonl");
    const content = "x".repeat(fileChangeTextMaxChars + 50_001);
    writeClaudeSession(path, {
      sessionId: "c0ffee00-0000-4000-8000-000000000030",
      cwd: "/home/dev/big",
      turns: [
        {
          prompt: "Write the big file",
          response: "Written.",
          tools: [{ name: "Write", input: { file_path: "/home/dev/big/data.txt", content }, output: "ok" }],
        },
      ],
    });
    const change = callsOf(claudeCodeParser.parse(unitOfFile(path), { withOutputs: true }))[0]?.change;
    expect(change?.content).toBe(`${"x".repeat(fileChangeTextMaxChars)}\n[recall: cut at 200000 of 250001 characters]`);
    expect(capChangeText("y".repeat(fileChangeTextMaxChars))).toBe("y".repeat(fileChangeTextMaxChars));
  });
});

describe("issue 29: OpenCode edit and write calls keep what they changed at level 3", () => {
  const storage = join(fixtures, "opencode", "json-storage", "storage");

  test("an edit part {filePath, oldString, newString} carries its exact texts with outputs, nothing without", () => {
    const unit = unitWithId(opencodeParser, storage, "ses_main");
    const edit = callsOf(opencodeParser.parse(unit, { withOutputs: true })).find((call) => call.name === "Edit");
    expect(edit?.change).toEqual({
      path: "/home/dev/app/pkg/parser.ts",
      kind: "edit",
      edits: [{ before: "a\nb", after: "c" }],
    });
    expectNoChanges(opencodeParser.parse(unit));
  });
});

describe("issue 29: Codex apply_patch calls keep their file's part of the patch at level 3", () => {
  const home = join(fixtures, "codex", "home");

  test("a two-file custom_tool_call patch gives each file call its own part, verbatim", () => {
    const unit = unitWithId(codexParser, home, "019c0000-aaaa-7000-8000-00000000000a");
    const patched = callsOf(codexParser.parse(unit, { withOutputs: true })).filter((call) => call.change);
    expect(patched.map((call) => [call.name, call.change])).toEqual([
      [
        "Write",
        {
          path: "src/search.ts",
          kind: "patch",
          patch: "*** Add File: src/search.ts\n+export const a = 1;\n+export const b = 2;",
        },
      ],
      [
        "Edit",
        {
          path: "src/index.ts",
          kind: "patch",
          patch:
            '*** Update File: src/index.ts\n@@\n-import old from "./old";\n+import { a } from "./search";\n+import { b } from "./search";\n context',
        },
      ],
    ]);
    expectNoChanges(codexParser.parse(unit));
  });

  test("a patch run through a shell heredoc carries its part too (its failure stays in isError)", () => {
    const unit = unitWithId(codexParser, home, "019c0000-bbbb-7000-8000-00000000000b");
    const call = callsOf(codexParser.parse(unit, { withOutputs: true })).find((candidate) => candidate.change);
    expect(call?.isError).toBe(true);
    expect(call?.change).toEqual({
      path: "docs/notes.md",
      kind: "patch",
      patch: "*** Update File: docs/notes.md\n@@\n-old note\n+new note",
    });
  });
});

describe("issue 29: Gemini CLI replace and write_file calls keep what they changed at level 3", () => {
  const home = join(fixtures, "gemini-cli", "dot-gemini");

  test("replace {file_path, old_string, new_string} and write_file {file_path, content} carry their exact texts", () => {
    const unit = unitWithId(geminiCliParser, home, "aaaa1111-0000-4000-8000-000000000001");
    const calls = callsOf(geminiCliParser.parse(unit, { withOutputs: true })).filter((call) => call.change);
    expect(calls.map((call) => [call.name, call.isError, call.change])).toEqual([
      [
        "Edit",
        false,
        { path: "/home/dev/shop-app/src/checkout.ts", kind: "edit", edits: [{ before: "a\nb", after: "a\nb\nc" }] },
      ],
      ["Write", true, { path: "/home/dev/shop-app/src/discount.ts", kind: "write", content: "x\ny\n" }],
    ]);
    expectNoChanges(geminiCliParser.parse(unit));
  });
});

// ---- The real corpus: every edit/write call of the files named in types.ts `FileChange` carries its change. ----

const corpusFile = (...parts: string[]): string => join(corpusDir, ...parts);
const claudeEditFile = corpusFile(
  "claude-code/LAF-US__IDAHO-VAULT/.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/744827a2-a4c6-4a5b-9997-81d6e9384d8d.jsonl",
);
const claudeMultiEditFile = corpusFile(
  "claude-code/d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
);
const opencodeDb = corpusFile("opencode/richardaiand__aiand-portfolio-web/.local/share/opencode/opencode.db");
const codexRoot = corpusFile("codex/0h-n0__local-voice-assistant-codex");
const geminiRoot = corpusFile("gemini-cli/LAF-US__IDAHO-VAULT");
const corpusPresent = [claudeEditFile, claudeMultiEditFile, opencodeDb, codexRoot, geminiRoot].every((path) =>
  existsSync(path),
);

/** The change a raw Claude Code / OpenCode / Gemini input should give (independent of src/parsers/file-change.ts). */
function expectedChange(tool: string, input: Record<string, unknown>): FileChange | undefined {
  const path = String(input.file_path ?? input.filePath ?? "");
  if (tool === "Edit" || tool === "edit" || tool === "replace")
    return {
      path,
      kind: "edit",
      edits: [
        { before: String(input.old_string ?? input.oldString), after: String(input.new_string ?? input.newString) },
      ],
    };
  if (tool === "MultiEdit") {
    const edits = (input.edits as Array<Record<string, string>>).map((edit) => ({
      before: edit.old_string as string,
      after: edit.new_string as string,
    }));
    return { path, kind: "edit", edits };
  }
  if (tool === "Write" || tool === "write" || tool === "write_file")
    return { path, kind: "write", content: String(input.content) };
  return undefined;
}

describe.skipIf(!corpusPresent)(
  "issue 29: real corpus files keep every edit's change at level 3 (needs ../shared/corpus)",
  () => {
    test("Claude Code: each Edit, MultiEdit and Write tool_use of two real transcripts appears as a change", () => {
      for (const file of [claudeEditFile, claudeMultiEditFile]) {
        const expected = new Map<string, FileChange>();
        for (const line of readFileSync(file, "utf8").split("\n")) {
          if (!line.trim()) continue;
          const record = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
          if (record.type !== "assistant" || !Array.isArray(record.message?.content)) continue;
          for (const block of record.message.content as Array<Record<string, unknown>>) {
            if (block.type !== "tool_use") continue;
            const change = expectedChange(String(block.name), block.input as Record<string, unknown>);
            if (change) expected.set(String(block.id), change);
          }
        }
        expect(expected.size).toBeGreaterThan(0);
        // The file's own session and the inline sub-agent chains (isSidechain lines) it holds, each its own unit.
        const units = unitsBelow(claudeCodeParser, dirname(file)).filter((unit) => unit.containerPath === file);
        const parsed = units.flatMap((unit) => changesOf(claudeCodeParser.parse(unit, { withOutputs: true })));
        expect(sorted(parsed)).toEqual(sorted([...expected.values()]));
        for (const unit of units) expect(changesOf(claudeCodeParser.parse(unit))).toEqual([]);
      }
    });

    test("OpenCode: each edit and write part of a real opencode.db appears as a change", () => {
      const copy = join(makeDir(), "opencode.db"); // the corpus folder is read-only; a WAL file cannot be opened in place
      copyFileSync(opencodeDb, copy);
      const db = new Database(copy, { readonly: true });
      const rows = db
        .query("select data from part where json_extract(data, '$.tool') in ('edit', 'write')")
        .all() as Array<{ data: string }>;
      db.close();
      const expected = rows.flatMap((row) => {
        const data = JSON.parse(row.data) as { tool: string; state: { input: Record<string, unknown> } };
        const change = expectedChange(data.tool, data.state.input);
        return change ? [change] : [];
      });
      expect(expected.map((change) => change.kind).sort()).toEqual([
        ...Array(10).fill("edit"),
        ...Array(7).fill("write"),
      ]);
      const root = resolve(opencodeDb, "..");
      const units = unitsBelow(opencodeParser, root);
      const withOutputs = units.map((unit) => opencodeParser.parse(unit, { withOutputs: true }));
      expect(sorted(withOutputs.flatMap(changesOf))).toEqual(sorted(expected));
      for (const unit of units) expect(changesOf(opencodeParser.parse(unit))).toEqual([]);
      closeOpencodeDatabases();
    });

    test("Codex: the parts of each real apply_patch, joined, give back the patch between Begin and End Patch", () => {
      let patches = 0;
      for (const unit of unitsBelow(codexParser, codexRoot)) {
        const bodies: string[] = [];
        for (const line of readFileSync(unit.containerPath, "utf8").split("\n")) {
          if (!line.trim()) continue;
          const payload = (JSON.parse(line) as { payload?: Record<string, unknown> }).payload;
          if (payload?.type !== "custom_tool_call" || payload.name !== "apply_patch") continue;
          const lines = String(payload.input).split("\n");
          expect(lines[0]).toBe("*** Begin Patch");
          const end = lines.lastIndexOf("*** End Patch");
          bodies.push(lines.slice(1, end).join("\n"));
        }
        if (bodies.length === 0) continue;
        patches += bodies.length;
        const changes = changesOf(codexParser.parse(unit, { withOutputs: true }));
        expect(changes.every((change) => change.kind === "patch" && change.patch?.startsWith("*** "))).toBe(true);
        expect(changes.map((change) => change.patch).join("\n")).toBe(bodies.join("\n"));
        expect(changesOf(codexParser.parse(unit))).toEqual([]);
      }
      expect(patches).toBeGreaterThan(0);
    });

    test("Gemini CLI: each replace and write_file call of real chat files appears as a change", () => {
      let seen = 0;
      for (const unit of unitsBelow(geminiCliParser, geminiRoot)) {
        const result = geminiCliParser.parse(unit, { withOutputs: true });
        const expected: FileChange[] = [];
        const visit = (node: unknown): void => {
          if (Array.isArray(node)) for (const item of node) visit(item);
          else if (node && typeof node === "object") {
            const record = node as Record<string, unknown>;
            if (Array.isArray(record.toolCalls))
              for (const call of record.toolCalls as Array<Record<string, unknown>>) {
                const change = expectedChange(String(call.name), (call.args ?? {}) as Record<string, unknown>);
                if (change) expected.push(change);
              }
            else for (const value of Object.values(record)) visit(value);
          }
        };
        visit(JSON.parse(readFileSync(result.session.location, "utf8")));
        if (expected.length === 0) continue;
        seen += expected.length;
        expect(sorted(changesOf(result))).toEqual(sorted(expected));
        expect(changesOf(geminiCliParser.parse(unit))).toEqual([]);
      }
      expect(seen).toBeGreaterThan(0);
    });
  },
);
