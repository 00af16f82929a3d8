/**
 * Bench (issue 37): redaction as a detector, and what it costs. `bun run bench redact`.
 *   (1) The planted set (test/fixtures/secrets/planted-set.ts: 291 secrets of 79 providers and command-line shapes,
 *       each in the text a session carries it in): share of secrets that leave no part behind after `redactText` →
 *       `redact-planted-recall` {recall, items, providers, misses: ["provider | shape", …]}.
 *   (2) The real corpus (../shared/corpus, every source; read only): every session parsed as the index parses it
 *       (with tool outputs) and redacted as the index redacts it (outputs capped to what the archive keeps, file
 *       changes left out) → `redact-corpus` {p50_ms, p95_ms per session of that redaction alone (median of
 *       --rounds), total_ms (their sum), level3_total_ms (once each as the level-3 readers redact: with file
 *       changes), parse_total_ms (the parses, with outputs, for scale), sessions, turns, turns_changed,
 *       changed_percent, sessions_with_changed_metadata, kinds: marker kind → turns}. A changed turn is one whose
 *       prompt, response, tool calls (name, input, path, capped output, file change) or files differ after
 *       redaction: an upper bound of the turns changed by a false positive (the corpus may hold real secrets).
 *       `--samples N` prints N changed spans per marker kind to stderr (source, session, the span with 30
 *       characters on each side) for reading them; they are not written to the results.
 * Prints one JSON line per measurement. Options: --samples N (0), --rounds N (5).
 */
import { capArchivedOutput } from "../../src/index/store/archive.ts";
import { parsers, type Turn } from "../../src/parsers/index.ts";
import { findSecrets, redactParseResult, redactText } from "../../src/redact/index.ts";
import { leakedParts, plantedSet } from "../../test/fixtures/secrets/planted-set.ts";
import { allCorpusRoots, hasCorpus } from "../../test/helpers/corpus.ts";
import { argValue, percentile, report } from "./lib.ts";

const samplesPerKind = argValue("--samples", 0);
const rounds = argValue("--rounds", 5);

function benchPlanted(): void {
  const items = plantedSet();
  const misses: string[] = [];
  const started = performance.now();
  for (const item of items)
    if (leakedParts(item, redactText(item.carrier)).length > 0) misses.push(`${item.provider} | ${item.shape}`);
  const elapsed = performance.now() - started;
  report("redact-planted-recall", [elapsed], {
    recall: Math.round(((items.length - misses.length) / items.length) * 1000) / 1000,
    items: items.length,
    providers: new Set(items.map((item) => item.provider)).size,
    misses,
  });
}

/** Every text of a turn the index keeps, in a fixed order (outputs capped as the archive caps them). */
function turnTexts(turn: Turn, capOutputs: boolean): string[] {
  const texts = [turn.prompt, turn.response, ...turn.files];
  for (const call of turn.toolCalls) {
    texts.push(call.name, call.input, call.filePath ?? "");
    texts.push(call.output === undefined ? "" : capOutputs ? capArchivedOutput(call.output) : call.output);
    const change = call.change;
    if (change)
      texts.push(
        change.path,
        change.content ?? "",
        change.patch ?? "",
        ...(change.edits ?? []).flatMap((edit) => [edit.before, edit.after]),
      );
  }
  return texts;
}

const markerKind = /\[REDACTED:([a-z0-9-]+)\]/g;

function benchCorpus(): void {
  const roots = allCorpusRoots();
  const timesMs: number[] = [];
  const kinds = new Map<string, number>();
  const shown = new Map<string, number>();
  let sessions = 0;
  let turns = 0;
  let turnsChanged = 0;
  let metadataChanged = 0;
  let level3Ms = 0;
  let parseMs = 0;
  for (const parser of parsers) {
    const sourceRoots = roots[parser.id];
    if (sourceRoots.length === 0) continue;
    const units = parser.listUnits(parser.scan(sourceRoots).containers);
    for (const unit of units) {
      let raw: ReturnType<typeof parser.parse>;
      try {
        const parseStarted = performance.now();
        raw = parser.parse(unit, { withOutputs: true });
        parseMs += performance.now() - parseStarted;
      } catch {
        continue; // unreadable here; the parser tests cover it
      }
      let redacted = raw;
      const roundTimes: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const started = performance.now();
        redacted = redactParseResult(raw, { capOutput: capArchivedOutput, dropFileChanges: true });
        roundTimes.push(performance.now() - started);
      }
      timesMs.push(percentile(roundTimes, 50));
      const level3Started = performance.now();
      redacted = redactParseResult(raw, { capOutput: capArchivedOutput }); // with diffs, as level 3 (outputs capped here)
      level3Ms += performance.now() - level3Started;
      sessions++;
      const { session } = raw;
      const metadata = [session.title ?? "", session.projectPath, session.projectName, session.gitBranch ?? ""];
      const redactedSession = redacted.session;
      const redactedMetadata = [
        redactedSession.title ?? "",
        redactedSession.projectPath,
        redactedSession.projectName,
        redactedSession.gitBranch ?? "",
      ];
      if (metadata.some((text, i) => text !== redactedMetadata[i])) metadataChanged++;
      raw.turns.forEach((turn, t) => {
        turns++;
        const before = turnTexts(turn, true);
        const after = turnTexts(redacted.turns[t]!, false);
        const changed = before.filter((text, i) => text !== after[i]);
        if (changed.length === 0) return;
        turnsChanged++;
        const turnKinds = new Set<string>();
        for (const text of after) for (const match of text.matchAll(markerKind)) turnKinds.add(match[1]!);
        for (const kind of turnKinds) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        if (samplesPerKind > 0) printSamples(parser.id, session.id, changed, shown);
      });
    }
  }
  report("redact-corpus", timesMs, {
    sessions,
    turns,
    turns_changed: turnsChanged,
    changed_percent: Math.round((turnsChanged / Math.max(1, turns)) * 100_000) / 1000,
    sessions_with_changed_metadata: metadataChanged,
    total_ms: Math.round(timesMs.reduce((sum, time) => sum + time, 0)),
    level3_total_ms: Math.round(level3Ms),
    parse_total_ms: Math.round(parseMs),
    kinds: Object.fromEntries([...kinds].sort((a, b) => b[1] - a[1])),
  });
}

/** Prints the spans the rules find in `texts` (a changed turn's original texts), up to --samples per kind. */
function printSamples(source: string, sessionId: string, texts: string[], shown: Map<string, number>): void {
  for (const text of texts) {
    for (const range of findSecrets(text)) {
      const count = shown.get(range.kind) ?? 0;
      if (count >= samplesPerKind) continue;
      shown.set(range.kind, count + 1);
      const around = (from: number, to: number) => JSON.stringify(text.slice(Math.max(0, from), to)).slice(1, -1);
      process.stderr.write(
        `sample ${range.kind} ${source} ${sessionId.slice(0, 12)}: …${around(range.start - 30, range.start)}⟦${around(range.start, Math.min(range.end, range.start + 60))}⟧${around(range.end, range.end + 30)}…\n`,
      );
    }
  }
}

benchPlanted();
if (hasCorpus) benchCorpus();
else process.stderr.write("redact: ../shared/corpus is missing; corpus rows skipped\n");
