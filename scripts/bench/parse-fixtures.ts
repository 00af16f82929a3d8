/**
 * Bench (issue 40): parse speed of the agents added after the first six, on their test fixtures (the shared corpus
 * holds none of their files), to read beside the six's corpus rows (parse-claude.ts, parse-opencode.ts,
 * parse-agents.ts). Per source: its fixture folder (test/fixtures/<agent>, at the root the agent's own folder would be),
 * `scan` + `listUnits` once, a warm-up parse of every unit, then `--rounds` rounds (default 5, warm page cache), each
 * a full `parse` of every unit with default options, `--repeat` times over (default 200: a fixture holds one to a few
 * sessions, and copies of a file would be listed once, by session id) → `<source>-parse-fixtures×<repeat>`
 * {mb_per_s, sessions_per_s, sessions, turns, bytes} per round. Bytes = the summed sizes of the containers the scan
 * listed (for a task folder, its `ui_messages.json`) × repeat; sessions = units × repeat. A fixture is small (a few KB),
 * so the rates weigh per-session overhead more than a real history's would. Prints one JSON line per source {name, n,
 * p50_ms, p95_ms, …, machine, commit}. Goose's and Crush's databases are built from their SQL fixtures first.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parserFor } from "../../src/parsers/index.ts";
import type { SourceId } from "../../src/parsers/types.ts";
import { databaseFromScript } from "../../test/helpers/sql-fixture.ts";
import { readChatFixture, writeChatStore } from "../../test/parsers/cursor-agent-store.ts";
import { writeThreadsDatabase } from "../../test/parsers/zed-store.ts";
import { argValue, report, sample, throughputAtMedian } from "./lib.ts";

const fixtures = resolve(import.meta.dir, "../../test/fixtures");

/** Goose's, Crush's and Grok CLI's fixtures are SQL scripts: their databases are built in a temp folder (removed at the end). */
const built = mkdtempSync(join(tmpdir(), "recall-bench-parse-fixtures-"));
databaseFromScript("goose/sessions.sql", join(built, "goose", "sessions", "sessions.db"));
databaseFromScript("crush/crush.sql", join(built, "crush", "project", ".crush", "crush.db"));
databaseFromScript("grok-cli/grok.sql", join(built, "grok", "grok.db"));
// Cursor's CLI and Zed keep SQLite stores their tests write from JSON fixtures
writeChatStore(join(built, "cursor-agent"), readChatFixture());
writeThreadsDatabase(join(built, "zed"));

/** Each added source's fixture folder, as its agent's own folder (the root its `--<agent>-dir` takes). */
const fixtureRoots: Partial<Record<SourceId, string>> = {
  "copilot-cli": join(fixtures, "copilot-cli"),
  "qwen-code": join(fixtures, "qwen-code", ".qwen"),
  "kimi-cli": join(fixtures, "kimi-cli", ".kimi"),
  cline: join(fixtures, "cline", "data"),
  "roo-code": join(fixtures, "roo-code"),
  "kilo-code": join(fixtures, "kilo-code"),
  pi: join(fixtures, "pi"),
  droid: join(fixtures, "droid"),
  goose: join(built, "goose"),
  crush: join(built, "crush"),
  continue: join(fixtures, "continue"),
  "cursor-agent": join(built, "cursor-agent"),
  "copilot-chat": join(fixtures, "copilot-chat", "User"),
  zed: join(built, "zed"),
  openclaw: join(fixtures, "openclaw", ".openclaw"),
  "mistral-vibe": join(fixtures, "mistral-vibe", ".vibe"),
  "grok-cli": join(built, "grok"),
  codebuff: join(fixtures, "codebuff", ".config", "manicode"),
};

const repeat = argValue("--repeat", 200);
const rounds = argValue("--rounds", 5);
try {
  for (const [source, root] of Object.entries(fixtureRoots) as Array<[SourceId, string]>) {
    const parser = parserFor(source);
    const { containers } = parser.scan([root]);
    const units = parser.listUnits(containers);
    const bytes = containers.reduce((sum, container) => sum + statSync(container.path).size, 0) * repeat;
    const turns = units.reduce((sum, unit) => sum + parser.parse(unit).turns.length, 0) * repeat; // also the warm-up
    const samples = sample(rounds, () => {
      for (let i = 0; i < repeat; i++) for (const unit of units) parser.parse(unit);
    });
    report(`${source}-parse-fixtures×${repeat}`, samples, {
      ...throughputAtMedian(samples, bytes, units.length * repeat),
      sessions: units.length * repeat,
      turns,
      bytes,
    });
  }
} finally {
  rmSync(built, { recursive: true, force: true });
}
