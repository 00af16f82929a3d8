/**
 * The query walk (issue 39, "a query's walk from each front end to SQLite and back climbs back up at most 3 times"):
 * runs one search through each front end — the CLI (`main`), the MCP `search` tool (an in-memory client), the web
 * view's search page (its route's body: the page model on the backend's index, rendered), the picker (PickerSearch) —
 * on an index of the shipped examples, with every module of `src/` instrumented (walk-plugin.ts), and counts the calls
 * that cross from one file to another and those that climb back up: into a file of a higher layer (scripts/layers/
 * ranks.ts) than the caller's. Keyword mode (no model here), freshness check on.
 * Run: `bun scripts/layers/query-walk.ts [--json]`; the layers test runs it and holds each front end to 3 climbs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { layerOfRelative, layerRanks } from "./ranks.ts";
import { registerWalkPlugin } from "./walk-plugin.ts";
import type { CrossingCall } from "./walk-runtime.ts";

/** What one front end's search did: files entered, calls across files, and the climbs among them. */
export interface WalkReport {
  frontEnd: string;
  files: number;
  crossings: number;
  climbs: CrossingCall[];
}

const rankOf = (file: string): number =>
  file === "driver" ? Number.POSITIVE_INFINITY : layerRanks[layerOfRelative(file)]!;

/** The report of one recorded walk. */
export function reportOf(frontEnd: string, calls: readonly CrossingCall[]): WalkReport {
  const files = new Set(calls.flatMap((call) => [call.from, call.to]).filter((file) => file !== "driver"));
  return {
    frontEnd,
    files: files.size,
    crossings: calls.length,
    climbs: calls.filter((call) => rankOf(call.to) > rankOf(call.from)),
  };
}

/** Walk one query through every front end (module doc). Prints nothing; the caller prints the reports. */
export async function walkQuery(query: string): Promise<WalkReport[]> {
  registerWalkPlugin();
  const repo = resolve(import.meta.dir, "../..");
  const work = mkdtempSync(join(tmpdir(), "recall-walk-"));
  const saved = { ...process.env };
  Object.assign(process.env, {
    HOME: work,
    RECALL_HOME: join(work, "home"),
    RECALL_CLAUDE_DIRS: join(repo, "examples/claude-code"),
    RECALL_OPENCODE_DIRS: join(repo, "examples/opencode"),
    RECALL_OFFLINE: "1",
    RECALL_EMBED_HELPER: "off",
    NO_COLOR: "1",
  });
  const runtime = await import("./walk-runtime.ts");
  const quietly = async <T>(fn: () => Promise<T>): Promise<T> => {
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      return await fn();
    } finally {
      process.stdout.write = write;
    }
  };
  try {
    const { main } = await import("../../src/app.ts");
    const { resolveHistory } = await import("../../src/service/context.ts");
    const { createBackend } = await import("../../src/service/backend.ts");
    const { sources } = await import("../../src/parsers/sources.ts");
    const { createRecallServer } = await import("../../src/mcp/server.ts");
    const { searchPageHtml, searchPageModel, searchParamsOf } = await import("../../src/ui/search-page.ts");
    const { listPageFor, PickerSearch } = await import("../../src/pick/picker-search.ts");
    const { openFreshIndex } = await import("../../src/service/context.ts");
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
    await quietly(() => main(["index"])); // the index every front end reads; not recorded
    const context = resolveHistory(Object.fromEntries(sources.map((source) => [source.argName, []])) as never);
    const backend = createBackend({ context, embedder: undefined, watching: false, cwd: work });
    const reports: WalkReport[] = [];
    const walk = async (frontEnd: string, run: () => Promise<unknown>) => {
      runtime.startWalk();
      await quietly(run);
      reports.push(reportOf(frontEnd, runtime.stopWalk()));
    };
    await walk("CLI (recall search)", () => main(["search", query, "--keyword-only"]));
    const server = createRecallServer(backend);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "walk", version: "1" });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    await walk("MCP (search tool)", () => client.callTool({ name: "search", arguments: { query } }));
    await client.close();
    await walk("web view (search page)", () =>
      backend.withIndex(async (db) => {
        const params = searchParamsOf(new URL(`http://127.0.0.1/?q=${encodeURIComponent(query)}`));
        const vector = await backend.vectorLeg(db);
        return searchPageHtml(await searchPageModel(db, params, vector.leg, vector.notice), "/base");
      }),
    );
    const picker = new PickerSearch(await openFreshIndex(context, { reindex: true }), {}, undefined);
    await walk("picker (sessions)", () => picker.sessions(query, false, listPageFor(11))); // a 100×30 terminal's list
    picker.close();
    await backend.close();
    return reports;
  } finally {
    process.env = saved;
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const reports = await walkQuery(
    process.argv.slice(2).find((arg) => !arg.startsWith("--")) ?? "docker bridge network",
  );
  if (process.argv.includes("--json")) console.log(JSON.stringify(reports));
  else {
    console.log("| front end | files entered | calls across files | climbs back up |\n|---|---|---|---|");
    for (const report of reports)
      console.log(`| ${report.frontEnd} | ${report.files} | ${report.crossings} | ${report.climbs.length} |`);
    for (const report of reports)
      for (const climb of report.climbs)
        console.log(`climb (${report.frontEnd}): ${climb.from} → ${climb.to} ${climb.name}`);
  }
}
