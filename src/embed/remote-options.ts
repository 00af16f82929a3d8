/**
 * The environment's overrides of the remote embedder's tuning (issue 12): `EMBEDDINGS_BATCH` (texts per request),
 * `EMBEDDINGS_CONCURRENCY` (requests in flight) and `EMBEDDINGS_TIMEOUT_MS` (a fixed per-request timeout instead of
 * the adaptive one). Read from the environment merged over the `.env` file (config.ts).
 */
import { UsageError } from "../errors.ts";
import type { RemoteEmbedderOptions } from "./remote-embedder.ts";

function positiveInteger(env: Record<string, string | undefined>, name: string, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new UsageError(`${name} must be a whole number from 1 to ${max}, got ${raw}`, `fix or unset ${name}`);
  return value;
}

/**
 * Returns the options the environment fixes (absent keys keep the embedder's defaults or adaptive values).
 * @throws UsageError for a value that is not a whole number in range (batch ≤ 2048, concurrency ≤ 64, timeout ≤ 3,600,000 ms)
 */
export function remoteOptionsFromEnv(env: Record<string, string | undefined>): RemoteEmbedderOptions {
  const options: RemoteEmbedderOptions = {};
  const batchSize = positiveInteger(env, "EMBEDDINGS_BATCH", 2048);
  const concurrency = positiveInteger(env, "EMBEDDINGS_CONCURRENCY", 64);
  const timeoutMs = positiveInteger(env, "EMBEDDINGS_TIMEOUT_MS", 3_600_000);
  if (batchSize !== undefined) options.batchSize = batchSize;
  if (concurrency !== undefined) options.concurrency = concurrency;
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  return options;
}
