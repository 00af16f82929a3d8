/**
 * Parses units ahead of the writer: on a 2-core machine one worker parses (JSON decoding, turn
 * grouping, secret redaction) while the main thread writes the previous results into SQLite (FTS5
 * tokenizing), so a full index costs about the larger of the two instead of their sum. Results come
 * back in order. Small runs (under `workerThreshold` units) and any failure to start the worker parse
 * in-thread; the results are the same either way. Every result is redacted (issue 9) before it leaves
 * this module, so nothing unredacted reaches the index, the resume state or the embedder.
 */
import { parserFor, type ParseResult, type ResumeState, type SourceId, type SourceUnit } from "../parsers/index.ts";
import { redactParseResult } from "../redact/index.ts";
import { capArchivedOutput } from "./archive.ts";
import type { ParseReply, ParseRequest } from "./parse-worker.ts";

/** Below this many units a worker's start-up (~40 ms) costs more than it saves. */
export const workerThreshold = 64;

/** One parsed unit, or the message of a unit that could not be read. */
export type ParseOutcome = { ok: true; result: ParseResult } | { ok: false; error: string };

/** One unit to parse. */
export interface ParseJob {
  unit: SourceUnit;
  resume: ResumeState | undefined;
}

/**
 * Parse one unit with tool outputs and redact the result (redactParseResult, issue 9): the one path both the
 * in-thread parse and parse-worker.ts take. Tool outputs come back capped to what the writer archives
 * (archive.ts: 40 lines / 4 KB), because only that much is ever stored and redacting whole outputs would
 * cost more than the rest of the run. Throws what the parser throws.
 */
export function parseRedacted(source: SourceId, unit: SourceUnit, resume: ResumeState | undefined): ParseResult {
  // With outputs: the writer archives them (capped) for level 3 once the source is gone (issue 9).
  return redactParseResult(parserFor(source).parse(unit, { resume, withOutputs: true }), { capOutput: capArchivedOutput });
}

function parseInThread(source: SourceId, job: ParseJob): ParseOutcome {
  try {
    return { ok: true, result: parseRedacted(source, job.unit, job.resume) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function startWorker(): Worker | undefined {
  if (process.env.RECALL_PARSE_WORKER === "0") return undefined;
  try {
    // In a compiled binary the worker is a second entry point, addressed relative to the common root of
    // the entry points (src/); from source it sits next to this file.
    const compiled = import.meta.path.startsWith("/$bunfs/");
    return new Worker(compiled ? "./index/parse-worker.ts" : new URL("./parse-worker.ts", import.meta.url).href);
  } catch {
    return undefined;
  }
}

/**
 * Parse `jobs` of one source, yielding outcomes in job order.
 * @param inFlight how many units the worker may run ahead of the consumer (bounds memory)
 */
export async function* parseAhead(source: SourceId, jobs: readonly ParseJob[], inFlight = 256): AsyncGenerator<ParseOutcome> {
  const worker = jobs.length >= workerThreshold ? startWorker() : undefined;
  if (!worker) {
    for (const job of jobs) yield parseInThread(source, job);
    return;
  }
  const waiting = new Map<number, (outcome: ParseOutcome) => void>();
  const arrived = new Map<number, ParseOutcome>();
  let failure: string | undefined;
  worker.onmessage = (event: MessageEvent<ParseReply>) => {
    const reply = event.data;
    const outcome: ParseOutcome = "result" in reply ? { ok: true, result: reply.result } : { ok: false, error: reply.error };
    const resolve = waiting.get(reply.id);
    if (resolve) {
      waiting.delete(reply.id);
      resolve(outcome);
    } else arrived.set(reply.id, outcome);
  };
  worker.onerror = (event) => {
    failure = event.message || "parse worker failed";
    for (const resolve of waiting.values()) resolve({ ok: false, error: failure });
    waiting.clear();
  };
  let sent = 0;
  const send = (upTo: number) => {
    for (; sent < Math.min(upTo, jobs.length); sent++) {
      worker.postMessage({ id: sent, source, unit: jobs[sent]!.unit, resume: jobs[sent]!.resume } satisfies ParseRequest);
    }
  };
  try {
    send(inFlight);
    for (let id = 0; id < jobs.length; id++) {
      let outcome = arrived.get(id);
      if (outcome) arrived.delete(id);
      else if (failure) outcome = parseInThread(source, jobs[id]!); // the worker died: finish in-thread
      else outcome = await new Promise<ParseOutcome>((resolve) => waiting.set(id, resolve));
      if (!outcome.ok && failure) outcome = parseInThread(source, jobs[id]!);
      send(id + 1 + inFlight);
      yield outcome;
    }
  } finally {
    worker.terminate();
  }
}
