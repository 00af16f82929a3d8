/**
 * Bench (issue 11): parse speed of the Codex, Gemini CLI, Cursor and Aider parsers on the real corpus
 * (../shared/corpus/<source>, roots as the corpus tests pass them: one per repository folder), to read next to
 * parse-claude.ts's `claude-parse-corpus-round`. Per source:
 *   (1) `scan` + `listUnits` once, a warm-up parse of every unit, then --rounds rounds (warm page cache) of a full
 *       `parse` of every unit (default options: no tool outputs, as parse-claude.ts) →
 *       `<source>-parse-corpus-round` {mb_per_s, sessions_per_s, turns}. Bytes = the summed sizes of the containers
 *       the units read: every chat file of a Gemini session, the one rollout kept of a Codex thread (an archived
 *       copy that lost to its live twin is not parsed, so not counted), each Aider history file (its
 *       `.aider.input.history` is read for prompt times but not counted), and for Cursor the size of the
 *       `state.vscdb` SQLite file (the parser reads only the chat keys' values out of it, so its MB/s is a
 *       database-size rate, not a decoded-bytes rate). Sessions = units, turns = turns of one round. Prompt-only
 *       sessions listed from prompt-history files (Codex `history.jsonl`, Gemini `logs.json`:
 *       src/parsers/shared/prompt-history.ts) are left out of the rounds and their files out of the bytes: they are
 *       answered from a per-process cache of the decoded file, so repeated rounds would time a cache lookup.
 *   (2) a physical reference over the same files: read + `JSON.parse` per line (Codex; Gemini `.jsonl`, and one
 *       `JSON.parse` of the whole document for Gemini `.json`), read + split into lines for Aider (Markdown); none for
 *       Cursor → `<source>-reference-…`.
 *   (3) where the parser resumes (Codex, Gemini JSONL, Aider's last session): on a temp copy of the largest such
 *       file, 20 times: full parse, append one record (Codex: an assistant message; Gemini: a model message; Aider:
 *       a line of reply text), then the resumed parse vs a full parse of the grown file →
 *       `<source>-parse-full-<size>MB` and `<source>-parse-resumed-after-append` {bytes_read: bytes the resumed
 *       parse decoded, besides the prefix it only hashed}.
 * Prints one JSON line per measurement {name, n, p50_ms, p95_ms, …, machine, commit}. Never writes under the
 * corpus; its temp folder is removed at the end. A source whose corpus folder is missing is skipped (stderr).
 * Options: --rounds N (5).
 */
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { aiderParser } from "../../src/parsers/aider.ts";
import { codexParser } from "../../src/parsers/codex.ts";
import { closeCursorDatabases, cursorParser } from "../../src/parsers/cursor.ts";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import { isPromptHistoryUnit } from "../../src/parsers/shared/prompt-history.ts";
import type { Parser, SourceContainer, SourceUnit } from "../../src/parsers/types.ts";
import { allCorpusRoots, corpusDir } from "../../test/helpers/corpus.ts";
import { argValue, report, sample, throughputAtMedian } from "./lib.ts";

/** How one resumable source is benched after an append (step 3 of the header). */
interface ResumeBench {
  /** True for a container the parser resumes after an append (the largest one is taken). */
  isResumable(container: SourceContainer): boolean;
  /** The text appended in round `round` (0-based): one complete record, ending with "\n". */
  appendedRecord(round: number): string;
}

/** One parser of this bench and how to measure it. */
interface AgentBench {
  parser: Parser;
  /** Name of the reference row (after `<source>-reference-`), or undefined for no reference. */
  referenceName?: string;
  /** The physical reference work for one file (read it and decode it the cheapest way its format allows). */
  readReference?(path: string): void;
  resume?: ResumeBench;
}

/** Read a file and `JSON.parse` each non-empty line (a line that is not JSON is skipped, as the parsers do). */
function readJsonLines(path: string): void {
  for (const line of readFileSync(path, "utf8").split("\n")) {
    try {
      if (line) JSON.parse(line);
    } catch {
      // skipped, as the parsers skip it
    }
  }
}

/** ISO time of round `round`, after any time in the corpus (so an appended message sorts last). */
const roundTime = (round: number): string => new Date(Date.UTC(2030, 0, 1, 0, 0, round)).toISOString();

const benches: AgentBench[] = [
  {
    parser: codexParser,
    referenceName: "read-and-json-parse",
    readReference: readJsonLines,
    resume: {
      isResumable: () => true,
      appendedRecord: (round) =>
        `${JSON.stringify({ timestamp: roundTime(round), type: "response_item", payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: `bench round ${round}` }] } })}\n`,
    },
  },
  {
    parser: geminiCliParser,
    referenceName: "read-and-json-parse",
    readReference: (path) => (path.endsWith(".jsonl") ? readJsonLines(path) : JSON.parse(readFileSync(path, "utf8"))),
    resume: {
      isResumable: (container) => container.path.endsWith(".jsonl"),
      appendedRecord: (round) =>
        `${JSON.stringify({ id: `bench-round-${round}`, timestamp: roundTime(round), type: "gemini", content: `bench round ${round}` })}\n`,
    },
  },
  { parser: cursorParser },
  {
    parser: aiderParser,
    referenceName: "read-and-split-lines",
    readReference: (path) => void readFileSync(path, "utf8").split("\n"),
    resume: {
      isResumable: () => true,
      appendedRecord: (round) => `bench round ${round}: one more line of the reply.\n`,
    },
  },
];

/** Paths of the containers a list of units reads: each unit's container, plus every file of a Gemini session. */
function pathsReadBy(units: readonly SourceUnit[]): Set<string> {
  const paths = new Set<string>();
  for (const unit of units) {
    paths.add(unit.containerPath);
    const files = unit.locator?.files;
    if (typeof files === "string") for (const file of files.split("\n")) if (file) paths.add(file);
  }
  return paths;
}

/** Steps (1) and (2) for one source. @returns the containers the units read (for step 3) */
function benchCorpus(bench: AgentBench, roots: string[], rounds: number): SourceContainer[] {
  const { parser } = bench;
  const warnings: string[] = [];
  const scan = parser.scan(roots);
  const listed = parser.listUnits(scan.containers, {
    onWarning: (message) => warnings.push(message),
    onUnavailable: (path, reason) => warnings.push(`${path}: ${reason}`),
  });
  if (warnings.length > 0)
    process.stderr.write(`parse-agents: ${parser.id}: ${warnings.length} warning(s), first: ${warnings[0]}\n`);
  const units = listed.filter((unit) => !isPromptHistoryUnit(unit));
  const read = pathsReadBy(units);
  const containers = scan.containers.filter((container) => read.has(container.path));
  const bytes = containers.reduce((sum, container) => sum + container.sizeBytes, 0);
  const turns = units.reduce((sum, unit) => sum + parser.parse(unit).turns.length, 0); // also the warm-up
  const parseTimes = sample(rounds, () => {
    for (const unit of units) parser.parse(unit);
  });
  report(`${parser.id}-parse-corpus-round`, parseTimes, {
    ...throughputAtMedian(parseTimes, bytes, units.length),
    turns,
  });
  if (bench.readReference && bench.referenceName) {
    const readReference = bench.readReference;
    const referenceTimes = sample(rounds, () => {
      for (const container of containers) readReference(container.path);
    });
    report(
      `${parser.id}-reference-${bench.referenceName}`,
      referenceTimes,
      throughputAtMedian(referenceTimes, bytes, units.length),
    );
  }
  return containers;
}

/** Step (3) for one source, on a copy of its largest resumable container in `dir`. */
function benchResume(
  bench: AgentBench,
  resume: ResumeBench,
  containers: readonly SourceContainer[],
  dir: string,
): void {
  const { parser } = bench;
  const largest = containers.filter(resume.isResumable).sort((a, b) => b.sizeBytes - a.sizeBytes)[0];
  if (!largest) return;
  const folder = join(dir, parser.id);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, basename(largest.path)); // the name is kept: Codex reads the thread id from it
  const freshCopy = () => {
    copyFileSync(largest.path, file);
    chmodSync(file, 0o644); // the corpus is read-only, the copy is appended to
  };
  freshCopy();
  // The file's last unit: the one an append grows (Aider: the last session block of the history file).
  const unit = parser.listUnits(parser.scan([file]).containers).at(-1);
  if (!unit) throw new Error(`parse-agents: ${parser.id}: no unit in the copy of ${largest.path}`);
  const fullTimes: number[] = [];
  const resumeTimes: number[] = [];
  let resumedBytesRead = 0;
  for (let round = 0; round < 20; round++) {
    freshCopy();
    const first = parser.parse(unit);
    appendFileSync(file, resume.appendedRecord(round));
    let started = performance.now();
    const resumed = parser.parse(unit, { resume: first.resume });
    resumeTimes.push(performance.now() - started);
    resumedBytesRead = resumed.bytesRead;
    started = performance.now();
    parser.parse(unit);
    fullTimes.push(performance.now() - started);
  }
  if (resumedBytesRead >= largest.sizeBytes)
    process.stderr.write(
      `parse-agents: ${parser.id}: the parse after an append did not resume (read ${resumedBytesRead} bytes)\n`,
    );
  report(
    `${parser.id}-parse-full-${(largest.sizeBytes / 1e6).toFixed(1)}MB`,
    fullTimes,
    throughputAtMedian(fullTimes, largest.sizeBytes, 1),
  );
  report(`${parser.id}-parse-resumed-after-append`, resumeTimes, {
    sessions_per_s: throughputAtMedian(resumeTimes, 0, 1).sessions_per_s,
    bytes_read: resumedBytesRead,
  });
}

const rounds = argValue("--rounds", 5);
const roots = allCorpusRoots(corpusDir);
const dir = mkdtempSync(join(tmpdir(), "recall-bench-agents-"));
try {
  for (const bench of benches) {
    const sourceRoots = roots[bench.parser.id];
    if (sourceRoots.length === 0 || !existsSync(join(corpusDir, bench.parser.id))) {
      process.stderr.write(
        `parse-agents: ${join(corpusDir, bench.parser.id)} is missing; ${bench.parser.id} skipped\n`,
      );
      continue;
    }
    const containers = benchCorpus(bench, sourceRoots, rounds);
    if (bench.resume) benchResume(bench, bench.resume, containers, dir);
  }
} finally {
  closeCursorDatabases();
  rmSync(dir, { recursive: true, force: true });
}
