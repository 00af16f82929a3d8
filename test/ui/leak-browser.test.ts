/**
 * Issue 37, end to end in Chromium: the chain that sent `recall ui`'s login cookie to another program. A session's
 * prompt carries `<meta http-equiv=refresh>` to a listener on another loopback port in inline code, its answer a link
 * there; a page already open receives the same as a new turn. The page must stay where it is, and when the user does
 * follow the link, the listener must receive nothing that works against our server. Also: two servers in one browser
 * do not log each other out, and the redirect file `recall ui` opens logs the browser in.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, BrowserContext } from "playwright-core";
import { writeLoginFile } from "../../src/ui/login-file.ts";
import { browserSkipReason, launchBrowser } from "../helpers/browser.ts";
import { prepareUiHistory, startUi, uiIds, type RunningUi, type UiHistory } from "./ui-history.ts";

const skip = browserSkipReason();
if (skip) console.warn(`recall ui leak tests skipped: ${skip}`);

const plantedId = "6a1b2c3d-6666-4666-8666-000000000006";

(skip ? describe.skip : describe)("recall ui: nothing reaches another local port", () => {
  let root: string;
  let history: UiHistory;
  let ui: RunningUi;
  let browser: Browser;
  let context: BrowserContext;
  let base: string;
  /** What the listener on another loopback port received: path and Cookie header of each request. */
  const received: Array<{ path: string; cookie: string }> = [];
  let listener: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    listener = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        received.push({ path: new URL(request.url).pathname, cookie: request.headers.get("cookie") ?? "" });
        return new Response("<!doctype html><title>elsewhere</title>", { headers: { "content-type": "text/html" } });
      },
    });
    const elsewhere = `http://127.0.0.1:${listener.port}`;
    root = mkdtempSync(join(tmpdir(), "recall-ui-leak-"));
    history = prepareUiHistory(root, (webapp) => [
      {
        sessionId: plantedId,
        cwd: webapp,
        startMs: Date.now() - 3_600_000,
        title: "Planted redirect",
        turns: [
          {
            prompt: `check \`<meta http-equiv="refresh" content="0;url=${elsewhere}/refreshed">\` and \`<img src=x onerror=alert(1)>\``,
            response: `See [the docs](${elsewhere}/clicked).`,
          },
        ],
      },
    ]);
    ui = await startUi(history.env);
    browser = await launchBrowser();
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(ui.loginUrl);
    base = new URL(page.url()).pathname.replace(/\/$/, "");
    await page.close();
  });
  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    listener?.stop(true);
    rmSync(root, { recursive: true, force: true });
  });

  test("inline code with <meta http-equiv=refresh> leaves the session page where it is", async () => {
    const page = await context.newPage();
    const url = `${ui.origin}${base}/session/${plantedId}`;
    await page.goto(url);
    await page.waitForTimeout(1500);
    expect(page.url()).toBe(url);
    expect(await page.locator("#turn-1 .prompt code").first().textContent()).toContain('<meta http-equiv="refresh"');
    expect(await page.locator("main meta, main img").count()).toBe(0);
    expect(received).toEqual([]);
    await page.close();
  });

  test("the same arriving as a new turn on a page already open leaves it where it is", async () => {
    const page = await context.newPage();
    const url = `${ui.origin}${base}/session/${uiIds.growing}`;
    await page.goto(url);
    await page.waitForSelector("#turn-1");
    history.appendTurn(
      `again \`<meta http-equiv="refresh" content="0;url=http://127.0.0.1:${listener.port}/live">\``,
      "answered",
    );
    await page.waitForSelector("#turn-2", { timeout: 20_000 });
    await page.waitForTimeout(1000);
    expect(page.url()).toBe(url);
    expect(received).toEqual([]);
    await page.close();
  }, 40_000);

  test("a link the user follows to another port carries no credential that works against recall ui", async () => {
    const page = await context.newPage();
    await page.goto(`${ui.origin}${base}/session/${plantedId}`);
    const opened = context.waitForEvent("page");
    await page.locator("#turn-1 .answer a", { hasText: "the docs" }).click();
    await (await opened).waitForLoadState();
    const visit = received.find((request) => request.path === "/clicked");
    expect(visit).toBeDefined(); // the browser did go there
    expect(visit!.cookie).not.toContain("recall_ui");
    // Whatever it got, replayed against our server: refused.
    for (const path of ["/", `${base}/`, `${base}/session/${plantedId}`])
      expect((await fetch(`${ui.origin}${path}`, { headers: { cookie: visit!.cookie } })).status).toBe(401);
    await page.close();
  });

  test("two servers in one browser do not log each other out", async () => {
    const second = await startUi(history.env, ["--no-watch"]);
    try {
      const login = await context.newPage();
      await login.goto(second.loginUrl);
      const secondBase = new URL(login.url()).pathname.replace(/\/$/, "");
      await login.close();
      for (const [origin, path] of [
        [ui.origin, base],
        [second.origin, secondBase],
      ] as const) {
        const page = await context.newPage();
        const response = await page.goto(`${origin}${path}/session/${uiIds.docker}`);
        expect(response?.status()).toBe(200);
        await page.close();
      }
    } finally {
      await second.stop();
    }
  });

  test("the redirect file recall ui opens logs a fresh browser in", async () => {
    const fresh = await browser.newContext();
    const folder = mkdtempSync(join(tmpdir(), "recall-ui-login-file-"));
    try {
      const page = await fresh.newPage();
      await page.goto(pathToFileURL(writeLoginFile(folder, ui.loginUrl)).href);
      await page.waitForURL(new RegExp(`^${ui.origin}/[\\w-]{22}/$`), { timeout: 10_000 });
      expect(await page.locator(".results").count()).toBe(1);
    } finally {
      await fresh.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
