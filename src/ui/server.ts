/**
 * The HTTP server of `recall ui`, on Bun.serve, bound to 127.0.0.1 only, with the protections of `recall mcp --http`:
 *   1. a Host header that is not this server on a loopback name → 403 (DNS rebinding);
 *   2. an Origin header that is not this server's own origin → 403 (another site's page in the browser);
 *   3. no credential → 401: the secret token comes in the URL that `recall ui` prints and opens (`/?token=…`), which
 *      answers with a redirect that drops it from the address bar, to the pages' path `/<base>/` (a second secret),
 *      and sets a cookie (HttpOnly, SameSite=Lax) that holds a third secret, never the token. All three are minted
 *      when the server starts and die with it; the cookie's name carries the port (`recall_ui_<port>`), so two servers
 *      never log each other out. Browsers send a loopback host's cookies to every port of that host (RFC 6265 §8.5:
 *      cookies do not provide isolation by port), so the cookie is scoped to the pages' path (`Path=/<base>`): a
 *      browser sends it only with a request for a path that starts with a secret that no other server is ever shown
 *      (no Referer leaves the pages), so a program on another local port that the browser visits never receives it;
 *   4. no CORS headers, ever; every page carries a Content-Security-Policy that allows only this server's own script,
 *      styles and connections (no inline script, no frames, no other origin), so nothing from a session can run;
 *   5. no response shows a stack or a path: a malformed request (a Host header with a bad port, a bad `%` escape) is a
 *      4xx with one line, and an unexpected error is a 500 "internal error" page (its one-line message goes to
 *      stderr), never Bun's development error page.
 * Routes, each under `/<base>`: `/` search, `/session/<id>` a session, `/session/<id>/turns?after=N` the turns after N (JSON with HTML, for
 * a page that is open while the session grows), `/activity`, `/activity/day?date=…`, `/usage?project=…&source=…&since=…&bucket=…`
 * (usage-page.ts), `/events` (server-sent events:
 * `indexed` after each index update), `/assets/<file>`.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { isRecallError } from "../errors.ts";
import type { Backend } from "../service/backend.ts";
import { isLoopbackHost, loopbackAddress } from "../http/loopback.ts";
import { errorLine } from "../render/escapes.ts";
import { activityModel, activityPageHtml, dayListHtml } from "./activity-page.ts";
import { assets } from "./assets.ts";
import { html } from "./html.ts";
import { pageHtml } from "./layout.ts";
import { searchPageHtml, searchPageModel, searchParamsOf } from "./search-page.ts";
import { sessionPageHtml, sessionPageModel, turnHtml } from "./session-page.ts";
import { usagePageHtml, usagePageModel, usageParamsOf } from "./usage-page.ts";

/** The name of the cookie that carries a server's session secret after the first visit: one per port. */
export function sessionCookieName(port: number): string {
  return `recall_ui_${port}`;
}

/** The Content-Security-Policy of every response. */
export const contentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const securityHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

/** Index updates, fanned out to every open `/events` stream. */
export class UiEvents {
  private readonly listeners = new Set<(event: string, data: unknown) => void>();
  /** Send `event` with JSON `data` to every open page. */
  publish(event: string, data: unknown): void {
    for (const listener of this.listeners) listener(event, data);
  }
  /** Listen until the returned function is called. */
  subscribe(listener: (event: string, data: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Options of {@link startUiServer}. */
export interface UiServerOptions {
  /** 0 picks a free port. */
  port: number;
  token: string;
  backend: Backend;
  events: UiEvents;
}

/** A running server: its address and the URL that logs a browser in. */
export interface UiServer {
  port: number;
  /** `http://127.0.0.1:<port>/?token=<token>`. */
  loginUrl: string;
  /** Resolves once the server has answered its first request under the secret path (a logged-in page, asset or stream). */
  answered: Promise<void>;
  stop(): Promise<void>;
}

/** True when `given` is `secret` (compared in constant time). */
function isSecret(given: string | undefined | null, secret: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of cookie `name` in a Cookie header, or undefined. */
function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

/** A path segment with its `%` escapes decoded, or undefined when one is malformed (`%E0%A4%A`, `%zz`). */
function decodedPathPart(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

const text = (status: number, message: string) =>
  new Response(`${message}\n`, {
    status,
    headers: { ...securityHeaders, "content-type": "text/plain; charset=utf-8" },
  });
const page = (markup: string, status = 200) =>
  new Response(markup, { status, headers: { ...securityHeaders, "content-type": "text/html; charset=utf-8" } });
const json = (value: unknown) =>
  new Response(JSON.stringify(value), {
    headers: { ...securityHeaders, "content-type": "application/json; charset=utf-8" },
  });

/**
 * Start the server.
 * @throws Error from Bun.serve when the port is taken (EADDRINUSE)
 */
export function startUiServer(options: UiServerOptions): UiServer {
  const { token, backend, events } = options;
  // What the cookie carries: dies with this process, and is not the token (which logs a browser in).
  const sessionSecret = randomBytes(32).toString("base64url");
  // The path every page, asset and stream is under, and the cookie's Path: `/` and a secret.
  const base = `/${randomBytes(16).toString("base64url")}`;
  let port = options.port;
  let markAnswered!: () => void;
  const answered = new Promise<void>((resolve) => (markAnswered = resolve));
  const origins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  /** Answer a request for `path` (the URL's path after `base`). */
  async function route(request: Request, url: URL, path: string, server: Bun.Server<undefined>): Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") return text(405, "method not allowed");
    if (path.startsWith("/assets/")) {
      const asset = assets.get(path.slice("/assets/".length));
      if (!asset) return text(404, "not found");
      return new Response(asset.body, {
        headers: { ...securityHeaders, "content-type": asset.contentType, "cache-control": "private, max-age=3600" },
      });
    }
    if (path === "/") {
      const params = searchParamsOf(url);
      return page(
        await backend.withIndex(async (db) => {
          const vector = params.q ? await backend.vectorLeg(db) : undefined;
          // An index that never had vectors is keyword-only by choice; say why only when vectors exist but cannot be used.
          const notice = vector?.neverEmbedded ? undefined : vector?.notice;
          return searchPageHtml(await searchPageModel(db, params, vector?.leg, notice), base);
        }),
      );
    }
    const session = /^\/session\/([^/]+)(\/turns)?$/.exec(path);
    if (session) {
      const id = decodedPathPart(session[1]!);
      if (id === undefined) return text(400, "bad request: the session id in the path has a malformed % escape");
      if (session[2]) {
        const after = Number(url.searchParams.get("after") ?? "0");
        return await backend.withIndex((db) => {
          const model = sessionPageModel(db, id);
          const added = model.turns.filter((turn) => turn.number > after);
          return json({ turns: model.turns.length, html: added.map((turn) => turnHtml(turn, base).markup).join("\n") });
        });
      }
      return page(await backend.withIndex((db) => sessionPageHtml(sessionPageModel(db, id), base)));
    }
    if (path === "/activity") return page(await backend.withIndex((db) => activityPageHtml(activityModel(db), base)));
    if (path === "/activity/day")
      return page(await backend.withIndex((db) => dayListHtml(db, url.searchParams.get("date") ?? "", base)));
    if (path === "/usage") {
      const params = usageParamsOf(url);
      return page(await backend.withIndex(async (db) => usagePageHtml(await usagePageModel(db, params), base)));
    }
    if (path === "/events") return eventStream(request, server);
    return page(
      pageHtml({ title: "Not found", kind: "search", base, body: html`<p class="problem">No page at ${path}.</p>` }),
      404,
    );
  }

  function eventStream(request: Request, server: Bun.Server<undefined>): Response {
    server.timeout(request, 0); // a stream stays open while the page is
    let unsubscribe = () => {};
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    const stream = new ReadableStream<string>({
      start(controller) {
        const send = (event: string, data: unknown) =>
          controller.enqueue(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        unsubscribe = events.subscribe(send);
        send("hello", { at: Date.now() });
        keepAlive = setInterval(() => controller.enqueue(": keep-alive\n\n"), 15_000);
        request.signal.addEventListener("abort", () => {
          unsubscribe();
          clearInterval(keepAlive);
          try {
            controller.close();
          } catch {
            // already closed
          }
        });
      },
      cancel() {
        unsubscribe();
        clearInterval(keepAlive);
      },
    });
    return new Response(stream, {
      headers: { ...securityHeaders, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" },
    });
  }

  /** Answer one request: the checks of the header comment in order, then the route. */
  async function answer(request: Request, server: Bun.Server<undefined>): Promise<Response> {
    // Before anything reads the URL: Bun builds it from the Host header, which may not parse (`127.0.0.1:180800`).
    if (!isLoopbackHost(request.headers.get("host"), port)) return text(403, "forbidden: unexpected Host header");
    const origin = request.headers.get("origin");
    if (origin !== null && !origins().has(origin)) return text(403, "forbidden: cross-origin request");
    const url = new URL(request.url);
    const fromQuery = url.searchParams.get("token");
    if (isSecret(fromQuery, token)) {
      url.searchParams.delete("token");
      return new Response(null, {
        status: 303,
        headers: {
          ...securityHeaders,
          location: `${base}${url.pathname}${url.search}`,
          // Lax, not Strict: the login comes from the redirect file (file://, another site), and Chromium withholds a
          // Strict cookie from the rest of a navigation another site started. Lax adds only top-level GETs from
          // other sites, which cannot name a page: every path starts with the secret `base`.
          "set-cookie": `${sessionCookieName(port)}=${sessionSecret}; HttpOnly; SameSite=Lax; Path=${base}`,
        },
      });
    }
    if (!isSecret(cookieValue(request.headers.get("cookie"), sessionCookieName(port)), sessionSecret))
      return text(401, "unauthorized: open the URL that `recall ui` printed (it carries the token)");
    // The cookie comes only with paths under `base`; one of another length is a path that starts like it.
    if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return text(404, "not found");
    try {
      return await routeOrErrorPage(request, url, server);
    } finally {
      markAnswered();
    }
  }

  /** {@link answer}'s page part, past the checks: the route, or an error page for a RecallError. */
  async function routeOrErrorPage(request: Request, url: URL, server: Bun.Server<undefined>): Promise<Response> {
    try {
      return await route(request, url, url.pathname.slice(base.length) || "/", server);
    } catch (error) {
      if (!isRecallError(error)) throw error;
      return page(
        pageHtml({
          title: "Error",
          kind: "search",
          base,
          body: html`<p class="problem" role="alert">${errorLine(error)}</p>`,
        }),
        error.exitCode === 2 ? 400 : 404,
      );
    }
  }

  /** An error nothing expected: one line on stderr for the person running the server, no detail in the response. */
  function internalError(error: unknown): Response {
    process.stderr.write(`recall: warning: the web view could not answer a request: ${errorLine(error)}\n`);
    return text(500, "internal error: the terminal running recall ui says what went wrong");
  }

  const server = Bun.serve({
    hostname: loopbackAddress,
    port,
    idleTimeout: 60,
    // Never Bun's development error page (a stack, source lines, the working folder).
    development: false,
    async fetch(request, server) {
      try {
        return await answer(request, server);
      } catch (error) {
        return internalError(error);
      }
    },
    error: internalError,
  });
  port = server.port ?? port;
  return {
    port,
    loginUrl: `http://${loopbackAddress}:${port}/?token=${token}`,
    answered,
    stop: async () => {
      await server.stop(true);
    },
  };
}
