/**
 * Which files in a vectors directory belong to a store level: segment names, sequence numbers, temp names, and
 * the cleanup of temp files left by a crashed writer. A store level is exactly the set of its complete segment
 * files `<level>-<seq>.vec`; anything else (temp files `<level>-<seq>.vec.tmp-<pid>-<ms>`) is ignored when reading.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";

/** The two logical stores: one row per session summary document, one per turn document. */
export type VectorLevel = "session" | "turn";

/** A complete segment file of one level, by name and sequence number (higher = newer). */
export interface SegmentEntry {
  readonly name: string;
  readonly seq: number;
}

const SEQ_DIGITS = 8;

/** Returns the final file name of segment `seq` of `level`, e.g. ("turn", 3) → "turn-00000003.vec". */
export function nameSegment(level: VectorLevel, seq: number): string {
  return `${level}-${String(seq).padStart(SEQ_DIGITS, "0")}.vec`;
}

/** Returns a temp name for `finalName` unique to this process and moment: "<final>.tmp-<pid>-<ms>". */
export function nameTemp(finalName: string): string {
  return `${finalName}.tmp-${process.pid}-${Date.now()}`;
}

/**
 * Creates `dir` (and missing parents) as 0700 whatever the umask, so vectors of private history are never
 * group- or world-readable (issue 9: `vectors/` was 0755, 0777 under umask 000). A folder that already exists
 * keeps its mode: recall never changes the mode of something it did not create. Returns `dir`.
 */
export function ensurePrivateDir(dir: string): string {
  const first = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return dir;
  // mkdir's mode is masked by the umask; set it explicitly on every folder this call created.
  for (let path = dir; ; path = dirname(path)) {
    chmodSync(path, 0o700);
    if (path === first || dirname(path) === path) break;
  }
  return dir;
}

/** Returns the complete segments of `level` in `dir`, oldest first; [] when the directory does not exist. */
export function listSegments(dir: string, level: VectorLevel): SegmentEntry[] {
  if (!existsSync(dir)) return [];
  const pattern = new RegExp(`^${level}-(\\d{${SEQ_DIGITS},})\\.vec$`);
  const out: SegmentEntry[] = [];
  for (const name of readdirSync(dir)) {
    const m = pattern.exec(name);
    if (m) out.push({ name, seq: Number(m[1]) });
  }
  return out.sort((a, b) => a.seq - b.seq);
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Deletes temp files of `level` whose writer process is gone (a crash mid-write); a live writer's temp file is
 * kept. Returns the names removed. Callers that write hold the index lock, so no live writer is expected.
 */
export function removeStaleTemps(dir: string, level: VectorLevel): string[] {
  if (!existsSync(dir)) return [];
  const pattern = new RegExp(`^${level}-\\d+\\.vec\\.tmp-(\\d+)-\\d+$`);
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid !== process.pid && isProcessAlive(pid)) continue;
    try {
      unlinkSync(join(dir, name));
      removed.push(name);
    } catch {
      // Already gone (another cleanup raced us): nothing to do.
    }
  }
  return removed;
}
