/**
 * Change detection: what an index run must do for one source, computed from file stats and the
 * stored state, before any parsing. Two stages (issue 3): containers by stats fingerprint (a
 * Claude JSONL file; an OpenCode db + WAL; a JSON storage folder), then, only when a container
 * changed or vanished, units by change key (Claude size + mtime; OpenCode `time_updated`).
 */
import type { Database } from "bun:sqlite";
import type { Parser, ParserHooks, ResumeState, SourceContainer, SourceUnit } from "../parsers/index.ts";

/** Work for one source. */
export interface SourcePlan {
  /** Every container found now (to store as the new fingerprints). */
  containers: SourceContainer[];
  /** Units to parse, each with the resume state stored from the last parse (undefined = full parse). */
  toParse: Array<{ unit: SourceUnit; resume: ResumeState | undefined; isNew: boolean }>;
  /** Rowids of indexed sessions whose unit vanished. */
  toRemove: number[];
  /** Indexed sessions that need nothing. */
  unchanged: number;
  /** Roots that do not exist (informational). */
  missingRoots: string[];
}

/**
 * Digest of a container list: order-independent hash of `path\tfingerprint` lines (Bun.hash,
 * wyhash 64-bit, hex). Equal digests mean no container changed, appeared or vanished.
 */
export function digestContainers(containers: readonly SourceContainer[]): string {
  const lines = containers.map((container) => `${container.path}\t${container.fingerprint}`).sort();
  return Bun.hash(lines.join("\n")).toString(16);
}

/**
 * Plan one source.
 * @param full ignore stored fingerprints, change keys and resume states (re-parse everything)
 */
export function planSource(db: Database, parser: Parser, roots: string[], full: boolean, hooks: ParserHooks = {}): SourcePlan {
  const scan = parser.scan(roots);
  const stored = new Map<string, string>();
  for (const row of db.query<{ path: string; fingerprint: string }, [string]>("SELECT path, fingerprint FROM containers WHERE source = ?").all(parser.id)) {
    stored.set(row.path, row.fingerprint);
  }
  const anyChange =
    full || scan.containers.length !== stored.size || scan.containers.some((container) => stored.get(container.path) !== container.fingerprint);
  const indexedCount = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sessions WHERE source = ?").get(parser.id)?.n ?? 0;
  if (!anyChange) return { containers: scan.containers, toParse: [], toRemove: [], unchanged: indexedCount, missingRoots: scan.missingRoots };

  const units = parser.listUnits(scan.containers, hooks);
  const indexed = new Map<string, { id: number; change_key: string; resume_state: string | null }>();
  for (const row of db
    .query<{ id: number; unit_key: string; change_key: string; resume_state: string | null }, [string]>(
      "SELECT id, unit_key, change_key, resume_state FROM sessions WHERE source = ?",
    )
    .all(parser.id)) {
    indexed.set(row.unit_key, row);
  }
  const plan: SourcePlan = { containers: scan.containers, toParse: [], toRemove: [], unchanged: 0, missingRoots: scan.missingRoots };
  const listed = new Set<string>();
  for (const unit of units) {
    listed.add(unit.key);
    const row = indexed.get(unit.key);
    if (row && !full && row.change_key === unit.changeKey) {
      plan.unchanged++;
      continue;
    }
    const resume = row && !full && row.resume_state ? (JSON.parse(row.resume_state) as ResumeState) : undefined;
    plan.toParse.push({ unit, resume, isNew: !row });
  }
  for (const [key, row] of indexed) if (!listed.has(key)) plan.toRemove.push(row.id);
  return plan;
}
