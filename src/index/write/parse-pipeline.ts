/**
 * Parses units ahead of the writer: workers parse (JSON decoding, turn grouping), redact secrets and prepare
 * the rows (writer.ts `prepareSession`: JSON columns, compressed tool outputs, document texts and hashes) while
 * the main thread writes the previous results into SQLite (FTS5 tokenizing), so the main thread runs little but
 * SQL and the work spreads over the cores. One worker per core, at most {@link maxParseWorkers}: the writer waits
 * on the disk part of the time, so on 2 cores two workers beside it keep both cores busy (measured 2026-11-23,
 * 2-core Xeon, generated 20k corpus: with one worker a run took 40–44 s, the writer waiting for it 13–16 s; with
 * two, 25–27 s). Results come back in job order. Small runs (under `workerThreshold` units per worker) and any
 * failure to start a worker parse in-thread; the results are the same either way. Every result is redacted (issue 9)
 * before it leaves this module, so nothing unredacted reaches the index, the resume state or the embedder.
 */
import { availableParallelism } from "node:os";
import { parserFor, type ParseResult, type ResumeState, type SourceId, type SourceUnit } from "../../parsers/index.ts";
import { redactParseResult } from "../../redact/index.ts";
import { capArchivedOutput } from "../store/archive.ts";
import type { ParseReply, ParseRequest } from "./parse-worker.ts";
import { prepareSession, type PreparedSession } from "./writer.ts";

/** Below this many units per worker, a worker's start-up (~40 ms) costs more than it saves. */
export const workerThreshold = 64;

/**
 * Most parse workers started, whatever the core count. The workers do about twice the writer's work (2026-11-23,
 * 2-core Xeon, full index of the generated 20k corpus: 24 s CPU in the workers, 12 s in the writing thread), so
 * with more than three the one writing thread is the bottleneck and a worker only adds memory.
 */
const maxParseWorkers = 3;

/**
 * Units the workers may parse ahead of the writer, in all. Their results wait in the writing thread's heap until it
 * writes them, beside the batch it is writing: ~200 KB each for the generated corpus, by the difference below. First
 * index of the generated 20k corpus (2026-11-30, 2-core Xeon, three alternating runs each, in a slow phase of the
 * machine): peak RSS 273–279 MiB with 96 against 306–310 MiB with 256; wall 66.7, 76.2 and 79.6 s against 69.8,
 * 71.1 and 72.2 s. The wall times overlap (medians 76.2 and 71.1 s): what fewer parsed units cost in covering the
 * writer's pauses (a transaction, a collection) is within the machine's noise.
 */
const parseAheadUnits = 96;

/** Most jobs sent to a worker in one message. */
const requestChunk = 16;

/** One parsed unit with its rows prepared, or the message of a unit that could not be read. */
export type ParseOutcome = { ok: true; result: PreparedSession } | { ok: false; error: string };

/** One unit to parse. */
export interface ParseJob {
  unit: SourceUnit;
  resume: ResumeState | undefined;
}

/**
 * Parse one unit with tool outputs and redact the result (redactParseResult, issue 9). Tool outputs come back
 * capped to what the writer archives (archive.ts: 40 lines / 4 KB), because only that much is ever stored and
 * redacting whole outputs would cost more than the rest of the run. Throws what the parser throws.
 */
export function parseRedacted(source: SourceId, unit: SourceUnit, resume: ResumeState | undefined): ParseResult {
  // With outputs: the writer archives them (capped) for level 3 once the source is gone (issue 9).
  return redactParseResult(parserFor(source).parse(unit, { resume, withOutputs: true }), {
    capOutput: capArchivedOutput,
    dropFileChanges: true, // the writer stores no file changes (issue 37: they are redacted for level 3 only)
  });
}

/** {@link parseRedacted}, then the rows prepared for the writer: the one path both the in-thread parse and parse-worker.ts take. */
export function parseForWriting(source: SourceId, unit: SourceUnit, resume: ResumeState | undefined): PreparedSession {
  return prepareSession(parseRedacted(source, unit, resume));
}

function parseInThread(source: SourceId, job: ParseJob): ParseOutcome {
  try {
    return { ok: true, result: parseForWriting(source, job.unit, job.resume) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function startWorker(): Worker | undefined {
  try {
    // In a compiled binary the worker is a second entry point, addressed relative to the common root of
    // the entry points (src/); from source it sits next to this file.
    const compiled = import.meta.path.startsWith("/$bunfs/");
    return new Worker(compiled ? "./index/write/parse-worker.ts" : new URL("./parse-worker.ts", import.meta.url).href);
  } catch {
    return undefined;
  }
}

/** A started worker, the jobs sent to it and not answered yet, and whether it died. */
interface PoolWorker {
  worker: Worker;
  outstanding: number;
  failed: boolean;
}

/** Workers for `jobs` units: none with RECALL_PARSE_WORKER=0 or under `workerThreshold` units, else one per core and per `workerThreshold` units. */
function startPool(jobs: number): PoolWorker[] {
  if (process.env.RECALL_PARSE_WORKER === "0") return [];
  const wanted = Math.min(availableParallelism(), maxParseWorkers, Math.floor(jobs / workerThreshold));
  const pool: PoolWorker[] = [];
  for (let i = 0; i < wanted; i++) {
    const worker = startWorker();
    if (worker) pool.push({ worker, outstanding: 0, failed: false });
  }
  return pool;
}

/**
 * Parse `jobs` of one source, yielding outcomes in job order. Each job goes to the worker with the fewest
 * unanswered jobs; a job whose worker died is parsed in-thread.
 * @param inFlight how many units the workers may run ahead of the consumer, in all (bounds memory);
 *        default {@link parseAheadUnits}
 */
export async function* parseAhead(
  source: SourceId,
  jobs: readonly ParseJob[],
  inFlight = parseAheadUnits,
): AsyncGenerator<ParseOutcome> {
  const pool = startPool(jobs.length);
  if (pool.length === 0) {
    for (const job of jobs) yield parseInThread(source, job);
    return;
  }
  const workerOf = new Map<number, PoolWorker>(); // jobs sent and not consumed yet
  // The consumer waits for one job at a time; null means its worker died (parse it in-thread).
  let waiting: { id: number; worker: PoolWorker; resolve: (outcome: ParseOutcome | null) => void } | undefined;
  const arrived = new Map<number, ParseOutcome>();
  for (const member of pool) {
    member.worker.onmessage = (event: MessageEvent<ParseReply>) => {
      const reply = event.data;
      member.outstanding--;
      const outcome: ParseOutcome =
        "result" in reply ? { ok: true, result: reply.result } : { ok: false, error: reply.error };
      if (waiting?.id === reply.id) {
        waiting.resolve(outcome);
        waiting = undefined;
      } else arrived.set(reply.id, outcome);
    };
    member.worker.onerror = () => {
      member.failed = true;
      if (waiting?.worker === member) {
        waiting.resolve(null);
        waiting = undefined;
      }
    };
  }
  let sent = 0;
  // Jobs go out in chunks (one message each: a message costs ~40 µs on the sending side).
  const chunk = Math.max(1, Math.min(requestChunk, inFlight));
  const send = (upTo: number) => {
    while (sent < Math.min(upTo, jobs.length)) {
      let target: PoolWorker | undefined;
      for (const member of pool)
        if (!member.failed && (!target || member.outstanding < target.outstanding)) target = member;
      if (!target) return; // every worker died: the rest is parsed in-thread
      const requests: ParseRequest["jobs"] = [];
      for (const end = Math.min(sent + chunk, jobs.length); sent < end; sent++) {
        requests.push({ id: sent, unit: jobs[sent]!.unit, resume: jobs[sent]!.resume });
        workerOf.set(sent, target);
      }
      target.outstanding += requests.length;
      target.worker.postMessage({ source, jobs: requests } satisfies ParseRequest);
    }
  };
  try {
    for (let id = 0; id < jobs.length; id++) {
      if (id + inFlight >= sent + chunk) send(id + inFlight);
      let outcome: ParseOutcome | null = null;
      const worker = workerOf.get(id);
      workerOf.delete(id);
      if (arrived.has(id)) {
        outcome = arrived.get(id)!;
        arrived.delete(id);
      } else if (worker && !worker.failed) {
        outcome = await new Promise<ParseOutcome | null>((resolve) => (waiting = { id, worker, resolve }));
      }
      yield outcome ?? parseInThread(source, jobs[id]!);
    }
  } finally {
    for (const member of pool) member.worker.terminate();
  }
}
