import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { compressionAck } from "../../src/parsers/gemini-cli/abstract.ts";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import type { SourceUnit } from "../../src/parsers/types.ts";
import { corpusDir } from "../helpers/corpus.ts";
import { replayAt } from "../fixtures/gemini-cli/helpers.ts";
import { lineBoundaries } from "./replay.ts";

/** Real Gemini CLI data: `../shared/corpus/gemini-cli/<owner>__<repo>/` (origin and licences in SOURCES.md). */
const geminiCorpus = join(corpusDir, "gemini-cli");
const hasGeminiCorpus = existsSync(geminiCorpus);
const roots = hasGeminiCorpus
  ? readdirSync(geminiCorpus)
      .sort()
      .map((name) => join(geminiCorpus, name))
  : [];
const ticketing = join(geminiCorpus, "wingorithm__Vibe-Coding-Comparison-Project/.gemini/tmp/ticketing-vc/chats");
const jsonlFiles = [
  "session-2026-04-25T08-23-e435870b.jsonl",
  "session-2026-04-25T08-41-3494a697.jsonl",
  "session-2026-04-25T08-46-c737eb36.jsonl",
];
/** Gemini tool names that must never survive normalization. */
const rawGeminiNames = new Set([
  "run_shell_command",
  "read_file",
  "write_file",
  "replace",
  "glob",
  "grep_search",
  "search_file_content",
  "web_fetch",
  "google_web_search",
  "list_directory",
  "write_todos",
]);

describe.skipIf(!hasGeminiCorpus)("gemini cli parser on the real corpus (needs ../shared/corpus/gemini-cli)", () => {
  const scan = geminiCliParser.scan(roots);
  const warnings: string[] = [];
  const units = geminiCliParser.listUnits(scan.containers, {
    onWarning: (message) => warnings.push(message),
    onUnavailable: (path) => warnings.push(path),
  });
  const unitOf = (sessionId: string): SourceUnit => units.find((unit) => unit.sessionId === sessionId)!;

  test("scan finds the chat files, the three prompt logs and no other side file", () => {
    expect(scan.missingRoots).toEqual([]);
    expect(scan.unavailable).toEqual([]);
    const chats = scan.containers.filter((container) => !container.path.endsWith("/logs.json"));
    expect(chats.length).toBeGreaterThan(20);
    for (const container of chats) {
      expect(container.path.includes("/chats/")).toBe(true);
      expect(container.path.endsWith("/projects.json")).toBe(false);
    }
    expect(scan.containers.length - chats.length).toBe(3); // checked in test/corpus/prompt-history.test.ts
    expect(warnings).toEqual([]);
  });

  test("every corpus file is read, or left out for a named reason", () => {
    const listed = new Set(scan.containers.map((container) => container.path));
    const reasons: Record<string, RegExp> = {
      "project registry (projects.json), not a chat": /\/\.gemini\/projects\.json$/,
      "project path, read for the sessions of its folder": /\/\.project_root$/,
      "another tool's test sample outside any chats/ folder (given as --gemini-dir itself, it is read)":
        /\/tests\/samples\/gemini_session\.json$/,
    };
    const leftOut: Record<string, number> = {};
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
      );
    for (const path of roots.flatMap(walk)) {
      if (listed.has(path)) continue;
      const reason = Object.keys(reasons).find((key) => reasons[key]!.test(path));
      if (!reason) throw new Error(`a corpus file is neither read nor left out for a named reason: ${path}`);
      leftOut[reason] = (leftOut[reason] ?? 0) + 1;
    }
    expect(Object.values(leftOut)).toEqual([3, 4, 1]);
    const sample = roots.flatMap(walk).find((path) => path.endsWith("gemini_session.json"))!;
    const alone = geminiCliParser.listUnits(geminiCliParser.scan([sample]).containers);
    expect(alone).toHaveLength(1);
    expect(geminiCliParser.parse(alone[0]!).turns.length).toBeGreaterThan(0);
  });

  test("every session parses without an exception and keeps the turn invariants", () => {
    expect(new Set(units.map((unit) => unit.key)).size).toBe(units.length);
    for (const unit of units) {
      for (const withOutputs of [false, true]) {
        const { session, turns, fromTurn, skipped } = geminiCliParser.parse(unit, { withOutputs });
        expect(fromTurn).toBe(1);
        expect(skipped.count).toBe(0);
        expect(session.id).toBe(unit.sessionId);
        expect(session.turnCount).toBe(turns.length);
        expect(turns.map((turn) => turn.number)).toEqual(turns.map((_, index) => index + 1));
        let last = 0;
        for (const turn of turns) {
          expect(turn.prompt.trim().length).toBeGreaterThan(0);
          expect(turn.sessionId).toBe(session.id);
          expect(turn.isSubagent).toBe(session.isSubagent);
          expect(turn.timestamp).toBeGreaterThanOrEqual(last);
          last = turn.timestamp;
          for (const call of turn.toolCalls) {
            expect(rawGeminiNames.has(call.name)).toBe(false);
            expect(call.output === undefined).toBe(!withOutputs);
          }
        }
        expect(session.startedAt).toBeGreaterThan(0);
        expect(session.endedAt).toBeGreaterThanOrEqual(session.startedAt);
      }
    }
  });

  // Expected values below were read from the files with python (user messages, `kind`, folder names).
  test("sub-agents link to the parent folder's session id; the skill extraction run has none", () => {
    expect(geminiCliParser.parse(unitOf("xs82vp")).session).toMatchObject({
      isSubagent: true,
      parentSessionId: "b1f31681-4b57-4337-8bc5-ac73580f752a",
      projectPath: "c:\\users\\loganf\\documents\\idaho-vault",
      projectName: "idaho-vault",
    });
    expect(
      geminiCliParser.parse(unitOf("xs82vp")).session.title?.startsWith("I have added the 'contractor' role"),
    ).toBe(true);
    expect(geminiCliParser.parse(unitOf("twynek")).session.parentSessionId).toBe(
      "f328310d-05ea-45ce-b9cb-fe2717bebe12",
    );
    expect(geminiCliParser.parse(unitOf("mrp1k5")).session).toMatchObject({ isSubagent: true, parentSessionId: null });
  });

  test("project paths: .project_root, learnt for the pre-0.29 hash folder of the same project", () => {
    const learnt = geminiCliParser.parse(unitOf("93c0da34-5996-4701-8f59-b9c95d0c57bd")).session;
    expect(learnt.projectPath).toBe("c:\\users\\acodu\\dev\\dashboard_mictlan");
  });

  test("issue 26: every pre-0.29 hash folder is named by the path whose SHA-256 it is, in the spelling the CLI hashed", () => {
    // 5c810163… = SHA-256 of `C:\Users\acodu`, a parent of the registered `c:\users\acodu\dev\dashboard_mictlan`;
    // f528f00f… = SHA-256 of `c:\Users\loganf\Documents\IDAHO-VAULT`, lower-cased in idaho-vault/.project_root.
    const home = geminiCliParser.parse(unitOf("4c16047e-f130-41b4-a460-1938c630fbc1")).session;
    expect([home.projectPath, home.projectName]).toEqual(["C:\\Users\\acodu", "acodu"]);
    for (const id of ["12e731c6-4e5a-474c-b7c6-b88195fc5a10", "c4c43609", "c6d2b633"]) {
      const unit = units.find((candidate) => candidate.sessionId.startsWith(id))!;
      expect(geminiCliParser.parse(unit).session.projectPath).toBe("c:\\Users\\loganf\\Documents\\IDAHO-VAULT");
    }
    for (const unit of units) expect(geminiCliParser.parse(unit).session.projectPath).not.toBe("");
  });

  test("known sessions: turn counts of a large JSON and a large JSONL file", () => {
    const big = geminiCliParser.parse(unitOf("931adb45-8b05-4dae-946c-77f54785c24c"));
    expect(big.session.turnCount).toBe(50);
    expect(big.session.title).toBe("Understand vault's narrative & policy constraints");
    const streamed = geminiCliParser.parse(unitOf("c737eb36-0f7f-466b-8044-9cb1f572378f"), { withOutputs: true });
    expect(streamed.session.turnCount).toBe(17);
    expect(
      streamed.turns.flatMap((turn) => turn.toolCalls).some((call) => call.name.startsWith("mcp__postgresql__")),
    ).toBe(true);
  });

  for (const name of jsonlFiles) {
    test(`resuming the real ${name} at every line boundary gives the full parse`, () => {
      const source = join(ticketing, name);
      const bytes = readFileSync(source);
      for (const cut of lineBoundaries(bytes)) {
        const replay = replayAt(source, cut);
        expect(replay.resumed.session).toEqual(replay.full.session);
        expect(replay.merged).toEqual(replay.full.turns);
        expect(replay.resumed.skipped).toEqual(replay.full.skipped);
        expect(replay.resumed.bytesRead).toBeLessThanOrEqual(replay.appendedBytes);
      }
    }, 30_000); // two parses at each of up to 228 line boundaries: 2.6 s on a quiet 2-core machine, over 5 s on a busy one
  }
});

/** Text of a Part list, a Part or a string, without thought parts (what a user typed or a model answered). */
function partText(value: unknown): string {
  if (typeof value === "string") return value;
  const parts = Array.isArray(value) ? value : value && typeof value === "object" ? [value] : [];
  return parts
    .map((part) => {
      if (typeof part === "string") return part;
      const record = part as { text?: unknown; thought?: unknown } | null;
      return typeof record?.text === "string" && record.thought !== true ? record.text : "";
    })
    .join("");
}

/** What a user typed or a model answered in one message record ("" for anything else). */
function spokenText(record: Record<string, unknown>): { kind: "user" | "reply"; text: string } | null {
  const type = typeof record.type === "string" ? record.type : record.role;
  if (type === "user") {
    const shown = partText(record.displayContent).trim();
    const text =
      shown ||
      (partText(record.content) || partText(record.parts)).split("\n--- Content from referenced files ---")[0]!;
    return { kind: "user", text: text.trim() };
  }
  if (type === "gemini" || type === "model")
    return { kind: "reply", text: (partText(record.content) || partText(record.parts)).trim() };
  return null;
}

/**
 * The messages a session's files hold at the end, read as the CLI's loader reads them (chatRecordingService.ts
 * `loadConversationRecord`: last record per id wins, `$rewindTo` cuts) but for `$set.messages`, which the loader lets
 * replace everything and recall, the archive, only add from (the messages it does not hold), independently of the
 * parser; messages without an id are kept under their place. A `.json` whose `.jsonl` twin is listed adds only ids
 * the twin never held (the CLI copied it there).
 */
function finalMessages(files: readonly string[]): Array<Record<string, unknown>> {
  const merged = new Map<string, Record<string, unknown>>();
  const seenByFile = new Map<string, Set<string>>();
  const perFile = files.map((file) => {
    const messages = new Map<string, Record<string, unknown>>();
    const seen = new Set<string>();
    const put = (key: string, record: Record<string, unknown>) => {
      messages.set(key, record);
      seen.add(key);
    };
    const text = readFileSync(file, "utf8");
    let document: Record<string, unknown> | undefined;
    try {
      document = JSON.parse(text);
    } catch {
      document = undefined;
    }
    if (document && Array.isArray(document.messages)) {
      for (const [index, record] of (document.messages as Array<Record<string, unknown>>).entries())
        put(typeof record.id === "string" ? record.id : `${file}#${index}`, record);
    } else {
      text.split("\n").forEach((raw, index) => {
        let record: Record<string, unknown>;
        try {
          record = JSON.parse(raw);
        } catch {
          return;
        }
        if (typeof record.$rewindTo === "string") {
          const keys = [...messages.keys()];
          const at = keys.indexOf(record.$rewindTo);
          for (const key of at < 0 ? keys : keys.slice(at)) messages.delete(key);
        } else if (record.$set && Array.isArray((record.$set as { messages?: unknown }).messages)) {
          for (const entry of (record.$set as { messages: Array<Record<string, unknown>> }).messages) {
            const key = typeof entry.id === "string" ? entry.id : `${file}:${index}`;
            if (!messages.has(key)) put(key, entry);
          }
        } else if (typeof record.id === "string") put(record.id, record);
        else if (typeof record.sessionId === "string" && Array.isArray(record.messages))
          for (const entry of record.messages as Array<Record<string, unknown>>)
            put(typeof entry.id === "string" ? entry.id : `${file}:${index}`, entry);
        else if (typeof record.type === "string" || typeof record.role === "string") put(`${file}:${index}`, record);
      });
    }
    seenByFile.set(file, seen);
    return { file, messages };
  });
  for (const { file, messages } of perFile) {
    const twin = file.endsWith(".json") ? seenByFile.get(`${file}l`) : undefined;
    for (const [key, record] of messages) if (!twin?.has(key)) merged.set(key, record);
  }
  return [...merged.values()];
}

/**
 * Every user text and model answer of every chat below `roots` is in a turn of its session (a prompt equal to it, a
 * response containing it), or the session's `skipped` counts at least as many records as are missing.
 * @returns the number of texts checked
 */
function expectEverythingKeptOrCounted(roots: readonly string[]): number {
  const units = geminiCliParser
    .listUnits(geminiCliParser.scan([...roots]).containers)
    .filter((unit) => !unit.promptOnly);
  let checked = 0;
  for (const unit of units) {
    const { session, turns, skipped } = geminiCliParser.parse(unit);
    const missing: string[] = [];
    for (const record of finalMessages(String(unit.locator?.files).split("\n"))) {
      const spoken = spokenText(record);
      if (!spoken?.text) continue;
      checked++;
      // Issue 41: a compression summary is kept in the abstract, and the acknowledgement after it is boilerplate.
      const inAbstract = session.abstract?.some((part) => spoken.text.includes(part.text)) ?? false;
      const found =
        spoken.kind === "user"
          ? inAbstract || turns.some((turn) => turn.prompt === spoken.text)
          : spoken.text === compressionAck || turns.some((turn) => turn.response.includes(spoken.text));
      if (!found) missing.push(`${spoken.kind}: ${spoken.text.slice(0, 80)}`);
    }
    if (missing.length > skipped.count) {
      throw new Error(
        `${unit.containerPath}: ${missing.length} texts in no turn, ${skipped.count} counted:\n${missing.join("\n")}`,
      );
    }
  }
  return checked;
}

describe("issue 26: every user text and model answer ends up in a turn or is counted in skipped", () => {
  test("in the committed fixtures (hand-made traps, lanegrid/agtrace's chat and its reshapings, the registry tree)", () => {
    expect(expectEverythingKeptOrCounted([resolve(import.meta.dir, "../fixtures/gemini-cli")])).toBeGreaterThan(40);
  });

  test.skipIf(!hasGeminiCorpus)(
    "in every chat of ../shared/corpus/gemini-cli (skipped when that folder is absent: it is not part of the repository)",
    () => {
      expect(expectEverythingKeptOrCounted(roots)).toBeGreaterThan(300);
    },
  );
});
