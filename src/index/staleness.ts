/**
 * The staleness check run before every search: file stats only, no parsing. A source is stale
 * when the digest of its containers (paths + stats fingerprints) differs from the digest stored at
 * the end of its last complete index run. Cost: one scan per source (readdir + stat), measured by
 * `bun run bench` (a few ms on the real corpus).
 */
import type { Database } from "bun:sqlite";
import { parsers, type SourceContainer, type SourceId, type SourceRootMap } from "../parsers/index.ts";
import { digestMetaKey } from "./indexer.ts";
import { digestContainers } from "./plan.ts";
import { readMeta } from "./schema.ts";

/** Result of {@link checkStaleness}. */
export interface StalenessReport {
  stale: boolean;
  /** Sources whose containers changed, appeared or vanished since the last run. */
  staleSources: SourceId[];
}

/**
 * Compare current container stats with the stored digests (read-only; never writes).
 * @param scanned containers a caller already scanned in this process for these roots (not scanned again)
 */
export function checkStaleness(db: Database, roots: SourceRootMap, scanned: Partial<Record<SourceId, SourceContainer[]>> = {}): StalenessReport {
  const staleSources: SourceId[] = [];
  for (const parser of parsers) {
    const digest = digestContainers(scanned[parser.id] ?? parser.scan(roots[parser.id] ?? []).containers);
    if (readMeta(db, digestMetaKey(parser.id)) !== digest) staleSources.push(parser.id);
  }
  return { stale: staleSources.length > 0, staleSources };
}
