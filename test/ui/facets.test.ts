/**
 * The search page's facets and header against a history made for them (issue 38): more matching sessions than one
 * page holds, sessions without a project folder, and three projects of one name (`IDAHO-VAULT` in two folders,
 * `idaho-vault`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestSession } from "../helpers/claude-writer.ts";
import { prepareUiHistory, startUi, type RunningUi } from "./ui-history.ts";

let root: string;
let ui: RunningUi;
let cookie: string;
let base: string;
const day = 86_400_000;
/** Sessions that mention "kubernetes": more than the page's 25. */
const manyCount = 27;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "recall-ui-facets-"));
  const now = Date.now();
  const session = (id: number, cwd: string, prompt: string): TestSession => ({
    sessionId: `6a1b2c3d-7777-4777-8777-${String(id).padStart(12, "0")}`,
    cwd,
    startMs: now - (id + 1) * 3_600_000 - 5 * day,
    title: `Session ${id}`,
    turns: [{ prompt, response: "done" }],
  });
  const history = prepareUiHistory(root, (webapp) => [
    ...Array.from({ length: manyCount }, (_, i) => session(i, webapp, `scale the kubernetes deployment, step ${i}`)),
    session(100, "", "a chat without a project folder about zeppelins"),
    session(101, "", "another projectless chat about zeppelins"),
    session(102, join(root, "work", "IDAHO-VAULT"), "vault notes about zeppelins"),
    session(103, join(root, "old", "IDAHO-VAULT"), "older vault notes about zeppelins"),
    session(104, join(root, "home", "idaho-vault"), "lower-case vault notes about zeppelins"),
  ]);
  ui = await startUi(history.env, ["--no-watch"]);
  ({ cookie, base } = await ui.login());
}, 120_000);
afterAll(async () => {
  await ui?.stop();
  rmSync(root, { recursive: true, force: true });
});

const page = async (query: string) => {
  const response = await fetch(`${ui.origin}${base}/${query}`, { headers: { cookie } });
  expect(response.status).toBe(200);
  return response.text();
};

/** The project facet's entries: label, link, tooltip, whether on, count. */
function projectFacet(markup: string) {
  const section = /<section class="facet"><h3>Project<\/h3><ul>(.*?)<\/ul><\/section>/s.exec(markup)?.[1] ?? "";
  return [
    ...section.matchAll(
      /<li><a href="([^"]*)" class="([^"]*)"(?: title="([^"]*)")?>([^<]*)<\/a> <span class="count">(\d+)<\/span>/g,
    ),
  ].map(([, href, on, title, label, count]) => ({
    href: href!.replaceAll("&amp;", "&"),
    on: on === "on",
    title,
    label,
    count: Number(count),
  }));
}
const resultCount = (markup: string) => markup.match(/<li class="result/g)?.length ?? 0;

describe("the search page's project facet and header (issue 38)", () => {
  test("sessions without a project are a '(no project)' entry that is not on and filters to them (item 10)", async () => {
    const markup = await page("?q=zeppelins");
    const entries = projectFacet(markup);
    expect(entries.every((entry) => entry.label?.trim())).toBe(true);
    const none = entries.find((entry) => entry.label === "(no project)");
    expect(none).toMatchObject({ on: false, count: 2 });
    const filtered = await page(new URL(none!.href, "http://x").search);
    expect(resultCount(filtered)).toBe(2);
    expect(filtered).toContain("projectless chat");
    expect(projectFacet(filtered).find((entry) => entry.label === "(no project)")?.on).toBe(true);
    // Recent sessions (no query) too.
    const recent = projectFacet(await page("")).find((entry) => entry.label === "(no project)");
    expect(recent?.count).toBe(2);
  });

  test("the header counts what the facets count: the page shown of all the sessions that match (item 10)", async () => {
    const markup = await page("?q=kubernetes");
    expect(resultCount(markup)).toBe(25);
    const facetTotal = projectFacet(markup).reduce((sum, entry) => sum + entry.count, 0);
    expect(facetTotal).toBe(manyCount);
    expect(markup).toContain(`<span class="shown">25 of ${manyCount} sessions</span> for “kubernetes”`);
    const few = await page("?q=zeppelins");
    expect(few).toContain(`<span class="shown">5 sessions</span> for “zeppelins”`);
  });

  test("projects of one name are told apart by their folders, with the whole path as a tooltip (item 13)", async () => {
    const markup = await page("?q=vault");
    const labels = projectFacet(markup).map((entry) => [entry.label, entry.title]);
    expect(labels.sort()).toEqual(
      [
        ["home/idaho-vault", join(root, "home", "idaho-vault")],
        ["old/IDAHO-VAULT", join(root, "old", "IDAHO-VAULT")],
        ["work/IDAHO-VAULT", join(root, "work", "IDAHO-VAULT")],
      ].sort(),
    );
    // The results say the same, with the path on hover.
    expect(markup).toContain(
      `<span class="project" title="${join(root, "old", "IDAHO-VAULT")}">old/IDAHO-VAULT</span>`,
    );
    // A name of its own stays short.
    expect(projectFacet(await page("?q=kubernetes")).map((entry) => entry.label)).toEqual(["webapp"]);
  });
});
