/**
 * `recall status` rows of sessions without a project folder (issue 37): they were one row for every source, named
 * after whichever session came first (a Gemini CLI folder hash), a name `sessions --project` matched in only some of
 * them. Now one row per source, named "(no project)", a `--project` value that lists exactly that row's sessions.
 * Built with the indexer on the Gemini CLI and Codex fixtures (a hash folder no registry names) and a Codex prompt
 * history whose thread has no rollout.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { paletteFor } from "../../src/render/format.ts";
import { renderForgetText } from "../../src/render/forget.ts";
import { renderSearchText } from "../../src/render/search.ts";
import { renderStatusJson, renderStatusText } from "../../src/render/sessions.ts";
import type { SessionResult } from "../../src/search/reading/hydrate.ts";
import { filterSql } from "../../src/search/listing/filters.ts";
import { countSessions, listSessions, noProjectLabel, readIndexStatus, searchIndex } from "../../src/search/index.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const fixtures = resolve(import.meta.dir, "../fixtures");
const tempDir = tempDirs("recall-status-projects-");

describe("status rows of sessions without a project folder (issue 37)", () => {
  test("are one row per source, named (no project), whose filter lists exactly its sessions", async () => {
    const home = tempDir();
    const empty = tempDir();
    // A Codex home whose prompt history names a thread with no rollout left: a session of typed prompts, no folder.
    const codexHome = tempDir();
    mkdirSync(join(codexHome, "sessions"));
    writeFileSync(
      join(codexHome, "history.jsonl"),
      '{"session_id":"019c0000-eeee-7000-8000-00000000000e","ts":1772337600,"text":"what was the release plan?"}\n',
    );
    const roots = {
      "gemini-cli": [resolve(fixtures, "gemini-cli/dot-gemini")],
      codex: [resolve(fixtures, "codex/home"), codexHome],
      opencode: [empty],
    };
    await runIndex({ recallHome: home, roots });
    const db = openIndex(databasePath(home), { readonly: true });
    try {
      const status = readIndexStatus(db, databasePath(home));
      const withoutFolder = status.byProject.filter((row) => row.projectPath === "");
      expect(withoutFolder.map((row) => [row.project, row.source]).sort()).toEqual([
        [noProjectLabel, "codex"],
        [noProjectLabel, "gemini-cli"],
      ]);
      for (const row of withoutFolder) {
        const filters = { source: row.source as "codex" | "gemini-cli", project: noProjectLabel };
        expect(countSessions(db, filters)).toBe(row.sessions);
        const listed = listSessions(db, filters, -1);
        expect(listed.every((session) => session.projectPath === "" && session.source === row.source)).toBe(true);
        // The one WHERE of search, export and forget too (filters.ts), so every command takes the label.
        const where = filterSql({ ...filters, project: " (No Project) " });
        const matched = db
          .query<{ n: number }, Array<string | number>>(`SELECT count(*) AS n FROM sessions s WHERE ${where.where}`)
          .get(...where.params)!.n;
        expect(matched).toBe(row.sessions);
      }
      // Rows of a project folder are untouched: named by the folder, no source.
      const withFolder = status.byProject.filter((row) => row.projectPath !== "");
      expect(withFolder.length).toBeGreaterThan(0);
      expect(withFolder.every((row) => row.source === undefined && row.project !== noProjectLabel)).toBe(true);
      expect(status.byProject.reduce((sum, row) => sum + row.sessions, 0)).toBe(status.sessions);

      // What status prints names the filter; its JSON names the source of such a row (null for a folder's row).
      const summaries = { withAbstract: 0, summarized: 0, withoutSummary: 0, failed: {}, backend: "none" };
      const extras = { recallHome: home, stale: false, staleSources: [], usingExamples: false, unread: [], summaries };
      const text = renderStatusText(status, extras, await paletteFor(1, { NO_COLOR: "1" }));
      expect(text).toContain('codex: recall sessions --source codex --project "(no project)"');
      // one session and one turn are counted in the singular (issue 38, item 18)
      expect(text).not.toMatch(/\b1 (sessions|turns)\b/);
      expect(text).toMatch(/\b1 session\b/);

      // A session without a project is "(no project)" in every text surface, as in status (issue 38, item 18)
      const found = await searchIndex(db, { query: "release plan", level: "session", filters: {}, mode: "keyword" });
      const palette = await paletteFor(1, { NO_COLOR: "1" });
      const answer = renderSearchText(found, palette);
      expect(answer).toContain("project=(no project)");
      expect(answer).toMatch(/keyword mode: 1 session\n/);
      const indexAnswer = renderSearchText(found, palette, { format: "index" });
      expect(indexAnswer).toContain(" (no project)");
      const session = found.results[0] as SessionResult;
      const forgotten = renderForgetText({
        sessions: [{ ...session, projectPath: "", project: "", title: null, turns: session.turns }],
        turns: 1,
        documents: 0,
        chunks: 0,
        vectorRows: 0,
      });
      expect(forgotten).toContain("(no project)");
      expect(forgotten).not.toContain("  ?  ");
      expect(text).toContain('gemini-cli: recall sessions --source gemini-cli --project "(no project)"');
      const json = JSON.parse(renderStatusJson(status, extras));
      expect(json.by_project.map((row: { source: string | null }) => row.source).sort()).toEqual([
        "codex",
        "gemini-cli",
        null,
        null,
      ]);
    } finally {
      db.close();
    }
  });
});
