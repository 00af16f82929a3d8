/**
 * Issue 41 end to end, parser side: a HOME holding the OpenCode compaction fixture and the Codex `compacted` rollout at
 * the agents' default places is indexed by `recall index`, and the sessions the parsers read from those default places
 * carry their abstracts, as the parsers read them and as `recall sessions --json` lists them.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parserFor, sourceInfo } from "../../src/parsers/index.ts";
import type { Session, SourceId } from "../../src/parsers/types.ts";
import { runCli } from "../helpers/cli.ts";

const fixtures = resolve(import.meta.dir, "../fixtures");
const work = mkdtempSync(join(tmpdir(), "recall-abstract-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const home = join(work, "home");
cpSync(join(fixtures, "opencode/compaction/storage"), join(home, ".local/share/opencode/storage"), { recursive: true });
const codexDay = join(home, ".codex/sessions/2026/03/03");
mkdirSync(codexDay, { recursive: true });
cpSync(join(fixtures, "codex/compacted"), codexDay, { recursive: true, filter: (path) => !path.endsWith(".md") });
const codexRollout = readdirSync(codexDay).find((name) => name.endsWith(".jsonl")) as string;

/** The sessions a source's parser reads from its default folders below `home`. */
function sessionsAt(source: SourceId): Session[] {
  const parser = parserFor(source);
  const roots = sourceInfo(source).defaultRoots({}, home);
  return parser.listUnits(parser.scan(roots).containers).map((unit) => parser.parse(unit).session);
}

describe("issue 41: abstracts from the agents' default folders", () => {
  test("recall index reads both sessions, and recall sessions lists their abstracts", () => {
    const env = { PATH: process.env.PATH, HOME: home, RECALL_HOME: join(work, "recall"), RECALL_OFFLINE: "1" };
    const run = (args: string[]) => runCli(args, { ...env, NO_COLOR: "1", RECALL_EMBED_HELPER: "off" });
    expect(run(["index", "--keyword-only"]).exitCode).toBe(0);
    const listed = run(["sessions", "--json"]);
    expect(listed.exitCode).toBe(0);
    const sessions = (
      JSON.parse(listed.stdout) as { sessions: Array<{ session_id: string; abstract: Array<{ source: string }> }> }
    ).sessions;
    const sourcesOf = (id: string) =>
      sessions.find((session) => session.session_id.startsWith(id))?.abstract.map((part) => part.source);
    expect(sourcesOf("ses_cmp")).toEqual(["compaction", "agent_summary", "agent_title"]);
    expect(sourcesOf("019c2a10-5e1f-7d30-9a2b-3c4d5e6f7a81")).toEqual(["compaction", "compaction"]);
  });

  test("OpenCode: the compaction summary, then the message summary body and title", () => {
    const [session] = sessionsAt("opencode");
    expect(session?.abstract?.map((part) => part.source)).toEqual(["compaction", "agent_summary", "agent_title"]);
    expect(session?.abstract?.[0]?.text).toStartWith("## Goal\nPaginate GET /orders with an opaque cursor.");
  });

  test("Codex: the two local compactions' summaries, newest first", () => {
    const session = sessionsAt("codex").find((candidate) => codexRollout.includes(candidate.id));
    expect(session?.abstract?.map((part) => [part.source, part.text.split("\n")[1]])).toEqual([
      ["compaction", "Keep GET /orders fast."],
      ["compaction", "Paginate GET /orders with an opaque cursor."],
    ]);
  });
});
