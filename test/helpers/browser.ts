/**
 * A real browser for the web view's tests (issue 29): Debian's Chromium (`apt-get install chromium`; .ci/run installs
 * it) driven headless by playwright-core, started and stopped by the tests themselves. No browser is ever downloaded
 * (playwright-core brings none and the machines have no internet): when Chromium is absent the tests skip with
 * `browserSkipReason()`.
 *
 * Use: `beforeAll(async () => { browser = await launchBrowser(); })` and `afterAll(() => browser?.close())` in the test
 * file; closing the browser ends every Chromium process it started and removes its temporary profile.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/**
 * The Chromium executable: `/usr/bin/chromium` (Debian's launcher script, which execs /usr/lib/chromium/chromium), else
 * the first `chromium` on PATH; undefined when there is none.
 */
export const chromiumPath: string | undefined = existsSync("/usr/bin/chromium")
  ? "/usr/bin/chromium"
  : (Bun.which("chromium") ?? undefined);

/**
 * Flags for a machine whose only network is the loopback and the npm registry: without them Chromium keeps trying to
 * reach Google's services (component updates, sync, QUIC probes…) and floods the log with refused connections.
 * `--no-sandbox` because tests may run as root, where Chromium's sandbox refuses to start; `--disable-dev-shm-usage`
 * because containers often have a small /dev/shm (Debian's launcher adds it too when /dev/shm is under 3.8 GB).
 */
const launchFlags = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/**
 * Start a headless Chromium with a fresh temporary profile (playwright-core makes one under the system temp folder for
 * every plain `launch` and removes it on `close`). Throws when Chromium is absent (check `browserSkipReason()` first)
 * or fails to start (playwright's error carries Chromium's own log). The caller must `close()` the browser.
 */
export async function launchBrowser(): Promise<Browser> {
  if (chromiumPath === undefined) throw new Error(notInstalled);
  return await chromium.launch({ executablePath: chromiumPath, headless: true, args: launchFlags });
}

const notInstalled = "chromium is not installed (apt-get install chromium; .ci/run does)";

/** Why browser tests must skip on this machine (one line for `console.warn`), or undefined when they can run. */
export function browserSkipReason(): string | undefined {
  return chromiumPath === undefined ? notInstalled : undefined;
}
