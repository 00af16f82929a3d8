/**
 * Issue 37: `recall ui` from the compiled binary. The sanitizer (sanitize-html, with htmlparser2 and postcss) works
 * inside it, and no request reaches Bun's development error page: a malformed Host header is a one-line 403, a bad `%`
 * escape a one-line 400, neither with a stack or a path.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinaryOnce, canBuildBinary } from "../build/build-once.ts";
import { auditHtml } from "./html-audit.ts";
import { prepareUiHistory, rawRequest, startUi, uiIds, type RunningUi } from "./ui-history.ts";

const plantedId = "6a1b2c3d-7777-4777-8777-000000000007";

describe.skipIf(!canBuildBinary)("recall ui from the compiled binary (builds it; ~15 s the first time)", () => {
  let root: string;
  let ui: RunningUi;
  let cookie: string;
  let base: string;

  beforeAll(async () => {
    const built = await buildBinaryOnce();
    root = mkdtempSync(join(tmpdir(), "recall-ui-binary-"));
    const binary = join(root, "bin", "recall");
    mkdirSync(join(root, "bin"));
    copyFileSync(built.binary, binary);
    Bun.spawnSync(["chmod", "755", binary]);
    const history = prepareUiHistory(root, (webapp) => [
      {
        sessionId: plantedId,
        cwd: webapp,
        title: "Planted in the binary",
        turns: [
          {
            prompt: 'check `<meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/">` and \u001b]0;title\u0007',
            response: "<img src=x onerror=alert(1)> [x](javascript:alert(1))",
          },
        ],
      },
    ]);
    ui = await startUi(history.env, ["--no-watch", "--keyword-only"], { binary });
    ({ cookie, base } = await ui.login());
  }, 240_000);
  afterAll(async () => {
    await ui?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test("the session page is sanitized: inline markup is text, escapes are \\xNN", async () => {
    const response = await fetch(`${ui.origin}${base}/session/${plantedId}`, { headers: { cookie } });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(auditHtml(page)).toEqual([]);
    expect(page).toContain("<code>&lt;meta http-equiv=");
    expect(page).toContain("\\x1b]0;title\\x07");
    const docker = await fetch(`${ui.origin}${base}/session/${uiIds.docker}`, { headers: { cookie } });
    expect(await docker.text()).toContain('<code class="hljs language-bash">');
  });

  test("a malformed Host header and a bad % escape are one-line 4xx answers, never a stack or a path", async () => {
    const port = Number(new URL(ui.origin).port);
    const response = await rawRequest(port, `GET ${base}/ HTTP/1.1\r\nHost: 127.0.0.1:180800\r\nCookie: ${cookie}`);
    expect(response).toStartWith("HTTP/1.1 403 ");
    const body = response.slice(response.indexOf("\r\n\r\n") + 4);
    expect(body).toBe("forbidden: unexpected Host header\n");
    const badEscape = await fetch(`${ui.origin}${base}/session/%E0%A4%A`, { headers: { cookie } });
    expect(badEscape.status).toBe(400);
    expect(await badEscape.text()).toBe("bad request: the session id in the path has a malformed % escape\n");
  });
});
