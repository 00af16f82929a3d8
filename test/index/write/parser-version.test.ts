import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkStaleness, databasePath, openIndex, runIndex } from "../../../src/index/index.ts";
import { claudeCodeParser } from "../../../src/parsers/claude-code.ts";
import { tempDirs } from "../../helpers/temp-dirs.ts";

/**
 * Issue 26: a parser that keeps more than the one that built an index re-parses the sessions already indexed, once,
 * though their files did not change (Parser.version), so an upgrade reaches the whole archive.
 */
const fixtures = resolve(import.meta.dir, "../../fixtures/claude-code");
const tempDir = tempDirs("recall-parser-version-");

describe("parser versions (issue 26)", () => {
  test("an index built by an older parser is stale, and the next run re-parses every session of that source once", async () => {
    const root = tempDir();
    const home = tempDir();
    const empty = tempDir();
    mkdirSync(join(root, "-home-dev-proj"));
    copyFileSync(join(fixtures, "rewind-branch.jsonl"), join(root, "-home-dev-proj", "rewind-branch.jsonl"));
    copyFileSync(join(fixtures, "several-roots.jsonl"), join(root, "-home-dev-proj", "several-roots.jsonl"));
    const roots = { "claude-code": [root], opencode: [empty] };
    expect((await runIndex({ recallHome: home, roots })).added).toBe(2);
    expect((await runIndex({ recallHome: home, roots })).updated).toBe(0);

    // What an index written before this parser version looks like: another version stored, the rewound turn missing.
    const db = new Database(databasePath(home));
    db.run("PRAGMA foreign_keys = ON"); // as recall opens it: the turn's archived outputs go with it
    db.run("UPDATE meta SET value = '1' WHERE key = 'parser_version:claude-code'");
    db.run("DELETE FROM turns WHERE number < 0");
    db.close();
    const readonly = openIndex(databasePath(home), { readonly: true });
    expect(checkStaleness(readonly, roots).staleSources).toEqual(["claude-code"]);
    readonly.close();

    const upgraded = await runIndex({ recallHome: home, roots });
    expect(upgraded.updated).toBe(2);
    const after = new Database(databasePath(home), { readonly: true });
    expect(after.query("SELECT count(*) AS n FROM turns WHERE number < 0").get()).toEqual({ n: 1 });
    expect(after.query("SELECT value FROM meta WHERE key = 'parser_version:claude-code'").get()).toEqual({
      value: String(claudeCodeParser.version),
    });
    after.close();
    expect((await runIndex({ recallHome: home, roots })).updated).toBe(0);
  });
});
