/**
 * Worker side of the parse pipeline (parse-pipeline.ts): parses the units it is sent (a few per message), in
 * order, and posts each result back in a message of its own, redacted (issue 9) and prepared for the writer
 * (writer.ts `prepareSession`), or the error message. The compressed tool outputs are transferred, not copied.
 * Runs on another core while the main thread writes the previous results into SQLite. Collects its garbage as a large
 * run goes (garbage-budget.ts).
 */
import type { ResumeState, SourceId, SourceUnit } from "../../parsers/index.ts";
import { GarbageBudget, workerCollectEveryBytes } from "./garbage-budget.ts";
import { parseForWriting } from "./parse-pipeline.ts";
import type { PreparedSession } from "./writer.ts";

// A worker does the heavy work: the normal JIT at once, not the start-up policy the binary begins with (src/cli.ts).
Bun.unsafe.setJITPolicy(1);

/** A request: parse each unit of `jobs` (of `source`), resuming from its `resume` when given; `id` numbers the reply. */
export interface ParseRequest {
  source: SourceId;
  jobs: Array<{ id: number; unit: SourceUnit; resume: ResumeState | undefined }>;
}

/** A reply: the prepared result, or the one-line error message of a unit that could not be read. */
export type ParseReply = { id: number; result: PreparedSession } | { id: number; error: string };

declare const self: Worker;

/** This worker's garbage, collected as a large index run goes (garbage-budget.ts). */
const garbage = new GarbageBudget(workerCollectEveryBytes);

self.onmessage = (event: MessageEvent<ParseRequest>) => {
  const { source, jobs } = event.data;
  for (const { id, unit, resume } of jobs) parseAndReply(source, id, unit, resume);
};

function parseAndReply(source: SourceId, id: number, unit: SourceUnit, resume: ResumeState | undefined): void {
  let reply: ParseReply;
  try {
    // The same parse as the in-thread path (with outputs, capped, redacted, prepared).
    reply = { id, result: parseForWriting(source, unit, resume) };
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies ParseReply);
    return;
  }
  // Only a buffer the blob has to itself is handed over (transferring a shared one would detach its other views).
  const buffers: ArrayBuffer[] = [];
  for (const { outputs } of reply.result.turns) {
    if (outputs && outputs.byteOffset === 0 && outputs.byteLength === outputs.buffer.byteLength)
      buffers.push(outputs.buffer as ArrayBuffer);
  }
  self.postMessage(reply, buffers);
  garbage.noteHandled(reply.result.bytesRead); // after the reply: a collection never holds back the writer
}
