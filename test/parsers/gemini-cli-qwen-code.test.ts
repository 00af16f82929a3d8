import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import { isQwenCodeChat, qwenCodeReason } from "../../src/parsers/gemini-cli/qwen-code.ts";
import { notKeptLines } from "../../src/render/not-kept.ts";
import { readIndexStatus } from "../../src/search/index.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

/** A `.gemini`-like root holding one Qwen Code chat (see ../fixtures/gemini-cli/README.md, "issue-37"). */
const root = resolve(import.meta.dir, "../fixtures/gemini-cli/issue-37");
const chat = resolve(root, "tmp/shop-app/chats/3f2b9c1e-7d4a-4e8b-9a61-5c0d2e8f4b17.jsonl");
const tempDir = tempDirs("recall-qwen-code-");

describe("a Qwen Code chat inside a Gemini CLI folder (issue 37)", () => {
  test("is rejected with a reason instead of becoming an empty gemini-cli session", () => {
    const rejected: Array<[string, string]> = [];
    const units = geminiCliParser.listUnits(geminiCliParser.scan([root]).containers, {
      onRejected: (path, reason) => rejected.push([path, reason]),
    });
    expect(units).toEqual([]);
    expect(rejected).toEqual([[chat, qwenCodeReason]]);
    expect(qwenCodeReason).toStartWith("not a Gemini CLI file");
  });

  test("the index stores no session for it and status lists it as a rejected file with its reason", async () => {
    const home = tempDir();
    const run = await runIndex({ recallHome: home, roots: { "gemini-cli": [root], opencode: [tempDir()] } });
    expect(run.added).toBe(0);
    const db = openIndex(databasePath(home), { readonly: true });
    try {
      const status = readIndexStatus(db, databasePath(home));
      expect(status.sessions).toBe(0);
      expect(status.notKept.rejectedFiles).toEqual([{ source: "gemini-cli", path: chat, reason: qwenCodeReason }]);
      expect(notKeptLines(status.notKept)).toContain(`  rejected  gemini-cli  ${chat}: ${qwenCodeReason}`);
    } finally {
      db.close();
    }
  });

  test("a Gemini CLI header line or a pretty-printed Gemini JSON chat is not taken for one", () => {
    const header = '{"sessionId":"s1","projectHash":"ab12","startTime":"2026-04-01T00:00:00Z","kind":"main"}\n';
    expect(isQwenCodeChat(header)).toBe(false);
    expect(isQwenCodeChat('{\n  "sessionId": "s1",\n  "messages": []\n}')).toBe(false);
    expect(isQwenCodeChat('{"uuid":"u1","parentUuid":null,"sessionId":"s1","type":"user","message":{}}\n')).toBe(true);
  });
});
