/**
 * The `Session` of one Claude Code unit, from its metadata and records (docs/formats.md §1.2, §1.8): project and
 * branch from the lines, times (an inline sub-agent chain: its own lines' span), the title (the tool's, an agent
 * file's `.meta.json` description, or for an inline chain the description of the Task call that started it) and, for a
 * sub-agent, its parent session; its abstract (issue 41): the compaction summaries, recaps and titles the agent wrote
 * (meta.ts), and for an `agent-acompact-*` run the summary it answered with (compaction.ts). An inline chain has none:
 * what its file holds is the main session's.
 */
import { existsSync, readFileSync } from "node:fs";
import { projectNameOf } from "../shared/fields.ts";
import { withAbstract } from "../shared/abstract.ts";
import type { AbstractPart, Session } from "../types.ts";
import { compactionSummaryText } from "./compaction.ts";
import { createMeta, pickTitle, type MetaState } from "./meta.ts";
import type { Rec } from "./records.ts";
import { describePath } from "./scan.ts";
import { taskDescriptionOf } from "./select.ts";

/** What the session is built for: the unit's id, its transcript, its chain and where the file sits. */
export interface SessionSource {
  sessionId: string;
  /** The transcript file. */
  path: string;
  /** First uuid of the inline sub-agent chain the unit is, or null. */
  sidechainRoot: string | null;
  /** The session folder of a nested agent file (`<session>/subagents/`), or null. */
  parentFromPath: string | null;
  /** Called with the bytes of every side file read (`.meta.json`), for `bytesRead`. */
  onRead(bytes: number): void;
}

/**
 * The session of a parsed unit.
 * @param recs every record of the file; @param owned the unit's own (select.ts)
 * @param turnCount main turns; @param isSubagent whether the unit is a sub-agent's
 */
export function buildSession(
  source: SessionSource,
  meta: MetaState,
  recs: readonly Rec[],
  owned: readonly Rec[],
  turnCount: number,
  isSubagent: boolean,
): Session {
  const projectPath = meta.cwd ?? "";
  let startedAt = meta.startedAt;
  let endedAt = meta.endedAt;
  let title: string | null;
  let parts: AbstractPart[] = [];
  if (source.sidechainRoot !== null) {
    // An inline chain spans its own lines, and is named by the Task call that started it.
    const times = owned.map((rec) => rec.t).filter((t) => t > 0);
    startedAt = times.length > 0 ? Math.min(...times) : 0;
    endedAt = times.length > 0 ? Math.max(...times) : 0;
    title = taskDescriptionOf(recs, owned) ?? pickTitle(createMeta());
  } else {
    title = pickTitle(meta, isSubagent ? readAgentDescription(source) : null);
    parts = describePath(source.path).kind === "acompact" ? [...meta.parts, ...answeredSummary(owned)] : meta.parts;
  }
  return withAbstract(
    {
      id: source.sessionId,
      source: "claude-code",
      projectPath,
      projectName: projectNameOf(projectPath),
      gitBranch: meta.branch,
      startedAt,
      endedAt,
      title,
      turnCount,
      parentSessionId: isSubagent ? parentSessionOf(source, meta) : null,
      isSubagent,
      location: source.path,
    },
    parts,
  );
}

/** The summary an `agent-acompact-*` run answered with: its last assistant prose, as a compaction part (or none). */
function answeredSummary(owned: readonly Rec[]): AbstractPart[] {
  for (let index = owned.length - 1; index >= 0; index--) {
    const rec = owned[index]!;
    const prose = rec.k === "assistant" ? (rec.blocks ?? []).flatMap((block) => block.text ?? []).join("\n\n") : "";
    const text = compactionSummaryText(prose);
    if (text) return [{ source: "compaction", text, at: rec.t }];
  }
  return [];
}

/**
 * The parent of a sub-agent session: the main file holding an inline chain; else the `sessionId` its lines carry
 * (§1.8: the parent's id); else, when that is missing or is the sub-agent's own id (issue 26), the session folder a
 * nested agent file sits in (`<session>/subagents/`); else null.
 */
function parentSessionOf(source: SessionSource, meta: MetaState): string | null {
  if (source.sidechainRoot !== null) return describePath(source.path).stem;
  for (const candidate of [meta.sessionIdField, source.parentFromPath]) {
    if (candidate && candidate !== source.sessionId && `agent-${candidate}` !== source.sessionId) return candidate;
  }
  return null;
}

/** `description` of `agent-<id>.meta.json` next to a nested sub-agent file (§1.1), or null. */
function readAgentDescription(source: SessionSource): string | null {
  const metaPath = source.path.replace(/\.jsonl$/, ".meta.json");
  if (metaPath === source.path || !existsSync(metaPath)) return null;
  try {
    const text = readFileSync(metaPath, "utf8");
    source.onRead(Buffer.byteLength(text));
    const value: unknown = JSON.parse(text);
    const description = (value as { description?: unknown } | null)?.description;
    return typeof description === "string" && description.trim() ? description.trim() : null;
  } catch {
    return null;
  }
}
