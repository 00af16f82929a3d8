/**
 * What every HTTP server of recall shares (`recall mcp --http`, `recall ui`): the one interface they listen on, and the
 * checks of a request's Host and Origin headers against DNS rebinding and pages of other sites in a browser.
 */

/** The only interface recall's HTTP server listens on. */
export const loopbackAddress = "127.0.0.1";

const loopbackNames = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * True when a Host header names this server on a loopback name.
 * Examples (port 7747): `127.0.0.1:7747` → true; `localhost:7747` → true; `evil.example:7747` → false;
 *   `127.0.0.1:80` → false; null → false.
 */
export function isLoopbackHost(host: string | null, port: number): boolean {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec((host ?? "").trim().toLowerCase());
  return match !== null && loopbackNames.has(match[1]!) && (match[2] === undefined || Number(match[2]) === port);
}

/**
 * True when an Origin header is absent (not a browser) or a loopback origin.
 * Examples: null → true; `http://localhost:3000` → true; `https://evil.example` → false; `null` → false.
 */
export function isLoopbackOrigin(origin: string | null): boolean {
  if (origin === null) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && loopbackNames.has(url.hostname);
  } catch {
    return false;
  }
}
