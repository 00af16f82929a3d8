/**
 * The web view's layout in a real browser (issue 38): the Open link of a result clear of a long title, a `#turn-N`
 * link landing the turn below the sticky top bar, at a desktop and a phone width; the activity legend's numbers and
 * projects of one name told apart in its menu.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { browserSkipReason, launchBrowser } from "../helpers/browser.ts";
import type { TestSession } from "../helpers/claude-writer.ts";
import { prepareUiHistory, startUi, type RunningUi } from "./ui-history.ts";

const skip = browserSkipReason();
if (skip) console.warn(`recall ui layout tests skipped: ${skip}`);

const longId = "6a1b2c3d-8888-4888-8888-000000000001";
const manyTurnsId = "6a1b2c3d-8888-4888-8888-000000000002";
const widths = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 700 } },
];

(skip ? describe.skip : describe)("recall ui layout (issue 38)", () => {
  let root: string;
  let ui: RunningUi;
  let browser: Browser;
  const contexts = new Map<string, BrowserContext>();
  let base: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "recall-ui-layout-"));
    const now = Date.now();
    const history = prepareUiHistory(root, (webapp) => {
      const sessions: TestSession[] = [
        {
          sessionId: longId,
          cwd: webapp,
          startMs: now - 3_600_000,
          title:
            "Make the quarterly zeppelin report generator stop dropping the last row of every table when the export runs overnight",
          turns: [{ prompt: "the zeppelin report loses its last row", response: "Fixed the off-by-one." }],
        },
        {
          sessionId: manyTurnsId,
          cwd: webapp,
          startMs: now - 7_200_000,
          title: "A long zeppelin session",
          turns: Array.from({ length: 30 }, (_, i) => ({
            prompt: `zeppelin question ${i + 1}\n\n${"More context for this question. ".repeat(12)}`,
            response: `Answer ${i + 1}.\n\n${"A paragraph of explanation. ".repeat(15)}`,
          })),
        },
      ];
      return [
        ...sessions,
        { ...sessions[0]!, sessionId: "6a1b2c3d-8888-4888-8888-000000000003", cwd: join(root, "work", "IDAHO-VAULT") },
        { ...sessions[0]!, sessionId: "6a1b2c3d-8888-4888-8888-000000000004", cwd: join(root, "old", "IDAHO-VAULT") },
      ];
    });
    ui = await startUi(history.env, ["--no-watch"]);
    browser = await launchBrowser();
    for (const { name, viewport } of widths) {
      const context = await browser.newContext({ viewport });
      const login = await context.newPage();
      await login.goto(ui.loginUrl);
      base = new URL(login.url()).pathname.replace(/\/$/, "");
      await login.close();
      contexts.set(name, context);
    }
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const open = async (width: string, path: string): Promise<Page> => {
    const page = await contexts.get(width)!.newPage();
    await page.goto(`${ui.origin}${base}${path}`);
    return page;
  };

  for (const { name } of widths) {
    test(`${name}: the Open link overlaps no line of a result's title (item 9)`, async () => {
      const page = await open(name, "/?q=zeppelin");
      // Browser-side code as text: this program is typed without the DOM library (Bun's types).
      const overlaps = (await page.evaluate(`[...document.querySelectorAll(".results .result")].map((result) => {
        const open = result.querySelector(".open").getBoundingClientRect();
        const lines = [...result.querySelector(".title").getClientRects()];
        return {
          lines: lines.length,
          overlapping: lines.filter((line) => line.left < open.right && open.left < line.right &&
            line.top < open.bottom && open.top < line.bottom).length,
        };
      })`)) as Array<{ lines: number; overlapping: number }>;
      expect(overlaps.length).toBeGreaterThanOrEqual(2);
      // The long title wraps (so the test measures the case that went wrong), and no line of any title meets the link.
      expect(Math.max(...overlaps.map((result) => result.lines))).toBeGreaterThanOrEqual(2);
      expect(overlaps.map((result) => result.overlapping)).toEqual(overlaps.map(() => 0));
      // A confidence badge is never broken across two lines.
      const badgeLines = await page.evaluate(
        `[...document.querySelectorAll(".results .badge")].map((badge) => badge.getClientRects().length)`,
      );
      expect(badgeLines).toEqual((badgeLines as number[]).map(() => 1));
      await page.close();
    });

    test(`${name}: after a #turn-N link the turn's heading is below the sticky top bar (item 12)`, async () => {
      const page = await open(name, `/session/${manyTurnsId}#turn-20`);
      const measure = async (turn: number) =>
        (await page.evaluate(`({
          bar: document.querySelector("header.top").getBoundingClientRect().bottom,
          heading: document.querySelector("#turn-${turn} h3").getBoundingClientRect().top,
          scrolled: window.scrollY,
        })`)) as { bar: number; heading: number; scrolled: number };
      const landed = await measure(20);
      expect(landed.scrolled).toBeGreaterThan(0);
      expect(landed.heading).toBeGreaterThanOrEqual(landed.bar);
      // A link of the turn index on the page itself too.
      await page.locator('.turn-index a[href="#turn-25"]').click();
      await page.waitForFunction("location.hash === '#turn-25'");
      const clicked = await measure(25);
      expect(clicked.heading).toBeGreaterThanOrEqual(clicked.bar);
      await page.close();
    });
  }

  test("the activity legend has numbers at its ends, and projects of one name are told apart (item 13)", async () => {
    const page = await open("desktop", "/activity");
    await page.waitForSelector("#activity-chart[data-ready='true'] canvas");
    const legend = async () =>
      (await page.evaluate(`(() => {
        const option = window.echarts.getInstanceByDom(document.getElementById("activity-chart")).getOption();
        return { text: option.visualMap[0].text, max: option.visualMap[0].max };
      })()`)) as { text: string[]; max: number };
    const turns = await legend();
    expect(turns.max).toBeGreaterThanOrEqual(30);
    expect(turns.text).toEqual([`${turns.max} turns`, "0"]);
    await page.selectOption("#activity-measure", { label: "sessions" });
    const sessions = await legend();
    expect(sessions.text).toEqual([`${sessions.max} sessions`, "0"]);
    const options = await page.locator("#activity-slice optgroup[label='Project'] option").allTextContents();
    expect(options).toContain("work/IDAHO-VAULT");
    expect(options).toContain("old/IDAHO-VAULT");
    await page.close();
  });
});
