/**
 * `recall ui` in a real browser (Debian's chromium through playwright-core, headless, started here): search with
 * filters, a session opened at a turn anchor, a tool call expanded, the activity calendar and a click on a day, the
 * usage page's bar charts with a number on hover, the keyboard (/, j, k, Enter), a narrow dark page, the planted-script
 * session running nothing, and a session that grows while its page is open showing the new turn without a reload.
 * Screenshots of the pages go to a temporary folder, or to the folder RECALL_TEST_SCREENSHOTS names
 * (`RECALL_TEST_SCREENSHOTS=docs/ui` refreshes the ones the README links): a test run leaves the tracked files alone
 * (issue 39).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { browserSkipReason, launchBrowser } from "../helpers/browser.ts";
import { prepareUiHistory, startUi, uiIds, type RunningUi, type UiHistory } from "./ui-history.ts";

const skip = browserSkipReason();
if (skip) console.warn(`recall ui browser tests skipped: ${skip}`);
const screenshots = process.env.RECALL_TEST_SCREENSHOTS
  ? resolve(process.env.RECALL_TEST_SCREENSHOTS)
  : join(tmpdir(), "recall-ui-screenshots");

(skip ? describe.skip : describe)("recall ui in a browser", () => {
  let root: string;
  let history: UiHistory;
  let ui: RunningUi;
  let browser: Browser;
  let context: BrowserContext;
  /** The path the pages are under (`/<secret>`, where the login redirects). */
  let base: string;
  const errors: string[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "recall-ui-browser-"));
    history = prepareUiHistory(root);
    ui = await startUi(history.env);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Logs in: the token in the URL becomes the cookie.
    const page = await context.newPage();
    await page.goto(ui.loginUrl);
    base = new URL(page.url()).pathname.replace(/\/$/, "");
    await page.close();
    mkdirSync(screenshots, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** A new page that records console errors and CSP violations. */
  async function open(path: string, into: BrowserContext = context): Promise<Page> {
    const page = await into.newPage();
    page.on("pageerror", (error) => errors.push(`${path}: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`${path}: ${message.text()}`);
    });
    await page.goto(`${ui.origin}${base}${path}`);
    return page;
  }

  test("search with a facet filter, levels 1 and 2 side by side, the state in the URL", async () => {
    const page = await open("/");
    await page.keyboard.press("/");
    expect(await page.evaluate("document.activeElement?.id")).toBe("q");
    await page.keyboard.type("docker");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\?q=docker/);
    expect(await page.locator(".results .result").count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator(".turns li").count()).toBeGreaterThanOrEqual(1);
    await page.screenshot({ path: join(screenshots, "search.png") });
    await page.locator(".facet a", { hasText: "billing" }).click();
    await page.waitForURL(/project=/);
    const titles = await page.locator(".results .title").allTextContents();
    expect(titles).toEqual(["Migrate the billing schema"]);
    // The same URL in a fresh page shows the same answer (bookmarkable).
    const again = await open(new URL(page.url()).pathname.slice(base.length) + new URL(page.url()).search);
    expect(await again.locator(".results .title").allTextContents()).toEqual(titles);
    await page.close();
    await again.close();
  });

  test("j/k and Enter open a session; a turn anchor scrolls to that turn; a tool call expands to its output", async () => {
    const page = await open("/?q=docker+network");
    await page.keyboard.press("j");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/session\//);
    await page.goto(`${ui.origin}${base}/session/${uiIds.docker}#turn-2`);
    expect(await page.evaluate('document.querySelector(":target")?.id')).toBe("turn-2");
    expect(await page.locator("#turn-2").isVisible()).toBe(true);
    const call = page.locator("#turn-1 .tool details");
    expect(await call.locator("h4", { hasText: "Output" }).isVisible()).toBe(false);
    await call.locator("summary").click();
    expect(await call.locator("pre", { hasText: "f3c1e0 appnet" }).isVisible()).toBe(true);
    // The Edit of turn 2 as a diff: the added line marked as added.
    const edit = page.locator("#turn-2 .tool details");
    await edit.locator("summary").click();
    expect(await edit.locator(".diff .add", { hasText: "networks: [appnet]" }).isVisible()).toBe(true);
    await page.screenshot({ path: join(screenshots, "session.png"), fullPage: false });
    await page.close();
  });

  test("the copy button puts the resume command on the clipboard", async () => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: ui.origin });
    const page = await open(`/session/${uiIds.docker}`);
    await page.locator("button.copy").click();
    await page.locator("button.copy", { hasText: "Copied" }).waitFor({ timeout: 3000 });
    const copied = await page.evaluate("navigator.clipboard.readText()");
    expect(copied).toBe(await page.locator("#resume-command").textContent());
    expect(copied).toContain(`claude --resume ${uiIds.docker}`);
    await page.close();
  });

  test("the activity calendar draws, and a click on a day lists its sessions", async () => {
    const page = await open("/activity");
    await page.waitForSelector("#activity-chart[data-ready='true'] canvas");
    // The pixel of the busiest day's cell, from the chart itself; a real mouse click there.
    // Browser-side code as text: this program is typed without the DOM library (Bun's types).
    const point = (await page.evaluate(`(() => {
      const element = document.getElementById("activity-chart");
      const data = JSON.parse(document.getElementById("activity-data").textContent);
      const busiest = [...data.all.days].sort((a, b) => b[2] - a[2])[0];
      const chart = window.echarts.getInstanceByDom(element);
      const [x, y] = chart.convertToPixel({ calendarIndex: 0 }, busiest[0]);
      const box = element.getBoundingClientRect();
      return { x: box.left + x, y: box.top + y, date: busiest[0] };
    })()`)) as { x: number; y: number; date: string };
    await page.mouse.click(point.x, point.y);
    await page.waitForSelector("#activity-day h2");
    expect(await page.locator("#activity-day h2").textContent()).toContain(point.date);
    expect(await page.locator("#activity-day .result").count()).toBeGreaterThanOrEqual(1);
    await page.selectOption("#activity-slice", { label: "billing" });
    await page.screenshot({ path: join(screenshots, "activity.png") });
    await page.close();
  });

  test("the usage charts draw, and a bar shows its number on hover (issue 38 item 14)", async () => {
    const page = await open("/usage?bucket=day");
    await page.waitForSelector(".usage-chart[data-chart='tools'][data-ready='true'] canvas");
    expect(await page.locator(".usage-chart[data-ready='true']").count()).toBe(7);
    // The middle of the first tool's bar (tools are sorted most calls first), from the chart itself; hover there.
    const point = (await page.evaluate(`(() => {
      const element = document.querySelector(".usage-chart[data-chart='tools']");
      element.scrollIntoView({ block: "center" });
      const spec = JSON.parse(document.getElementById("usage-data").textContent).tools;
      const chart = window.echarts.getInstanceByDom(element);
      const [x, y] = chart.convertToPixel({ seriesIndex: 0 }, [spec.series[0].data[0] / 2, 0]);
      const box = element.getBoundingClientRect();
      return { x: box.left + x, y: box.top + y, tool: spec.categories[0], calls: spec.series[0].data[0] };
    })()`)) as { x: number; y: number; tool: string; calls: number };
    await page.mouse.move(point.x, point.y);
    const tooltip = page.locator(".usage-chart[data-chart='tools'] div", {
      hasText: `calls: ${point.calls} ${point.calls === 1 ? "call" : "calls"}`,
    });
    await tooltip.first().waitFor();
    expect(await tooltip.first().textContent()).toContain(point.tool);
    // The table behind the chart holds the same number.
    expect(await page.locator("#usage-tools ~ details tr", { hasText: point.tool }).first().textContent()).toBe(
      `${point.tool}${point.calls}`,
    );
    await page.screenshot({ path: join(screenshots, "usage.png"), fullPage: false });
    await page.close();
  });

  test("nothing planted in a session runs: no script, no handler, no javascript: link", async () => {
    const page = await open(`/session/${uiIds.hostile}`);
    await page.waitForSelector("#turn-1");
    for (const link of await page.locator(".turns-body a").all())
      await link.click({ noWaitAfter: true }).catch(() => {});
    await page.waitForTimeout(300);
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    expect(await page.locator(".turns-body script, .turns-body img, .turns-body iframe, .turns-body svg").count()).toBe(
      0,
    );
    expect(await page.locator('.turns-body a[href^="javascript:"]').count()).toBe(0);
    expect(await page.locator("#turn-1 .prompt").textContent()).toContain("<script>window.pwned = 1</script>");
    await page.close();
  });

  test("a narrow dark page: one column, dark colours, no sideways scrolling", async () => {
    const narrow = await browser.newContext({ viewport: { width: 390, height: 800 }, colorScheme: "dark" });
    const login = await narrow.newPage();
    await login.goto(ui.loginUrl);
    await login.close();
    const page = await open(`/?q=docker`, narrow);
    const layout = (await page.evaluate(`({
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      background: getComputedStyle(document.body).backgroundColor,
    })`)) as { overflow: number; background: string };
    expect(layout.overflow).toBeLessThanOrEqual(0);
    expect(layout.background).toBe("rgb(13, 17, 23)");
    await narrow.close();
  });

  test("a session that grows while its page is open shows the new turn without a reload", async () => {
    const page = await open(`/session/${uiIds.growing}`);
    await page.waitForSelector("#turn-1");
    await page.evaluate("window.stayed = true");
    history.appendTurn("second question, asked while the page is open", "second answer, appended live");
    await page.waitForSelector("#turn-2", { timeout: 20_000 });
    expect(await page.locator("#turn-2 .answer").textContent()).toContain("second answer, appended live");
    expect(await page.evaluate("window.stayed")).toBe(true);
    expect(await page.locator(".turn-count").textContent()).toBe("2 turns");
    await page.close();
  }, 40_000);

  test("the search page says when the index changed under it", async () => {
    const page = await open("/?q=running");
    await page.waitForSelector(".results");
    history.appendTurn("third question, while a search page is open", "third answer");
    await page.waitForSelector("#index-changed", { timeout: 20_000 });
    expect(await page.locator("#index-changed").textContent()).toContain("were indexed");
    await page.close();
  }, 40_000);

  test("no page logged a script error or a blocked resource", () => {
    expect(errors.join("\n")).toBe("");
  });
});
