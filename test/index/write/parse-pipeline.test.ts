import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeTurnOutputs } from "../../../src/index/store/archive.ts";
import {
  parseAhead,
  parseForWriting,
  workerThreshold,
  type ParseJob,
  type ParseOutcome,
} from "../../../src/index/write/parse-pipeline.ts";
import { claudeCodeParser } from "../../../src/parsers/claude-code.ts";
import { fillerText, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { findLeaks, plantedSecrets } from "../../helpers/secrets.ts";

const root = mkdtempSync(join(tmpdir(), "recall-pipeline-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

for (let s = 0; s < 2 * workerThreshold + 8; s++) {
  const id = `${String(s).padStart(8, "0")}-bbbb-4bbb-8bbb-${String(s).padStart(12, "0")}`;
  writeClaudeSession(join(root, `-p${s % 3}`, `${id}.jsonl`), {
    sessionId: id,
    cwd: `/p${s % 3}`,
    turns: Array.from({ length: 3 }, (_, t) => ({
      prompt: `q${t} ${fillerText(s + t, 12)}`,
      response: fillerText(s * 7 + t, 40),
      // Every session carries planted secrets (issue 9): in a tool input and a tool output.
      tools: [
        {
          name: "Bash",
          input: { command: plantedSecrets[(s + t) % plantedSecrets.length]!.carrier },
          output: plantedSecrets[(s * 3 + t) % plantedSecrets.length]!.carrier,
        },
      ],
    })),
  });
}

/** Every text of some outcomes, with the compressed tool outputs decoded (so a leak inside them is seen too). */
function outcomesText(outcomes: readonly ParseOutcome[]): string {
  return JSON.stringify(outcomes, (key, value: unknown) =>
    key === "outputs" && value instanceof Uint8Array ? decodeTurnOutputs(value) : value,
  );
}

describe("parseAhead", () => {
  test("the worker pipeline yields exactly the in-thread results, in job order", async () => {
    const jobs: ParseJob[] = claudeCodeParser
      .listUnits(claudeCodeParser.scan([root]).containers)
      .map((unit) => ({ unit, resume: undefined }));
    expect(jobs.length).toBeGreaterThanOrEqual(2 * workerThreshold); // two workers on a machine of two cores or more
    const viaWorker: ParseOutcome[] = [];
    for await (const outcome of parseAhead("claude-code", jobs, 8)) viaWorker.push(outcome);
    const inThread: ParseOutcome[] = jobs.map((job) => ({
      ok: true,
      result: parseForWriting("claude-code", job.unit, undefined),
    }));
    expect(viaWorker).toEqual(inThread);
  });

  test("both paths redact every result before it leaves the pipeline (issue 9)", async () => {
    const jobs: ParseJob[] = claudeCodeParser
      .listUnits(claudeCodeParser.scan([root]).containers)
      .map((unit) => ({ unit, resume: undefined }));
    const raw = JSON.stringify(jobs.map((job) => claudeCodeParser.parse(job.unit, { withOutputs: true })));
    expect(findLeaks(raw).length).toBeGreaterThan(38);
    // All jobs go through the workers; three (under workerThreshold) are parsed in-thread.
    for (const batch of [jobs, jobs.slice(0, 3)]) {
      const outcomes: ParseOutcome[] = [];
      for await (const outcome of parseAhead("claude-code", batch)) outcomes.push(outcome);
      const text = outcomesText(outcomes);
      expect(text).toContain("[REDACTED:");
      expect(findLeaks(text)).toEqual([]);
    }
  });

  test("a unit that cannot be read becomes an error outcome, not a failed run", async () => {
    const jobs: ParseJob[] = claudeCodeParser
      .listUnits(claudeCodeParser.scan([root]).containers)
      .map((unit) => ({ unit, resume: undefined }));
    const broken = {
      ...jobs[5]!,
      unit: { ...jobs[5]!.unit, key: join(root, "missing.jsonl"), containerPath: join(root, "missing.jsonl") },
    };
    const outcomes: ParseOutcome[] = [];
    for await (const outcome of parseAhead("claude-code", [...jobs.slice(0, 5), broken, ...jobs.slice(6)]))
      outcomes.push(outcome);
    expect(outcomes.length).toBe(jobs.length);
    expect(outcomes[5]!.ok).toBe(false);
    expect(outcomes.filter((outcome) => outcome.ok).length).toBe(jobs.length - 1);
  });
});
