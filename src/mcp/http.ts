/**
 * `recall mcp --http`: the SDK's streamable HTTP transport (web-standard variant, on Bun.serve), bound to
 * 127.0.0.1 only — no flag or variable changes the interface. Before the protocol sees a request:
 *   1. a Host header that is not loopback (127.0.0.1, localhost, [::1]) on our port → 403 (DNS rebinding);
 *   2. an Origin header that is not a loopback origin → 403 (a web page in a browser);
 *   3. no `Authorization: Bearer <token>` with the token of token.ts → 401;
 *   4. anything but POST /mcp → 404 / 405.
 * Stateless: each POST gets a fresh McpServer and transport with JSON responses (no SSE stream to keep).
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { UsageError } from "../errors.ts";
import type { Backend } from "../service/backend.ts";
import { isLoopbackHost, isLoopbackOrigin, loopbackAddress } from "../http/loopback.ts";
import { isAuthorized } from "./token.ts";

export { isLoopbackHost, isLoopbackOrigin, loopbackAddress };

/** Default port of `recall mcp --http`. */
export const defaultHttpPort = 7747;

/** The path of the MCP endpoint. */
export const endpointPath = "/mcp";

const refuse = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

/** Options of {@link listenHttp}. */
export interface HttpOptions {
  port: number;
  token: string;
  backend: Backend;
  /** Builds one McpServer with the tools registered (server.ts). */
  createServer: (backend: Backend) => McpServer;
}

/** Answer one HTTP request (checks in the order of the module header). */
export async function handleHttpRequest(request: Request, port: number, options: HttpOptions): Promise<Response> {
  if (!isLoopbackHost(request.headers.get("host"), port))
    return refuse(403, "forbidden: the Host header must be 127.0.0.1 or localhost on this port");
  if (!isLoopbackOrigin(request.headers.get("origin")))
    return refuse(403, "forbidden: requests from web pages other than localhost are refused");
  if (!isAuthorized(request.headers.get("authorization"), options.token))
    return refuse(401, "unauthorized: send Authorization: Bearer <token from the mcp-token file>", {
      "www-authenticate": 'Bearer realm="recall"',
    });
  if (new URL(request.url).pathname !== endpointPath)
    return refuse(404, `not found: the MCP endpoint is ${endpointPath}`);
  if (request.method !== "POST")
    return refuse(405, "method not allowed: this server is stateless, POST only", { allow: "POST" });
  const server = options.createServer(options.backend);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    void server.close();
  }
}

/**
 * Listen on 127.0.0.1:`port` (0: any free port).
 * @returns the server; its `port` is the one bound
 * @throws UsageError when the port is taken or not allowed
 */
export function listenHttp(options: HttpOptions): ReturnType<typeof Bun.serve> {
  try {
    const server: ReturnType<typeof Bun.serve> = Bun.serve({
      hostname: loopbackAddress,
      port: options.port,
      fetch: (request) => handleHttpRequest(request, server.port!, options),
      error: () => refuse(500, "internal error"),
    });
    return server;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "EADDRINUSE"
        ? "is in use"
        : code === "EACCES"
          ? "is not allowed"
          : `cannot be used (${(error as Error).message})`;
    throw new UsageError(
      `port ${options.port} on ${loopbackAddress} ${why}`,
      "pick another with --port N, or --port 0 for any free port",
    );
  }
}
