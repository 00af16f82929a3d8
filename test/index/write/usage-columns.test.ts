import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { databasePath, runIndex } from "../../../src/index/index.ts";
import { tempDirs } from "../../helpers/temp-dirs.ts";

/**
 * Issue 38 item 14: turns store the model and tokens their agent recorded (schema v12), and an index written before
 * (schema 11, older parser versions) gets them filled by its next run, where the source is still there.
 */
const fixture = resolve(import.meta.dir, "../../fixtures/claude-code/usage-split.jsonl");
const tempDir = tempDirs("recall-usage-columns-");
const columns =
  "number, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, json_array_length(usage) AS models";

function turnRows(home: string): unknown[] {
  const db = new Database(databasePath(home), { readonly: true });
  try {
    return db.query(`SELECT ${columns} FROM turns ORDER BY number`).all();
  } finally {
    db.close();
  }
}

const expected = [
  // once per message.id (usage-split.jsonl: 12 split lines, 4 messages); summed per line it would be 316 input
  {
    number: 1,
    model: "claude-sonnet-4-20250514",
    input_tokens: 76,
    output_tokens: 4,
    cache_read_tokens: 14363,
    cache_write_tokens: 14772,
    cost_usd: null,
    models: 1,
  },
  {
    number: 2,
    model: "claude-sonnet-4-20250514",
    input_tokens: 12,
    output_tokens: 274,
    cache_read_tokens: 30181,
    cache_write_tokens: 1228,
    cost_usd: null,
    models: 1,
  },
];

describe("usage columns of turns (issue 38 item 14)", () => {
  test("an index run stores each turn's model, token counts and usage per model", async () => {
    const root = tempDir();
    const home = tempDir();
    mkdirSync(join(root, "-home-dev-music"));
    copyFileSync(fixture, join(root, "-home-dev-music", "fed8ce56-bc79-401f-a83e-af084253362f.jsonl"));
    await runIndex({ recallHome: home, roots: { "claude-code": [root], opencode: [tempDir()] } });
    expect(turnRows(home)).toEqual(expected);
  });

  test("an index of schema 11 gains the columns and the next run fills them by re-parsing", async () => {
    const root = tempDir();
    const home = tempDir();
    const roots = { "claude-code": [root], opencode: [tempDir()] };
    mkdirSync(join(root, "-home-dev-music"));
    copyFileSync(fixture, join(root, "-home-dev-music", "fed8ce56-bc79-401f-a83e-af084253362f.jsonl"));
    await runIndex({ recallHome: home, roots });
    // What schema 11 with the claude-code parser 3 looks like: no usage columns.
    const db = new Database(databasePath(home));
    for (const name of [
      "model",
      "input_tokens",
      "output_tokens",
      "cache_read_tokens",
      "cache_write_tokens",
      "cost_usd",
      "usage",
    ])
      db.run(`ALTER TABLE turns DROP COLUMN ${name}`);
    db.run("UPDATE meta SET value = '3' WHERE key = 'parser_version:claude-code'");
    db.run("PRAGMA user_version = 11");
    db.close();
    expect((await runIndex({ recallHome: home, roots })).updated).toBe(1);
    expect(turnRows(home)).toEqual(expected);
  });
});
