/**
 * Worker side of the parse pipeline (parse-pipeline.ts): parses the units it is sent, one message
 * per unit, in order, and posts each result, redacted (issue 9), or the error message back. Runs on
 * the second core while the main thread writes the previous results into SQLite.
 */
import type { ParseResult, ResumeState, SourceId, SourceUnit } from "../parsers/index.ts";
import { parseRedacted } from "./parse-pipeline.ts";

/** A request: parse `unit` of `source`, resuming from `resume` when given. */
export interface ParseRequest {
  id: number;
  source: SourceId;
  unit: SourceUnit;
  resume: ResumeState | undefined;
}

/** A reply: the result, or the one-line error message of a unit that could not be read. */
export type ParseReply = { id: number; result: ParseResult } | { id: number; error: string };

declare const self: Worker;

self.onmessage = (event: MessageEvent<ParseRequest>) => {
  const { id, source, unit, resume } = event.data;
  try {
    // The same parse as the in-thread path (with outputs, capped, redacted).
    self.postMessage({ id, result: parseRedacted(source, unit, resume) } satisfies ParseReply);
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies ParseReply);
  }
};
