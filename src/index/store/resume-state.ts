/**
 * How a session's resume state (parsers/types.ts ResumeState: where its source was read up to, and the records a
 * resumed parse needs again) is stored in `resume_states.state`: since schema v20 as zstd (level 1) of its JSON, a
 * BLOB; before, as the JSON text itself, which is still read. The JSON holds the last turn's raw records, outputs
 * included, so it was the largest table of an index of the real corpus (2.0 of 5.4 MB) and a quarter of the 20k
 * generated one (274 MB of 1.05 GB). Measured 2026-11-29 (2-core EPYC) on 3,000 stored states: zstd 1 shrinks them
 * 3.4x (real corpus) and 2.7x (generated) at 150-200 MB/s; zstd 3 gains 3% more at 0.7x the speed, gzip 1 and 3 are
 * larger or slower.
 */
import type { ResumeState } from "../../parsers/index.ts";

/** `resume_states.state` of a resume state: zstd of its JSON. */
export function encodeResumeState(state: ResumeState): Uint8Array {
  return Bun.zstdCompressSync(Buffer.from(JSON.stringify(state)), { level: 1 });
}

/**
 * The resume state of a stored `resume_states.state`: zstd of its JSON (schema v20 on), or the JSON text (before).
 * @throws Error when the bytes are not a zstd frame or the JSON does not parse (a damaged row)
 */
export function decodeResumeState(stored: Uint8Array | string): ResumeState {
  const json = typeof stored === "string" ? stored : Buffer.from(Bun.zstdDecompressSync(stored)).toString("utf8");
  return JSON.parse(json) as ResumeState;
}
