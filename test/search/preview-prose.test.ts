/**
 * Issue 38, item 5: a result's preview shows the prompt and reply when they hold the query's words, not the tool
 * lines (`…Bash rg -n "PodGroup.*not found|…`). A real Claude Code session with tool calls is indexed with the real
 * indexer and searched through the real CLI; the preview builder is also checked on its own.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runIndex } from "../../src/index/index.ts";
import { makeDocumentPreview } from "../../src/search/reading/preview.ts";
import { podGroupSession } from "../fixtures/podgroup-session.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-preview-prose-"));
mkdirSync(join(work, "no-opencode"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const session = podGroupSession;
writeClaudeSession(join(work, "claude", "-home-dev", `${session.sessionId}.jsonl`), session);

describe("issue 38, item 5: previews prefer prose over tool lines", () => {
  test('`recall search "PodGroup not found"` previews the reply, not the rg command', async () => {
    const home = join(work, "home");
    await runIndex({
      recallHome: home,
      roots: { "claude-code": [join(work, "claude")], opencode: [join(work, "no-opencode")] },
    });
    const result = runCli(["search", "PodGroup not found", "--json", "--keyword-only", "--no-reindex"], {
      ...process.env,
      RECALL_HOME: home,
      HOME: work,
      NO_COLOR: "1",
    });
    expect(result.exitCode).toBe(0);
    const [hit] = JSON.parse(result.stdout).results as Array<{ preview: string }>;
    const text = hit!.preview;
    expect(text).toContain("the webhook creates the pod before its PodGroup exists");
    expect(text).not.toContain("rg -n");
  });

  test("tool lines give the preview when only they hold a query word", () => {
    const document = { heading: "pods stay pending", body: "Fixed it.", extra: 'Bash rg -n "PodGroup" pkg/' };
    const preview = makeDocumentPreview(document, ["podgroup"]);
    expect(preview.text).toContain('rg -n "PodGroup"');
    expect(preview.highlights.map(([start, end]) => preview.text.slice(start, end))).toEqual(["PodGroup"]);
  });

  test("with no match anywhere the preview starts with the prompt, as before", () => {
    const document = { heading: "pods stay pending", body: "Fixed it.", extra: "Bash ls" };
    expect(makeDocumentPreview(document, ["docker"]).text).toBe("pods stay pending — Fixed it. — Bash ls");
  });
});
