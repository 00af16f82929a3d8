/**
 * The team archive on PostgreSQL (issue 30), in process: a fresh PostgreSQL 15 server of the bench's own
 * (test/helpers/postgres.ts: Debian's package, a temp folder, a free loopback port, stopped at the end even when a step
 * throws), `archive init` as the admin with team `bench`, then a login role `bench_member` granted `recall_team_bench`
 * that pushes and searches, so row-level security is in every measured statement. Pushes call pushToArchive (what
 * `recall archive push` runs, default batch of 100 sessions) on the local index opened read-only; searches call
 * searchArchive (what `recall search --archive-url` runs). One database per corpus in the one server. Rows:
 *   archive.agreement.eval            the labelled queries (test/corpus/queries.json) over the real corpus, indexed as
 *                                     `bun run eval` does (scripts/eval/corpus-index.ts, keyword leg) and pushed: local
 *                                     keyword search (searchIndex, mode keyword) vs the archive's, level 1, top 5, the
 *                                     CLI's default filters (no sub-agents). Samples: the archive search's wall time per
 *                                     query. {top5_set_equal: share of all queries whose top-5 session id sets are equal
 *                                     (target ≥ 0.90), top1_equal, same_hit5: share of the labelled (positive) queries
 *                                     with the same hit@5 outcome, recall5_local, recall5_archive}; the queries whose
 *                                     sets differ go to stderr with both lists (* = an expected session)
 *   archive.index.scaled-<n>          keyword-only runIndex of the generated corpus (scripts/gen-corpus.ts, cached in
 *                                     ~/.cache/recall-bench): set-up, not part of the push
 *   archive.push.first.scaled-<n>     first push of every session into the empty archive {sessions_per_s, total_s,
 *                                     sent, turns, documents, database_bytes}                  target ≤ 300 s at 100k
 *   archive.push.second.scaled-<n>    the same push again: nothing changed, so it sends nothing {sent: 0}
 *   archive.search.{session,turn}.scaled-<n>   searchArchive at level 1 / level 2 (limit 5 / 10, the CLI's), after a
 *                                     VACUUM ANALYZE as the admin (statistics now, not whenever autovacuum runs), the
 *                                     queries of ui.ts (identifiers, words, a question), one unmeasured warm-up each,
 *                                     then --runs rounds                                          target p50 ≤ 150 ms
 *   archive.local_search.{session,turn}.scaled-<n>   the same queries through local searchIndex (keyword), for scale
 * Run: bun scripts/bench/archive.ts [--sessions 100000] [--runs 5]   (--sessions 2000: a quick full run)
 */
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Database } from "bun:sqlite";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { defaultLimits, searchIndex, type SessionResult } from "../../src/search/index.ts";
import type { LabelledQuery } from "../eval/evaluate.ts";
import type { SearchLevel } from "../../src/search/ranking/lexical.ts";
import { openArchive, parseArchiveUrl, type ArchiveConnection } from "../../src/team-archive/connection.ts";
import { pushToArchive, type PushSummary } from "../../src/team-archive/push.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { searchArchive } from "../../src/team-archive/search.ts";
import { startPostgres, type PostgresServer } from "../../test/helpers/postgres.ts";
import { indexCorpus } from "../eval/corpus-index.ts";
import { argValue, ensureGeneratedCorpus, report, typedQueries } from "./lib.ts";

const sessions = argValue("--sessions", 100_000);
const runs = argValue("--runs", 5);
const team = "bench";
const member = { user: "bench_member", password: "bench-member-password" };
const origin = { machine: "bench-machine", osUser: "bench" };
const filters = { includeSubagents: false };
const work = mkdtempSync(join(tmpdir(), "recall-bench-archive-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

const seconds = (ms: number) => Math.round(ms / 100) / 10;
const share = (count: number, of: number) => (of === 0 ? 0 : Math.round((count / of) * 1000) / 1000);

/**
 * A fresh database `name` in `server`, initialised as the admin with team `bench` (the member role made and granted
 * once: roles are cluster-wide), and a connection to it as the member.
 */
async function memberArchive(server: PostgresServer, name: string): Promise<ArchiveConnection> {
  await server.admin(`CREATE DATABASE ${name}`);
  const admin = await openArchive(parseArchiveUrl(server.url({ database: name })));
  try {
    await initArchive(admin, [team]);
  } finally {
    await admin.close();
  }
  const exists = await server.admin("SELECT 1 FROM pg_roles WHERE rolname = $1", [member.user]);
  if (exists.length === 0) await server.admin(`CREATE ROLE ${member.user} LOGIN PASSWORD '${member.password}'`);
  await server.admin(`GRANT recall_team_${team} TO ${member.user}`);
  return openArchive(parseArchiveUrl(server.url({ ...member, database: name })), { applicationName: "recall-bench" });
}

/** Push `db` to `connection` with progress on stderr every tenth. */
function push(db: Database, connection: ArchiveConnection, label: string): Promise<PushSummary> {
  let shown = -1;
  return pushToArchive(db, connection, {
    team,
    origin,
    onProgress: (sent, total) => {
      const tenth = total === 0 ? 10 : Math.floor((sent / total) * 10);
      if (tenth === shown) return;
      shown = tenth;
      process.stderr.write(`archive: ${label}: pushed ${sent}/${total} sessions\n`);
    },
  });
}

/** Wall time in ms of an awaited `fn`. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** The eval corpus, local keyword search vs the archive's: ranking agreement at level 1, top 5. */
async function agreement(server: PostgresServer): Promise<void> {
  const labelled = JSON.parse(
    readFileSync(resolve(import.meta.dir, "../../test/corpus/queries.json"), "utf8"),
  ) as LabelledQuery[];
  const corpus = await indexCorpus("archive", undefined);
  const connection = await memberArchive(server, "recall_eval");
  try {
    const pushed = await push(corpus.db, connection, "eval");
    process.stderr.write(`archive: eval corpus: ${pushed.sent} sessions pushed in ${seconds(pushed.elapsedMs)} s\n`);
    const archiveMs: number[] = [];
    let setEqual = 0;
    let topEqual = 0;
    let positives = 0;
    let sameHit = 0;
    let localHits = 0;
    let archiveHits = 0;
    const differing: string[] = [];
    for (const query of labelled) {
      const local = (
        await searchIndex(corpus.db, { query: query.query, level: "session", filters, limit: 5, mode: "keyword" })
      ).results as SessionResult[];
      const started = performance.now();
      const archived = (await searchArchive(connection, { query: query.query, level: "session", filters, limit: 5 }))
        .results as SessionResult[];
      archiveMs.push(performance.now() - started);
      const localIds = local.map((result) => result.sessionId);
      const archiveIds = archived.map((result) => result.sessionId);
      const same = localIds.length === archiveIds.length && localIds.every((id) => archiveIds.includes(id));
      if (same) setEqual++;
      if (localIds[0] === archiveIds[0]) topEqual++;
      const expected = (id: string) => query.expected_sessions.includes(id);
      if (query.expected_sessions.length > 0) {
        positives++;
        const localHit = localIds.some(expected);
        const archiveHit = archiveIds.some(expected);
        if (localHit) localHits++;
        if (archiveHit) archiveHits++;
        if (localHit === archiveHit) sameHit++;
      }
      if (!same) {
        const list = (results: Array<{ sessionId: string; score: number }>, other: string[]) =>
          results
            .map(
              (result) =>
                `${expected(result.sessionId) ? "*" : ""}${result.sessionId.slice(0, 8)}${other.includes(result.sessionId) ? "" : "!"}(${result.score.toFixed(2)})`,
            )
            .join(" ") || "(none)";
        differing.push(
          `  ${JSON.stringify(query.query)} [${query.kind}]\n    local:   ${list(local, archiveIds)}\n    archive: ${list(archived, localIds)}`,
        );
      }
    }
    process.stderr.write(
      `archive: ${differing.length} of ${labelled.length} eval queries have different top-5 session sets (id prefix, * expected session, ! only on that side, (score)):\n${differing.join("\n")}\n`,
    );
    report("archive.agreement.eval", archiveMs, {
      queries: labelled.length,
      positives,
      top5_set_equal: share(setEqual, labelled.length),
      top1_equal: share(topEqual, labelled.length),
      same_hit5: share(sameHit, positives),
      recall5_local: share(localHits, positives),
      recall5_archive: share(archiveHits, positives),
      target: "top5_set_equal ≥ 0.90",
    });
  } finally {
    await connection.close();
    await corpus.close();
  }
}

/** The generated corpus of `sessions`: index, first and second push, then search latency at both levels. */
async function scaled(server: PostgresServer): Promise<void> {
  const label = `scaled-${sessions}`;
  const corpusDir = ensureGeneratedCorpus(sessions);
  const home = join(work, "home");
  const indexMs = await timed(() =>
    runIndex({
      recallHome: home,
      roots: { "claude-code": [join(corpusDir, "projects")], opencode: [join(corpusDir, "opencode")] },
    }),
  );
  report(`archive.index.${label}`, [indexMs], { total_s: seconds(indexMs), keyword_only: true });
  process.stderr.write(`archive: ${label}: indexed in ${seconds(indexMs)} s\n`);
  const db = openIndex(databasePath(home), { readonly: true });
  const connection = await memberArchive(server, "recall_scaled");
  try {
    const firstStarted = performance.now();
    const first = await push(db, connection, label);
    const firstMs = performance.now() - firstStarted;
    const [size] = (await server.admin("SELECT pg_database_size('recall_scaled') AS bytes")) as Array<{
      bytes: string;
    }>;
    report(`archive.push.first.${label}`, [firstMs], {
      sessions_per_s: Math.round((first.sent / firstMs) * 1000 * 10) / 10,
      total_s: seconds(firstMs),
      sent: first.sent,
      turns: first.turns,
      documents: first.documents,
      database_bytes: Number(size?.bytes ?? 0),
      target: sessions === 100_000 ? "≤ 300 s" : undefined,
    });
    const secondStarted = performance.now();
    const second = await push(db, connection, `${label} again`);
    report(`archive.push.second.${label}`, [performance.now() - secondStarted], {
      sent: second.sent,
      unchanged: second.unchanged,
    });
    const admin = await openArchive(parseArchiveUrl(server.url({ database: "recall_scaled" })));
    await admin.query("VACUUM ANALYZE"); // planner statistics and visibility map now, not whenever autovacuum gets to it
    await admin.close();
    for (const level of ["session", "turn"] as SearchLevel[]) {
      const archiveMs: number[] = [];
      const localMs: number[] = [];
      for (const query of typedQueries) {
        await searchArchive(connection, { query, level, filters, limit: defaultLimits[level] });
        await searchIndex(db, { query, level, filters, limit: defaultLimits[level], mode: "keyword" });
      }
      for (let round = 0; round < runs; round++)
        for (const query of typedQueries) {
          const limit = defaultLimits[level];
          archiveMs.push(await timed(() => searchArchive(connection, { query, level, filters, limit })));
          localMs.push(await timed(() => searchIndex(db, { query, level, filters, limit, mode: "keyword" })));
        }
      report(`archive.search.${level}.${label}`, archiveMs, { target: "p50 ≤ 150 ms" });
      report(`archive.local_search.${level}.${label}`, localMs);
    }
  } finally {
    await connection.close();
    db.close();
  }
}

const server = await startPostgres();
try {
  await agreement(server);
  await scaled(server);
} finally {
  await server.stop();
}
