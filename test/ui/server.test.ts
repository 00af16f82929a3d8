/**
 * `recall ui`'s server without a browser: the token (URL once, then a cookie), the Host and Origin checks against DNS
 * rebinding and other sites, no CORS, the Content-Security-Policy on every page, and the pages' content: search with
 * facets and confidence, a session with its turns, tool calls and diff, the activity data, the day list.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditHtml } from "./html-audit.ts";
import { prepareUiHistory, rawRequest, startUi, uiIds, type RunningUi } from "./ui-history.ts";

let root: string;
let ui: RunningUi;
/** `recall_ui_<port>=<secret>`, as the login URL set it. */
let cookie: string;
/** The path the pages are under (`/<secret>`). */
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "recall-ui-server-"));
  const history = prepareUiHistory(root);
  ui = await startUi(history.env, ["--no-watch"]);
  ({ cookie, base } = await ui.login());
});
afterAll(async () => {
  await ui?.stop();
  rmSync(root, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${ui.origin}${base}${path}`, { headers: { cookie, ...headers }, redirect: "manual" });

describe("recall ui: who may ask", () => {
  test("the printed URL's token leaves the address bar and sets an HttpOnly SameSite=Lax cookie of this port", async () => {
    const response = await fetch(ui.loginUrl, { redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${base}/`);
    expect(base).toMatch(/^\/[\w-]{22}$/);
    const port = new URL(ui.origin).port;
    const setCookie = response.headers.get("set-cookie")!;
    expect(setCookie).toMatch(new RegExp(`^recall_ui_${port}=[\\w-]{43}; HttpOnly; SameSite=Lax; Path=${base}$`));
    expect(ui.loginUrl.startsWith("http://127.0.0.1:")).toBe(true);
  });

  test("the cookie never holds the token, and the token in a cookie logs no one in (issue 37)", async () => {
    const port = new URL(ui.origin).port;
    expect(cookie).not.toContain(ui.token);
    expect(cookie.startsWith(`recall_ui_${port}=`)).toBe(true);
    expect((await get("/", { cookie: `recall_ui_${port}=${ui.token}` })).status).toBe(401);
    expect((await get("/", { cookie: `recall_ui_token=${ui.token}` })).status).toBe(401);
    // Another instance's cookie name with this instance's secret: refused (each port has its own).
    expect((await get("/", { cookie: `recall_ui_${Number(port) + 1}=${cookie.split("=")[1]}` })).status).toBe(401);
    expect((await get("/")).status).toBe(200);
  });

  test("a malformed Host header is a one-line 403, never a stack or a path (issue 37)", async () => {
    const port = Number(new URL(ui.origin).port);
    for (const host of ["127.0.0.1:180800", "127.0.0.1:-1", "[::1", "127.0.0.1:99999999999999999999", ""]) {
      const response = await rawRequest(port, `GET ${base}/session/x HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}`);
      expect(response).toMatch(/^HTTP\/1\.1 4\d\d /);
      const body = response.slice(response.indexOf("\r\n\r\n") + 4);
      expect(body).not.toMatch(/ at |\.ts\b|\/tmp\/|\/work\/|<script/);
      expect(body.trim().split("\n").length).toBe(1);
    }
  });

  test("a bad % escape in a session path is a one-line 400 (issue 37)", async () => {
    for (const path of ["/session/%E0%A4%A", "/session/%zz", "/session/%E0%A4%A/turns?after=0"]) {
      const response = await get(path);
      expect(response.status).toBe(400);
      expect((await response.text()).trim()).toBe("bad request: the session id in the path has a malformed % escape");
    }
  });

  test("without the token, with a wrong one, or a foreign Host or Origin: refused", async () => {
    expect((await fetch(`${ui.origin}/`)).status).toBe(401);
    expect((await fetch(`${ui.origin}/?token=${"0".repeat(48)}`, { redirect: "manual" })).status).toBe(401);
    expect((await get("/", { cookie: `recall_ui_${new URL(ui.origin).port}=wrong` })).status).toBe(401);
    expect((await fetch(`${ui.origin}${base}/assets/app.js`)).status).toBe(401);
    // The cookie is the credential, the path is not; a path beside the pages' path is no page.
    expect((await fetch(`${ui.origin}${base}/`)).status).toBe(401);
    expect((await fetch(`${ui.origin}${base}x/`, { headers: { cookie } })).status).toBe(404);
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
    expect((await fetch(`${ui.origin}${base}/`, { method: "POST", headers: { cookie } })).status).toBe(405);
  });
});

describe("recall ui: what the pages say", () => {
  test("search: the answer, facets with counts, confidence, level 2 of the selected session, state in links", async () => {
    const page = await (await get("/?q=docker")).text();
    expect(page).toContain("Fix the docker bridge network");
    expect(page).toContain("Migrate the billing schema");
    expect(page).toMatch(
      /<a href="\/[\w-]{22}\/\?q=docker&amp;project=[^"]*webapp" class="" title="[^"]*webapp">webapp<\/a> <span class="count">\d+<\/span>/,
    );
    expect(page).toMatch(/billing<\/a> <span class="count">1<\/span>/);
    expect(page).toMatch(/fix\/network<\/a> <span class="count">1<\/span>/);
    expect(page).toMatch(/class="badge (confident|weak)"/);
    expect(page).toContain(`href="${base}/session/${uiIds.docker}#turn-1"`);
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
    expect(page).toContain("banker's rounding");
    expect(page).toContain("This session cannot be resumed by its tool.");
    const search = await (await get("/?q=invoice+rounding")).text();
    expect(search).toContain("The invoice rounding fix");
    expect(search).toContain("source deleted, kept by recall");
  });

  test("planted markup stays text: no script, no event handler, no javascript: link", async () => {
    const page = await (await get(`/session/${uiIds.hostile}`)).text();
    const body = page.slice(page.indexOf("<main>"));
    expect(auditHtml(page)).toEqual([]);
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
