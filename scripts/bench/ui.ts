/**
 * `recall ui` from the compiled binary (issue 29), on the real corpus (../shared/corpus, Claude Code + OpenCode) and
 * on the generated 20k-session corpus, each indexed keyword-only into a fresh RECALL_HOME first. Rows:
 *   ui.first_page.<corpus>     spawn of `recall ui --no-open` → the search page answered (200) through the printed
 *                              URL's login (redirect + cookie); fresh process each run           target ≤ 300 ms
 *   ui.search.<corpus>         GET /?q=<query> on the running server once its watcher's first cycle is over, the whole
 *                              page (search, facets, level 2 of the first result), queries cycled from a fixed list
 *                                                                                        target p50 ≤ 50 ms at 20k
 * Prints the binary's size (stderr and the first_page rows' `binary_bytes`).
 * Run: bun scripts/bench/ui.ts [--runs N] [--sessions N] [--no-build]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { argValue, benchBinary, report, binaryBenchCorpora, indexedBenchEnv, typedQueries } from "./lib.ts";

const runs = argValue("--runs", 10);
const sessions = argValue("--sessions", 20_000);
const binary = benchBinary();
const binaryBytes = statSync(binary).size;
const work = mkdtempSync(join(tmpdir(), "recall-bench-ui-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
process.stderr.write(`ui: binary ${(binaryBytes / 1e6).toFixed(1)} MB\n`);

const corpora = binaryBenchCorpora("ui", sessions);

/** A running `recall ui`: the origin, the secret path its pages are under and the cookie a logged-in browser sends. */
async function startUi(env: Record<string, string | undefined>) {
  const started = performance.now();
  const child = Bun.spawn([binary, "ui", "--no-open"], { env, stdout: "pipe", stderr: "ignore" });
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("recall ui exited before printing its URL");
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const login = new URL(out.split("\n")[0]!.trim());
  const redirect = await fetch(login, { redirect: "manual" });
  const cookie = (redirect.headers.get("set-cookie") ?? "").split(";")[0]!;
  const home = new URL(redirect.headers.get("location") ?? "/", login.origin);
  const first = await fetch(home, { headers: { cookie } });
  await first.text();
  if (first.status !== 200) throw new Error(`the first page answered ${first.status}`);
  return {
    firstPageMs: performance.now() - started,
    origin: login.origin,
    // Every page lives under the secret path the login redirects to (issue 37): `/<secret>`.
    base: home.pathname.replace(/\/$/, ""),
    cookie,
    stop: async () => {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

for (const bench of corpora) {
  const env = indexedBenchEnv(binary, work, bench);

  const firstPages: number[] = [];
  for (let run = 0; run < runs; run++) {
    const ui = await startUi(env);
    firstPages.push(ui.firstPageMs);
    await ui.stop();
  }
  report(`ui.first_page.${bench.label}`, firstPages, { target: "≤ 300 ms", binary_bytes: binaryBytes });

  const ui = await startUi(env);
  await Bun.sleep(5000); // the watcher's start and first cycle are over: the steady state is measured
  const searches: number[] = [];
  for (const query of typedQueries) {
    // one unmeasured request per query warms its statements; then the measured ones
    await (
      await fetch(`${ui.origin}${ui.base}/?q=${encodeURIComponent(query)}`, { headers: { cookie: ui.cookie } })
    ).text();
  }
  for (let round = 0; round < runs * 3; round++) {
    const query = typedQueries[round % typedQueries.length]!;
    const started = performance.now();
    const response = await fetch(`${ui.origin}${ui.base}/?q=${encodeURIComponent(query)}`, {
      headers: { cookie: ui.cookie },
    });
    await response.text();
    searches.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`the search page for "${query}" answered ${response.status}`);
  }
  await ui.stop();
  report(`ui.search.${bench.label}`, searches, { target: bench.label === "real" ? undefined : "p50 ≤ 50 ms" });
}
