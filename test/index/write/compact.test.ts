import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../../src/index/index.ts";
import { fillerText, writeClaudeSession } from "../../helpers/claude-writer.ts";

// A first index writes its documents batch by batch, one FTS5 segment per batch; the run that wrote most of the
// index merges them into one (compact.ts), an incremental run does not.
const work = mkdtempSync(join(tmpdir(), "recall-compact-"));
const home = join(work, "home");
afterAll(() => rmSync(work, { recursive: true, force: true }));

const writeSessions = (from: number, count: number) => {
  for (let n = from; n < from + count; n++) {
    const id = `${String(n).padStart(8, "0")}-0000-4000-8000-000000000000`;
    writeClaudeSession(join(work, "claude", "projects", `-home-u-p${n % 7}`, `${id}.jsonl`), {
      sessionId: id,
      cwd: `/home/u/p${n % 7}`,
      turns: Array.from({ length: 12 }, (_, turn) => ({
        prompt: fillerText(n * 50 + turn, 12),
        response: fillerText(n * 50 + turn + 25, 20),
      })),
    });
  }
};
const index = async () => {
  const summary = await runIndex({ recallHome: home, roots: { "claude-code": [join(work, "claude")], opencode: [] } });
  expect(summary.failedUnits).toBe(0);
};
const segments = () => {
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    return db.query<{ n: number }, []>("SELECT count(DISTINCT segid) AS n FROM documents_fts_idx").get()!.n;
  } finally {
    db.close();
  }
};

describe("keyword index segments after a run", () => {
  test("a first index of 200 sessions (2,600 documents) ends with one segment", async () => {
    writeSessions(0, 200);
    await index();
    expect(segments()).toBe(1);
  });

  test("an incremental run of a few sessions adds its own segment and merges nothing", async () => {
    writeSessions(200, 3);
    await index();
    expect(segments()).toBe(2);
  });
});
