/**
 * The wire format between `recall search` and the embedding helper (issue 17: a warm path for cold CLI and skill
 * searches). One Unix socket per (index, model), in a folder only its user can open; messages are one JSON object
 * per line (UTF-8, `\n`-terminated) in both directions, one answer per request, in order.
 *
 *   → {"op":"hello"}                       ← {"ok":true,"model":{…HelperModel}}
 *   → {"op":"query","text":"…"}            ← {"ok":true,"model":{…},"vector":"<base64 of float32 little-endian>"}
 *   → {"op":"index","roots":{…}}           ← {"ok":true}   (the helper then embeds what the index lacks)
 *   → {"op":"stop"}                        ← {"ok":true}   (the helper exits)
 *   any failure                            ← {"ok":false,"error":"one line"}
 */
import type { ModelFingerprint } from "../types.ts";

/** What the helper has loaded: enough for a search to check it against the index and map the vector files. */
export interface HelperModel {
  fingerprint: ModelFingerprint;
  /** `fingerprintString(fingerprint)` */
  fingerprintKey: string;
  dims: number;
  /** process id of the helper (for `kill` and diagnostics) */
  pid: number;
}

/** Source roots as `runIndex` takes them: parser id → folders. */
export type HelperRoots = Record<string, string[]>;

/** A request line. */
export type HelperRequest =
  | { op: "hello" }
  | { op: "query"; text: string }
  | { op: "index"; roots: HelperRoots }
  | { op: "stop" };

/** An answer line. */
export type HelperResponse = { ok: true; model?: HelperModel; vector?: string } | { ok: false; error: string };

/** Longest request line the helper reads, in bytes (a query is capped at 2,000 characters; roots are paths). */
export const maxRequestBytes = 1 << 20;

/** A float32 vector as base64 of its bytes (both ends run on the same machine, so the byte order matches). */
export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

/**
 * The inverse of {@link encodeVector}.
 * @throws Error when the decoded length is not `dims` floats
 */
export function decodeVector(text: string, dims: number): Float32Array {
  const bytes = Buffer.from(text, "base64");
  if (bytes.byteLength !== dims * 4)
    throw new Error(`the helper sent ${bytes.byteLength} bytes, expected ${dims * 4} (${dims} floats)`);
  const vector = new Float32Array(dims);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}

/**
 * Splits a byte stream into lines: feed it chunks, it calls `onLine` for each complete line (without `\n`).
 * @returns the feeder; it throws Error when a line grows past `maxBytes` without its `\n`
 */
export function lineSplitter(
  onLine: (line: string) => void,
  maxBytes = maxRequestBytes,
): (chunk: Buffer | string) => void {
  let pending = "";
  return (chunk) => {
    pending += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      onLine(line);
    }
    if (pending.length > maxBytes) throw new Error(`a message longer than ${maxBytes} bytes`);
  };
}
