/**
 * Bench: OpenCode parser speed. (1) `parse` of every session of a generated SQLite db shaped like
 * the real 1.17.3 corpus session (per session: --turns user prompts, 5 assistant messages per
 * turn, each with step-start, reasoning, text, 1 tool part and step-finish; 1 in 10 user
 * messages with a 200 KB `file` data-URL part), warm connection; (2) `scan` of a generated JSON
 * storage folder (stats-only fingerprint, runs before every search), first as written (every session
 * recent), then with every file two days old, as OpenCode >= 1.2 leaves it; (3) `parse` of every
 * session of ../shared/corpus/opencode when present. Content is generated from that aggregate
 * profile, never copied. Physical reference: reading the same bytes with one `select data` per part.
 * Prints one JSON line per measurement {name, n, p50_ms, p95_ms, sessions_per_s, machine, commit}.
 * Options: --sessions N (200), --turns T (12), --json-sessions J (200).
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { closeOpencodeDatabases, opencodeParser } from "../../src/parsers/opencode.ts";
import { createSchema, insertMessage, insertPart, insertSession } from "../../test/fixtures/opencode/make-db.ts";

function argNumber(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}

const words =
  "the parser index session message token vector cursor portfolio deploy server route handler test build".split(" ");
const prose = (count: number, seed: number) =>
  Array.from({ length: count }, (_, i) => words[(seed * 7 + i * 13) % words.length]).join(" ");

/** Generate the db described in the header; returns its path. */
function generateDb(dir: string, sessions: number, turns: number): string {
  const path = join(dir, "opencode.db");
  const db = new Database(path);
  db.run("pragma journal_mode = wal");
  createSchema(db);
  const fileUrl = `data:text/plain;base64,${Buffer.alloc(150_000, 65).toString("base64")}`;
  db.transaction(() => {
    for (let s = 0; s < sessions; s++) {
      const sid = `ses_${String(s).padStart(6, "0")}`;
      insertSession(db, {
        id: sid,
        timeCreated: s * 1e6,
        timeUpdated: s * 1e6 + 9e5,
        directory: `/home/dev/project-${s % 7}`,
      });
      for (let t = 0; t < turns; t++) {
        const time = s * 1e6 + t * 1000;
        const uid = `msg_${sid}_${String(t).padStart(3, "0")}u`;
        insertMessage(db, sid, uid, time, { role: "user", time: { created: time } });
        insertPart(db, sid, uid, `prt_${uid}a`, { type: "text", text: prose(40, s + t) });
        if (t % 10 === 0) insertPart(db, sid, uid, `prt_${uid}b`, { type: "file", mime: "text/plain", url: fileUrl });
        for (let a = 0; a < 5; a++) {
          const aid = `msg_${sid}_${String(t).padStart(3, "0")}v${a}`;
          insertMessage(db, sid, aid, time + a + 1, {
            role: "assistant",
            parentID: uid,
            time: { created: time + a + 1 },
          });
          insertPart(db, sid, aid, `prt_${aid}1`, {
            type: "step-start",
            snapshot: "5fac99e4fb06dad014ca358a03e33f5aea2ba1e1",
          });
          insertPart(db, sid, aid, `prt_${aid}2`, { type: "reasoning", text: prose(120, a + t) });
          insertPart(db, sid, aid, `prt_${aid}3`, { type: "text", text: prose(80, a * t) });
          const input =
            a % 2
              ? { command: `bun test ${prose(3, a)}` }
              : { filePath: `/home/dev/src/file-${a}.ts`, oldString: "a\nb", newString: "c\nd\ne" };
          insertPart(db, sid, aid, `prt_${aid}4`, {
            type: "tool",
            callID: `c${a}`,
            tool: a % 2 ? "bash" : "edit",
            state: {
              status: "completed",
              input,
              output: prose(300, a),
              title: "",
              metadata: {},
              time: { start: 1, end: 2 },
            },
          });
          insertPart(db, sid, aid, `prt_${aid}5`, {
            type: "step-finish",
            reason: "tool-calls",
            cost: 0,
            tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
          });
        }
      }
    }
  })();
  db.close();
  return path;
}

/** Generate a JSON storage folder with `sessions` sessions of 20 messages × 3 parts. */
function generateJsonStorage(dir: string, sessions: number): string {
  const storage = join(dir, "storage");
  for (let s = 0; s < sessions; s++) {
    const sid = `ses_${String(s).padStart(6, "0")}`;
    mkdirSync(join(storage, "session", "global"), { recursive: true });
    writeFileSync(
      join(storage, "session", "global", `${sid}.json`),
      JSON.stringify({ id: sid, directory: "/x", time: { created: s, updated: s } }, null, 2),
    );
    mkdirSync(join(storage, "message", sid), { recursive: true });
    for (let m = 0; m < 20; m++) {
      const mid = `msg_${sid}_${m}`;
      writeFileSync(
        join(storage, "message", sid, `${mid}.json`),
        JSON.stringify({ role: m % 2 ? "assistant" : "user", time: { created: m } }, null, 2),
      );
      mkdirSync(join(storage, "part", mid), { recursive: true });
      for (let p = 0; p < 3; p++)
        writeFileSync(
          join(storage, "part", mid, `prt_${p}.json`),
          JSON.stringify({ type: "text", text: prose(50, p) }, null, 2),
        );
    }
  }
  return storage;
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

const machine = `${cpus()[0]?.model ?? "cpu"} ${cpus().length}c`;
const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: import.meta.dir })
  .stdout.toString()
  .trim();

function report(name: string, timesMs: number[], sessions: number): void {
  const sorted = [...timesMs].sort((a, b) => a - b);
  const totalMs = timesMs.reduce((sum, time) => sum + time, 0);
  const line = {
    name,
    n: timesMs.length,
    p50_ms: +percentile(sorted, 0.5).toFixed(3),
    p95_ms: +percentile(sorted, 0.95).toFixed(3),
    sessions_per_s: +((sessions * 1000) / totalMs).toFixed(1),
    machine,
    commit,
  };
  console.log(JSON.stringify(line));
}

/** Parse every unit of the roots once (warm-up) and then time each parse. */
function benchParse(name: string, roots: string[]): void {
  const units = opencodeParser.listUnits(opencodeParser.scan(roots).containers);
  for (const unit of units) opencodeParser.parse(unit);
  const times = units.map((unit) => {
    const start = performance.now();
    opencodeParser.parse(unit);
    return performance.now() - start;
  });
  report(name, times, units.length);
}

const dir = mkdtempSync(join(tmpdir(), "recall-bench-opencode-"));
try {
  const sessions = argNumber("sessions", 200);
  const turns = argNumber("turns", 12);
  const dbPath = generateDb(dir, sessions, turns);
  benchParse(`opencode-parse-db-${turns}turns`, [dbPath]);

  const reference = new Database(dbPath, { readonly: true });
  const times = Array.from({ length: sessions }, (_, s) => {
    const start = performance.now();
    reference.query("select data from part where session_id = ? order by id").all(`ses_${String(s).padStart(6, "0")}`);
    return performance.now() - start;
  });
  reference.close();
  report("opencode-reference-select-all-parts", times, sessions);

  const jsonSessions = argNumber("json-sessions", 200);
  const storage = generateJsonStorage(join(dir, "json"), jsonSessions);
  const scanTimes = () =>
    Array.from({ length: 20 }, () => {
      const start = performance.now();
      opencodeParser.scan([storage]);
      return performance.now() - start;
    });
  report(`opencode-scan-json-storage-${jsonSessions * 20}msgs`, scanTimes(), jsonSessions);
  // As OpenCode >= 1.2 leaves it: copied into opencode.db and never written again (scan.ts storageRecentWindowMs).
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
  for (const name of readdirSync(storage, { recursive: true }) as string[])
    utimesSync(join(storage, name), twoDaysAgo, twoDaysAgo);
  report(`opencode-scan-json-storage-quiet-${jsonSessions * 20}msgs`, scanTimes(), jsonSessions);
  benchParse("opencode-parse-json-storage", [storage]);

  const corpus = resolve(import.meta.dir, "../../../shared/corpus/opencode");
  if (existsSync(corpus))
    benchParse(
      "opencode-parse-corpus",
      [corpus].flatMap((root) => [
        join(root, "richardaiand__aiand-portfolio-web"),
        join(root, "Anshgrag__amazon-tools-dashboard"),
        join(root, "Saintcyberwarrior__dotfiles"),
      ]),
    );
} finally {
  closeOpencodeDatabases();
  rmSync(dir, { recursive: true, force: true });
}
