/**
 * Bench: Claude Code parser speed. (1) full `parse` of every transcript in ../shared/corpus/claude-code,
 * N rounds (one round = every file once, warm page cache), reported per round with MB/s and sessions/s;
 * physical reference: the same bytes read + `JSON.parse` per line and nothing else. (2) `scan` of a generated
 * tree of --files empty transcripts (100 project folders, every 10th session with a nested sub-agent),
 * stats only, as it runs before every search. (3) resumed `parse` of the largest corpus file after one
 * appended line vs its full parse. Prints one JSON line per measurement
 * {name, n, p50_ms, p95_ms, mb_per_s?, sessions_per_s?, machine, commit}. Options: --rounds N (5), --files F (20000).
 */
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { claudeCodeParser, isTranscript, unitForContainer } from "../../src/parsers/claude-code.ts";
import type { SourceContainer } from "../../src/parsers/types.ts";
import { corpusDir } from "../../test/helpers/corpus.ts";
import { argValue, commit, machine, sample } from "./lib.ts";

// Percentile and report stay local: this bench's rows use the floor(q·n) rank and 3 decimals since its first run,
// lib.ts uses the nearest rank and 2 decimals (a different p95 at n = 20), and the rows must stay comparable.
function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function report(name: string, timesMs: number[], extra: { bytes?: number; sessions?: number } = {}): void {
  const sorted = [...timesMs].sort((a, b) => a - b);
  const p50 = percentile(sorted, 0.5);
  const line: Record<string, unknown> = {
    name,
    n: timesMs.length,
    p50_ms: +p50.toFixed(3),
    p95_ms: +percentile(sorted, 0.95).toFixed(3),
  };
  if (extra.bytes !== undefined) line.mb_per_s = +(extra.bytes / 1e6 / (p50 / 1000)).toFixed(1);
  if (extra.sessions !== undefined) line.sessions_per_s = +((extra.sessions * 1000) / p50).toFixed(1);
  console.log(JSON.stringify({ ...line, machine, commit }));
}

function benchCorpus(corpus: string, rounds: number): SourceContainer[] {
  // Transcripts only: the prompt histories (history.jsonl) the scan also lists are not transcripts.
  const containers = claudeCodeParser.scan([corpus]).containers.filter(isTranscript);
  const units = containers.map(unitForContainer);
  const bytes = containers.reduce((sum, container) => sum + container.sizeBytes, 0);
  for (const unit of units) claudeCodeParser.parse(unit);
  const parseTimes = sample(rounds, () => {
    for (const unit of units) claudeCodeParser.parse(unit);
  });
  report("claude-parse-corpus-round", parseTimes, { bytes, sessions: units.length });
  const referenceTimes = sample(rounds, () => {
    for (const container of containers) {
      for (const line of readFileSync(container.path, "utf8").split("\n")) {
        try {
          if (line) JSON.parse(line);
        } catch {
          // same skip as the parser
        }
      }
    }
  });
  report("claude-reference-read-and-json-parse", referenceTimes, { bytes, sessions: units.length });
  const scanTimes = sample(20, () => void claudeCodeParser.scan([corpus]));
  report(`claude-scan-corpus-${containers.length}files`, scanTimes, { sessions: containers.length });
  return containers;
}

function benchScan(dir: string, files: number): void {
  const projects = 100;
  for (let p = 0; p < projects; p++) {
    const folder = join(dir, ".claude", "projects", `-home-dev-project-${p}`);
    mkdirSync(folder, { recursive: true });
    for (let s = p; s < files; s += projects) {
      const id = `${String(s).padStart(8, "0")}-0000-4000-8000-000000000000`;
      writeFileSync(join(folder, `${id}.jsonl`), "");
      if (s % 10 === 0) {
        mkdirSync(join(folder, id, "subagents"), { recursive: true });
        writeFileSync(join(folder, id, "subagents", `agent-a${s}.jsonl`), "");
      }
    }
  }
  const root = join(dir, ".claude");
  const count = claudeCodeParser.scan([root]).containers.length;
  const times = sample(20, () => void claudeCodeParser.scan([root]));
  report(`claude-scan-generated-${count}files`, times, { sessions: count });
}

function benchResume(dir: string, containers: SourceContainer[]): void {
  const largest = [...containers].sort((a, b) => b.sizeBytes - a.sizeBytes)[0];
  if (!largest) return;
  const file = join(dir, basename(largest.path));
  const unitOf = () => {
    const stat = statSync(file);
    return unitForContainer({
      source: "claude-code",
      path: file,
      fingerprint: `${stat.size}:${stat.mtimeMs}`,
      sizeBytes: stat.size,
    });
  };
  const fullTimes: number[] = [];
  const resumeTimes: number[] = [];
  for (let round = 0; round < 20; round++) {
    copyFileSync(largest.path, file);
    const first = claudeCodeParser.parse(unitOf());
    appendFileSync(
      file,
      `${JSON.stringify({ type: "queue-operation", operation: "enqueue", content: `round ${round}` })}\n`,
    );
    resumeTimes.push(...sample(1, () => void claudeCodeParser.parse(unitOf(), { resume: first.resume })));
    fullTimes.push(...sample(1, () => void claudeCodeParser.parse(unitOf())));
  }
  report(`claude-parse-full-${(largest.sizeBytes / 1e6).toFixed(1)}MB`, fullTimes, {
    bytes: largest.sizeBytes,
    sessions: 1,
  });
  report("claude-parse-resumed-after-append", resumeTimes, { sessions: 1 });
}

const dir = mkdtempSync(join(tmpdir(), "recall-bench-claude-"));
try {
  const corpus = join(corpusDir, "claude-code");
  const containers = existsSync(corpus) ? benchCorpus(corpus, argValue("--rounds", 5)) : [];
  benchScan(join(dir, "scan"), argValue("--files", 20000));
  benchResume(dir, containers);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
