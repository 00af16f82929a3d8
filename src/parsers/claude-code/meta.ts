/**
 * Session metadata of a Claude Code transcript gathered line by line: project (`cwd`), git branch,
 * first/last record time, title candidates (`ai-title`, `summary`), the abstract's parts (compaction summaries,
 * recaps and every title the agent wrote: compaction.ts) and the `sessionId` field (the parent's id in sub-agent
 * files). JSON-serializable so a resumed parse continues it (docs/formats.md §1.2, §1.3, §1.7).
 */
import { timeOf } from "../shared/fields.ts";
import type { AbstractPart } from "../types.ts";
import { abstractPartOf } from "./compaction.ts";

/** One `summary` record (§1.3) and whether its `leafUuid` is a line of this file. */
export interface SummaryNote {
  text: string;
  leaf: string | null;
  matched: boolean;
}

/** Metadata accumulated over the lines read so far. Times are epoch ms UTC (0 = none yet). */
export interface MetaState {
  /** First `cwd` seen: where the session was started (cwd changes mid-file in a few real files, §1.2). */
  cwd: string | null;
  /** Last non-empty `gitBranch` other than `HEAD`. */
  branch: string | null;
  startedAt: number;
  endedAt: number;
  /** Last `ai-title` record's `aiTitle`. */
  aiTitle: string | null;
  summaries: SummaryNote[];
  /** Abstract parts in file order (issue 41): compaction summaries, recaps, `ai-title` and `summary` titles. */
  parts: AbstractPart[];
  /** First `sessionId` field seen (for sub-agent files: the parent session, §1.8). */
  sessionIdField: string | null;
}

/** A fresh, empty metadata state. */
export function createMeta(): MetaState {
  return {
    cwd: null,
    branch: null,
    startedAt: 0,
    endedAt: 0,
    aiTitle: null,
    summaries: [],
    parts: [],
    sessionIdField: null,
  };
}

/** Fold one decoded line into `meta` (mutates). Unknown fields and kinds are ignored. */
export function applyMeta(meta: MetaState, value: Record<string, unknown>): void {
  const t = timeOf(value.timestamp);
  if (t > 0) {
    if (meta.startedAt === 0 || t < meta.startedAt) meta.startedAt = t;
    if (t > meta.endedAt) meta.endedAt = t;
  }
  if (meta.cwd === null && typeof value.cwd === "string" && value.cwd.length > 0) meta.cwd = value.cwd;
  const branch = value.gitBranch;
  if (typeof branch === "string" && branch.length > 0 && branch !== "HEAD") meta.branch = branch;
  if (meta.sessionIdField === null && typeof value.sessionId === "string" && value.sessionId.length > 0) {
    meta.sessionIdField = value.sessionId;
  }
  const part = abstractPartOf(value);
  if (part) meta.parts.push(part);
  if (value.type === "ai-title" && typeof value.aiTitle === "string" && value.aiTitle.trim()) {
    meta.aiTitle = value.aiTitle.trim();
    meta.parts.push({ source: "agent_title", text: meta.aiTitle, at: t });
  }
  if (value.type === "summary" && typeof value.summary === "string" && value.summary.trim()) {
    meta.parts.push({ source: "agent_title", text: value.summary.trim(), at: t });
    meta.summaries.push({
      text: value.summary.trim(),
      leaf: typeof value.leafUuid === "string" ? value.leafUuid : null,
      matched: false,
    });
  }
}

/** Mark summaries whose `leafUuid` is among `uuids` (lines of this file). */
export function matchSummaries(meta: MetaState, uuids: ReadonlySet<string>): void {
  for (const note of meta.summaries)
    if (!note.matched && note.leaf !== null && uuids.has(note.leaf)) note.matched = true;
}

/**
 * The session title: `ai-title` (last), else the last `summary` whose leaf is in this file, else the
 * last `summary` at all (its leaf may be in another file, §1.7), else null. The `slug` (`cuddly-floating-comet`) is a
 * random name, not a title (issue 11): without a title the display shows the first prompt.
 * Sub-agents prefer the description from their `.meta.json` (passed as `agentDescription`).
 */
export function pickTitle(meta: MetaState, agentDescription: string | null = null): string | null {
  if (agentDescription) return agentDescription;
  if (meta.aiTitle) return meta.aiTitle;
  const matched = meta.summaries.filter((note) => note.matched);
  const last = matched.at(-1) ?? meta.summaries.at(-1);
  return last?.text ?? null;
}
