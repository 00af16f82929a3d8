/**
 * The staleness check run before every search: file stats only, no parsing. A source is stale
 * when the digest of its containers (paths + stats fingerprints) differs from the digest stored at
 * the end of its last complete index run. Cost: one scan per source (readdir + stat), measured by
 * `bun run bench` (a few ms on the real corpus).
 */
import type { Database } from "bun:sqlite";
import { withKnownProjectFolders } from "./known-projects.ts";
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
  const effective = withKnownProjectFolders(db, roots);
  for (const parser of parsers) {
    // a pre-scan covered the given roots only: not Aider's, once the known project folders were added
    const prescanned = effective[parser.id] === roots[parser.id] ? scanned[parser.id] : undefined;
    const digest = digestContainers(prescanned ?? parser.scan(effective[parser.id] ?? []).containers);
    if (readMeta(db, digestMetaKey(parser.id)) !== digest) staleSources.push(parser.id);
  }
  return { stale: staleSources.length > 0, staleSources };
}
