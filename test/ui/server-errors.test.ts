/**
 * Issue 37: an error nobody expected while answering a page (here the index cannot be read, with a path in the
 * message) is a one-line 500 that shows neither the message nor a stack; the message goes to the server's stderr.
 * The backend is a stand-in that fails: the failure is the point, and a real index fails this way only when broken.
 */
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import type { Backend } from "../../src/service/backend.ts";
import { startUiServer, UiEvents, type UiServer } from "../../src/ui/server.ts";

let server: UiServer;

beforeAll(() => {
  const failing = {
    withIndex: async () => {
      throw new Error("SQLITE_CANTOPEN: unable to open /home/someone/.local/share/recall/index.db");
    },
  } as unknown as Backend;
  server = startUiServer({ port: 0, token: "t".repeat(48), backend: failing, events: new UiEvents() });
});
afterAll(async () => {
  await server?.stop();
});

test("an unexpected error is a one-line 500 without its message, stack or path", async () => {
  const stderr = spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    const login = await fetch(server.loginUrl, { redirect: "manual" });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const base = login.headers.get("location")!.replace(/\/$/, "");
    for (const path of ["/", "/session/abc", "/activity"]) {
      const response = await fetch(`http://127.0.0.1:${server.port}${base}${path}`, { headers: { cookie } });
      expect(response.status).toBe(500);
      expect(await response.text()).toBe("internal error: the terminal running recall ui says what went wrong\n");
    }
    expect(String(stderr.mock.calls[0]?.[0])).toContain("SQLITE_CANTOPEN: unable to open /home/someone");
  } finally {
    stderr.mockRestore();
  }
});
