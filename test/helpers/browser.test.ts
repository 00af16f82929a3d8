/**
 * The real-browser helper the web view's tests stand on (issue 29): Debian's Chromium, started headless by the test
 * file, loads a page from a local Bun.serve, runs its external script on a click, takes a screenshot, and enforces a
 * Content-Security-Policy (the web view's tests rely on the browser refusing inline script).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { browserSkipReason, launchBrowser } from "./browser";
import { tempDirs } from "./temp-dirs";

const skipReason = browserSkipReason();
if (skipReason !== undefined) console.warn(`browser tests skipped: ${skipReason}`);

const tempDir = tempDirs("recall-browser-");

/** A page whose button changes a text through /app.js, an external script (no inline script). */
const clickPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>click</title><script src="/app.js" defer></script></head>
<body><button id="go">Go</button><p id="status">waiting</p></body></html>`;
const clickScript = `document.getElementById("go").addEventListener("click", () => {
  document.getElementById("status").textContent = "clicked";
});`;

/**
 * A page that sets a marker from inline script, after an external script that records CSP violations and sets a marker
 * of its own (so a missing inline marker means CSP refused it, not that scripts do not run at all).
 */
const inlinePage = `<!doctype html>
<html><head><meta charset="utf-8"><title>csp</title><script src="/listen.js"></script></head>
<body><script>document.body.dataset.inline = "ran";</script></body></html>`;
const listenScript = `document.documentElement.dataset.external = "ran";
document.addEventListener("securitypolicyviolation", (event) => {
  document.documentElement.dataset.violated = event.effectiveDirective;
});`;

const html = { "content-type": "text/html; charset=utf-8" };
const js = { "content-type": "text/javascript; charset=utf-8" };

describe.skipIf(skipReason !== undefined)("a real headless Chromium for the web view's tests (issue 29)", () => {
  let browser: Browser | undefined;
  let server: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const path = new URL(request.url).pathname;
        if (path === "/") return new Response(clickPage, { headers: html });
        if (path === "/app.js") return new Response(clickScript, { headers: js });
        if (path === "/listen.js") return new Response(listenScript, { headers: js });
        if (path === "/inline") return new Response(inlinePage, { headers: html });
        if (path === "/inline-csp")
          return new Response(inlinePage, { headers: { ...html, "content-security-policy": "script-src 'self'" } });
        return new Response("not found", { status: 404 });
      },
    });
    browser = await launchBrowser();
  });

  /**
   * A new tab whose waits give up after 3 s, before bun's 5 s test timeout: then the failure is playwright's, naming
   * what it waited for, and bun does not kill the browser (it kills a timed-out test's processes) under later tests.
   */
  async function newPage(): Promise<Page> {
    const page = await (browser as Browser).newPage();
    page.setDefaultTimeout(3_000);
    return page;
  }

  afterAll(async () => {
    await browser?.close();
    server?.stop(true);
  });

  test("a click runs the page's external script, and a screenshot is a PNG file", async () => {
    const page = await newPage();
    await page.goto(`${server.url}`);
    expect(await page.textContent("#status")).toBe("waiting");
    await page.click("#go");
    await page.locator('#status:text-is("clicked")').waitFor();
    expect(await page.textContent("#status")).toBe("clicked");
    const shot = join(tempDir(), "page.png");
    await page.screenshot({ path: shot });
    // PNG's eight-byte signature (PNG specification §5.2).
    expect([...readFileSync(shot).subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    await page.close();
  });

  test("a Content-Security-Policy of script-src 'self' stops inline script, which runs without it", async () => {
    const page = await newPage();
    // Read through selectors, not page.evaluate: the tsconfig has no DOM types (the page's globals are not the server's).
    const markers = async () => ({
      external: await page.locator("html").getAttribute("data-external"),
      inline: await page.locator("body").getAttribute("data-inline"),
      violated: await page.locator("html").getAttribute("data-violated"),
    });
    await page.goto(new URL("/inline", server.url).href);
    expect(await markers()).toEqual({ external: "ran", inline: "ran", violated: null });
    await page.goto(new URL("/inline-csp", server.url).href);
    // The violation event is dispatched as a task after the refusal: wait for it rather than race it.
    await page.locator("html[data-violated]").waitFor({ state: "attached" });
    expect(await markers()).toEqual({ external: "ran", inline: null, violated: "script-src-elem" });
    await page.close();
  });
});
