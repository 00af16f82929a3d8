/**
 * Computes the aggregate profile that `scripts/gen-corpus.ts` synthesizes from: numbers only, no
 * content (docs/style.md §4, the ccusage approach). Reads every `*.jsonl` below a Claude Code
 * corpus folder and writes quantiles of file size, turns per session, lines per turn, tool calls
 * per turn, prompt and response length, plus the record-type and tool-name mix and the share of
 * sub-agent files. Turn boundaries follow docs/formats.md §1.6/§1.9: a turn starts at a human
 * prompt (string or text/image content, not `isMeta`, not a sidechain, not command output or an
 * interrupt marker); slash commands count as prompts.
 *
 * Usage: bun scripts/gen-corpus/profile.ts [corpus/claude-code dir] > scripts/gen-corpus/profile.json
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/** Quantile points stored for every distribution (fractions in [0, 1]). */
export const quantilePoints = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1] as const;

/** The profile file's shape: every distribution is a list of values at {@link quantilePoints}. */
export interface CorpusProfile {
  source: string;
  files: number;
  mainSessions: number;
  subagentFiles: number;
  /** Share of main sessions that have at least one sub-agent file. */
  subagentSessionShare: number;
  /** Sub-agent files per session that has any. */
  subagentsPerSession: number[];
  fileSizeBytes: number[];
  subagentFileSizeBytes: number[];
  turnsPerSession: number[];
  linesPerTurn: number[];
  toolCallsPerTurn: number[];
  /** Assistant content blocks per API response (lines sharing one message.id). */
  blocksPerResponse: number[];
  promptChars: number[];
  responseChars: number[];
  toolResultChars: number[];
  /** Fraction of all lines per record `type`. */
  recordTypeMix: Record<string, number>;
  /** Fraction of all tool calls per tool name (names under 1% folded into "other"). */
  toolMix: Record<string, number>;
  /** Fraction of tool results with is_error true. */
  toolErrorShare: number;
}

// biome-ignore lint/suspicious/noExplicitAny: free-form JSON lines of real transcripts, probed field by field
type Line = Record<string, any>;

/** Value at fraction q of sorted numbers (linear interpolation); [] gives 0. */
function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return Math.round((sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)) * 10) / 10;
}

/** The {@link quantilePoints} of `values`. */
function quantiles(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return quantilePoints.map((q) => quantile(sorted, q));
}

/** Every `*.jsonl` file below `dir`, recursively. */
function listJsonl(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listJsonl(path);
    return entry.name.endsWith(".jsonl") && entry.name !== "history.jsonl" ? [path] : [];
  });
}

/** True for a user line a human typed (formats.md §1.6). */
export function isHumanPrompt(line: Line): boolean {
  if (line.type !== "user" || line.isMeta || line.isSidechain || line.isCompactSummary) return false;
  const content = line.message?.content;
  let text: string;
  if (typeof content === "string") text = content;
  else if (Array.isArray(content) && content.every((b: Line) => b.type === "text" || b.type === "image")) {
    text = content.map((b: Line) => b.text ?? "").join("\n");
  } else return false;
  const trimmed = text.trimStart();
  if (trimmed.startsWith("<local-command-stdout>") || trimmed.startsWith("<local-command-stderr>")) return false;
  return !trimmed.startsWith("[Request interrupted by user");
}

/** Text length of a prompt or tool result content (string or block list). */
function contentChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  return content.reduce((sum: number, b: Line) => sum + (typeof b.text === "string" ? b.text.length : 0), 0);
}

/** Parse lines, skipping unparsable ones. */
function readLines(path: string): Line[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .flatMap((raw) => {
      if (!raw.trim()) return [];
      try {
        return [JSON.parse(raw) as Line];
      } catch {
        return [];
      }
    });
}

/** Running totals of {@link computeProfile}: one list entry per file, session, turn or block. */
interface Accumulators {
  sizes: number[];
  subSizes: number[];
  turns: number[];
  linesPerTurn: number[];
  toolsPerTurn: number[];
  blocks: number[];
  prompts: number[];
  responses: number[];
  results: number[];
  types: Map<string, number>;
  tools: Map<string, number>;
  errors: number;
  resultCount: number;
}

/** Compute the profile of every JSONL file below `root`. */
export function computeProfile(root: string): CorpusProfile {
  const acc: Accumulators = {
    sizes: [] as number[],
    subSizes: [] as number[],
    turns: [] as number[],
    linesPerTurn: [] as number[],
    toolsPerTurn: [] as number[],
    blocks: [] as number[],
    prompts: [] as number[],
    responses: [] as number[],
    results: [] as number[],
    types: new Map<string, number>(),
    tools: new Map<string, number>(),
    errors: 0,
    resultCount: 0,
  };
  const subsBySession = new Map<string, number>();
  let mainCount = 0;
  let lineTotal = 0;
  for (const path of listJsonl(root)) {
    const isSub = path.includes("/subagents/") || /\/agent-[^/]*\.jsonl$/.test(path);
    const sizeBytes = statSync(path).size;
    const lines = readLines(path);
    lineTotal += lines.length;
    for (const line of lines) acc.types.set(String(line.type), (acc.types.get(String(line.type)) ?? 0) + 1);
    if (isSub) {
      acc.subSizes.push(sizeBytes);
      const session = lines.find((l) => typeof l.sessionId === "string")?.sessionId ?? path;
      subsBySession.set(session, (subsBySession.get(session) ?? 0) + 1);
      continue;
    }
    mainCount++;
    acc.sizes.push(sizeBytes);
    profileSession(lines, acc);
  }
  const mix = (counts: Map<string, number>, total: number, floor: number) => {
    const out: Record<string, number> = {};
    for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1])) {
      const share = n / total;
      const name = share < floor ? "other" : key;
      out[name] = Math.round(((out[name] ?? 0) + share) * 10000) / 10000;
    }
    return out;
  };
  const toolTotal = [...acc.tools.values()].reduce((a, b) => a + b, 0);
  return {
    source: "shared/corpus/claude-code (all *.jsonl except history.jsonl)",
    files: mainCount + acc.subSizes.length,
    mainSessions: mainCount,
    subagentFiles: acc.subSizes.length,
    subagentSessionShare: Math.round((subsBySession.size / mainCount) * 1000) / 1000,
    subagentsPerSession: quantiles([...subsBySession.values()]),
    fileSizeBytes: quantiles(acc.sizes),
    subagentFileSizeBytes: quantiles(acc.subSizes),
    turnsPerSession: quantiles(acc.turns),
    linesPerTurn: quantiles(acc.linesPerTurn),
    toolCallsPerTurn: quantiles(acc.toolsPerTurn),
    blocksPerResponse: quantiles(acc.blocks),
    promptChars: quantiles(acc.prompts),
    responseChars: quantiles(acc.responses),
    toolResultChars: quantiles(acc.results),
    recordTypeMix: mix(acc.types, lineTotal, 0),
    toolMix: mix(acc.tools, toolTotal, 0.01),
    toolErrorShare: Math.round((acc.errors / Math.max(1, acc.resultCount)) * 1000) / 1000,
  };
}

/** Add one main session's turns to the accumulators. */
function profileSession(lines: Line[], acc: Accumulators): void {
  let turns = 0,
    turnLines = 0,
    turnTools = 0,
    turnResponse = 0;
  const blocksByMessage = new Map<string, number>();
  const closeTurn = () => {
    if (turns === 0) return;
    acc.linesPerTurn.push(turnLines);
    acc.toolsPerTurn.push(turnTools);
    acc.responses.push(turnResponse);
  };
  for (const line of lines) {
    if (line.isSidechain) continue;
    if (isHumanPrompt(line)) {
      closeTurn();
      turns++;
      turnLines = 0;
      turnTools = 0;
      turnResponse = 0;
      acc.prompts.push(contentChars(line.message.content));
    }
    turnLines++;
    if (line.type === "assistant" && Array.isArray(line.message?.content)) {
      const id = String(line.message.id);
      blocksByMessage.set(id, (blocksByMessage.get(id) ?? 0) + line.message.content.length);
      for (const block of line.message.content) {
        if (block.type === "tool_use") {
          turnTools++;
          acc.tools.set(block.name, (acc.tools.get(block.name) ?? 0) + 1);
        }
        if (block.type === "text") turnResponse += String(block.text ?? "").length;
      }
    }
    if (line.type === "user" && Array.isArray(line.message?.content)) {
      for (const block of line.message.content) {
        if (block.type !== "tool_result") continue;
        acc.resultCount++;
        if (block.is_error === true) acc.errors++;
        acc.results.push(contentChars(block.content));
      }
    }
  }
  closeTurn();
  acc.turns.push(turns);
  acc.blocks.push(...blocksByMessage.values());
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dir, "../../../shared/corpus/claude-code"));
  process.stdout.write(`${JSON.stringify(computeProfile(root), null, 2)}\n`);
}
