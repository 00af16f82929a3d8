/**
 * Issue 37: project paths are stored redacted, so a front end started in a folder whose path holds a token (the MCP
 * server's and the picker's "this project") must still find its project: projectOfFolder compares the folder
 * redacted and answers the stored path.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { projectOfFolder } from "../../src/search/listing/recent.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";

const work = mkdtempSync(join(tmpdir(), "recall-project-folder-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A GitHub token of the documented shape (`ghp_` + 36 letters and digits), synthetic. */
const token = `ghp_${"Zk81mQx7Lp2Vb9Rt4Wy6Na3Kc5Hd0Fg2Js4E"}`;

test("a working folder whose path holds a token still finds its project, as stored (redacted)", async () => {
  const cwd = `/home/dev/${token}/app`;
  writeClaudeSession(join(work, "claude", "project", "5ec5e7a1-3737-4737-8737-000000000001.jsonl"), {
    sessionId: "5ec5e7a1-3737-4737-8737-000000000001",
    cwd,
    turns: [{ prompt: "run the tests", response: "All pass." }],
  });
  const recallHome = join(work, "recall-home");
  await runIndex({ recallHome, roots: { "claude-code": [join(work, "claude")] } });
  const db = openIndex(databasePath(recallHome), { readonly: true });
  try {
    expect(projectOfFolder(db, `${cwd}/src/lib`)).toBe("/home/dev/[REDACTED:github-token]/app");
    expect(projectOfFolder(db, "/home/dev/other")).toBeUndefined();
  } finally {
    db.close();
  }
}, 60_000);
