/**
 * `recall ui`'s server without a browser: the token (URL once, then a cookie), the Host and Origin checks against DNS
 * rebinding and other sites, no CORS, the Content-Security-Policy on every page, and the pages' content: search with
 * facets and confidence, a session with its turns, tool calls and diff, the activity data, the day list.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareUiHistory, startUi, uiIds, type RunningUi } from "./ui-history.ts";

let root: string;
let ui: RunningUi;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "recall-ui-server-"));
  const history = prepareUiHistory(root);
  ui = await startUi(history.env, ["--no-watch"]);
});
afterAll(async () => {
  await ui?.stop();
  rmSync(root, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${ui.origin}${path}`, { headers: { cookie: `recall_ui_token=${ui.token}`, ...headers }, redirect: "manual" });

describe("recall ui: who may ask", () => {
  test("the printed URL's token becomes an HttpOnly SameSite=Strict cookie and leaves the address bar", async () => {
    const response = await fetch(ui.loginUrl, { redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
    expect(response.headers.get("set-cookie")).toBe(`recall_ui_token=${ui.token}; HttpOnly; SameSite=Strict; Path=/`);
    expect(ui.loginUrl.startsWith("http://127.0.0.1:")).toBe(true);
  });

  test("without the token, with a wrong one, or a foreign Host or Origin: refused", async () => {
    expect((await fetch(`${ui.origin}/`)).status).toBe(401);
    expect((await fetch(`${ui.origin}/?token=${"0".repeat(48)}`, { redirect: "manual" })).status).toBe(401);
    expect((await get("/", { cookie: "recall_ui_token=wrong" })).status).toBe(401);
    expect((await fetch(`${ui.origin}/assets/app.js`)).status).toBe(401);
    const port = new URL(ui.origin).port;
    expect((await get("/", { host: `evil.example:${port}` })).status).toBe(403);
    expect((await get("/", { host: "127.0.0.1:1" })).status).toBe(403);
    expect((await get("/", { origin: "http://evil.example" })).status).toBe(403);
    expect((await get("/", { origin: `http://localhost:${Number(port) + 1}` })).status).toBe(403);
    expect((await get("/", { origin: ui.origin })).status).toBe(200);
  });

  test("every page carries the policy that allows only its own scripts, and no CORS header", async () => {
    for (const path of ["/", "/?q=docker", `/session/${uiIds.docker}`, "/activity", "/assets/app.js", "/nowhere"]) {
      const response = await get(path, { origin: ui.origin });
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect((await get("/nowhere")).status).toBe(404);
    expect(
      (await fetch(`${ui.origin}/`, { method: "POST", headers: { cookie: `recall_ui_token=${ui.token}` } })).status,
    ).toBe(405);
  });
});

describe("recall ui: what the pages say", () => {
  test("search: the answer, facets with counts, confidence, level 2 of the selected session, state in links", async () => {
    const page = await (await get("/?q=docker")).text();
    expect(page).toContain("Fix the docker bridge network");
    expect(page).toContain("Migrate the billing schema");
    expect(page).toMatch(
      /<a href="\/\?q=docker&amp;project=[^"]*webapp" class="">webapp<\/a> <span class="count">\d+<\/span>/,
    );
    expect(page).toMatch(/billing<\/a> <span class="count">1<\/span>/);
    expect(page).toMatch(/fix\/network<\/a> <span class="count">1<\/span>/);
    expect(page).toMatch(/class="badge (confident|weak)"/);
    expect(page).toContain(`href="/session/${uiIds.docker}#turn-1"`);
    const filtered = await (await get("/?q=docker&project=billing")).text();
    expect(filtered).toContain("Migrate the billing schema");
    expect(filtered).not.toContain("Fix the docker bridge network");
    const none = await (await get("/?q=zzqx+nothingmatches")).text();
    expect(none).toContain("No match for “zzqx nothingmatches”");
    const badDate = await (await get("/?q=docker&since=notadate")).text();
    expect(badDate).toContain('class="problem"');
  });

  test("session: turns with anchors, Markdown with highlighted code, tool calls, the resume command", async () => {
    const page = await (await get(`/session/${uiIds.docker}`)).text();
    expect(page).toContain('id="turn-1"');
    expect(page).toContain('id="turn-2"');
    expect(page).toContain("<strong>docker bridge network</strong>");
    expect(page).toContain('<code class="hljs language-bash">');
    expect(page).toContain(
      '<span class="tool-name">[Bash]</span> <span class="tool-input">docker network create appnet</span>',
    );
    expect(page).toContain("f3c1e0 appnet");
    expect(page).toContain(`claude --resume ${uiIds.docker}`);
    expect(page).toContain('data-copy="resume-command"');
    const missing = await get("/session/nosuchsession");
    expect(missing.status).toBe(404);
  });

  test("a session whose source is deleted is read from recall's archive, and says so", async () => {
    const page = await (await get(`/session/${uiIds.archived}`)).text();
    expect(page).toContain("Source deleted, kept by recall");
    expect(page).toContain("banker&#39;s rounding");
    expect(page).toContain("This session cannot be resumed by its tool.");
    const search = await (await get("/?q=invoice+rounding")).text();
    expect(search).toContain("The invoice rounding fix");
    expect(search).toContain("source deleted, kept by recall");
  });

  test("planted markup stays text: no script, no event handler, no javascript: link", async () => {
    const page = await (await get(`/session/${uiIds.hostile}`)).text();
    const body = page.slice(page.indexOf("<main>"));
    expect(body).not.toMatch(/<script/i);
    expect(body).not.toMatch(/<(img|iframe|svg)\b/i);
    expect(body).not.toMatch(/\son(error|load)="/i); // as an attribute; escaped text (&quot;) is harmless
    expect(body).not.toMatch(/href="javascript:/i);
    expect(body).toContain("&lt;script&gt;window.pwned = 1&lt;/script&gt;");
  });

  test("activity: a year of days as data for the chart, and a day's sessions", async () => {
    const page = await (await get("/activity")).text();
    const data = JSON.parse(/<script type="application\/json" id="activity-data">(.*?)<\/script>/s.exec(page)![1]!);
    expect(data.all.days.length).toBeGreaterThanOrEqual(3);
    expect(data.projects.map((series: { label: string }) => series.label).sort()).toEqual(["billing", "webapp"]);
    expect(data.agents.map((series: { key: string }) => series.key)).toEqual(["claude-code"]);
    const dockerDay = data.all.days.find((entry: [string, number, number]) => entry[2] >= 2)?.[0];
    const list = await (await get(`/activity/day?date=${dockerDay}`)).text();
    expect(list).toMatch(/\d+ sessions?<\/h2>/);
  });
});
