/**
 * Secret redaction (issue 9): every text recall stores, embeds, sends to an endpoint or prints passes through
 * here first. Sits beside the parsers (knows the normalized model only); applied by the parse pipeline and the
 * level-3 reader. Findings of secretlint's recommended rules (secretlint.ts: vendor keys by shape) and of
 * recall's own rules are merged: rules.ts (values of secret-like names, Bearer and URL credentials, JWTs, clipped
 * keys), provider-tokens.ts (vendor tokens by prefix that secretlint has no rule for, after gitleaks' rules) and
 * command-lines.ts (`mysql -pX`, `curl -u user:X`, `--password X`, cookies, `.netrc`; issue 37); each secret becomes `[REDACTED:<kind>]`, e.g. `[REDACTED:github-token]`. Idempotent.
 * Cost (2026-11-23, 2-core EPYC, 3,000 generated sessions, capped tool outputs): 0.29–0.34 ms per session beside
 * 0.64 ms to parse it, on the parse worker; a full index run's wall time did not change measurably. On the generated
 * 20k corpus (2026-11-23, 2-core Xeon, one thread, scripts/bench/first-index.ts --phases): 5.4 s for 25,292 sessions
 * (0.21 ms each) beside 11.2 s to parse them.
 */
import type { FileChange, ParseResult, ResumeState, Session, SourceUnit, ToolCall, Turn } from "../parsers/index.ts";
import { findCommandLineSecrets } from "./command-lines.ts";
import { findProviderTokens } from "./provider-tokens.ts";
import { findClippedTail, findContextSecrets, markerPrefix, type SecretRange } from "./rules.ts";
import { findLibrarySecrets, type LibraryFinding } from "./secretlint.ts";

export { entropyBits, looksLikeCredential, classifyKey, type SecretRange } from "./rules.ts";

/** Texts shorter than this cannot hold a secret any rule reports (`pwd=abcd` is 8). */
const minimumLength = 8;

/**
 * secretlint message id → marker kind. Examples: `AWSSecretAccessKey` → `aws-secret-access-key`;
 * `GITHUB_TOKEN` → `github-token`; `PostgreSQLConnection` → `postgre-sql-connection`.
 */
export function kindOfMessageId(messageId: string): string {
  return messageId
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .replace(/_/g, "-")
    .toLowerCase();
}

/** Data fields of secretlint messages that describe the finding rather than hold the secret. */
const descriptiveData = new Set(["FILE_NAME", "typeName"]);

/** Connection strings and basic-auth URLs: only the password inside `scheme://user:password@` is secret. */
const urlPassword = /:\/\/[^:/\s@]*:([^@/\s]+)@/;

/**
 * Where a library finding's secret is in `text` (one text of a batch). secretlint's ranges are not always
 * the secret (13.0.7's AWS secret rule reports the offset of the whole `KEY=value` match with the length of
 * the value), so the secret text from the message data is located instead; the reported range (already
 * relative to `text`) is the fallback.
 */
function rangesOfFinding(text: string, finding: LibraryFinding, start: number, end: number): SecretRange[] {
  const kind = kindOfMessageId(finding.messageId);
  const values = Object.entries(finding.data)
    .filter(([name, value]) => !descriptiveData.has(name) && typeof value === "string" && value.length >= minimumLength)
    .map(([, value]) => value as string);
  const ranges: SecretRange[] = [];
  let alreadyRedacted = false;
  for (let value of values) {
    const password = urlPassword.exec(value)?.[1];
    if (password !== undefined) {
      alreadyRedacted ||= password.startsWith(markerPrefix);
      if (alreadyRedacted) continue;
      value = password;
    }
    const valueKind = password === undefined ? kind : "url-password";
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + value.length)) {
      ranges.push({ start: at, end: at + value.length, kind: valueKind });
    }
  }
  if (ranges.length === 0 && !alreadyRedacted && end > start) ranges.push({ start, end, kind });
  return ranges;
}

/** Sort and merge overlapping ranges (the first range's kind names the merged one). */
function mergeRanges(ranges: SecretRange[]): SecretRange[] {
  ranges.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretRange[] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range.start < last.end) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

/** Joins the texts of a batch: no rule matches across a line that holds only NUL. */
const separator = "\n\u0000\n";

/** Index of the text of a batch that holds joined offset `offset` (texts start at `starts[i]`). */
function textAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * The secret ranges of each text, sorted and merged (character offsets into that text, half-open): the
 * same as calling {@link findSecrets} on each, with one pass of every rule over the texts joined (a
 * session has thousands of short texts; per-call overhead was 60% of the cost, measured 2026-11-23).
 */
export function findSecretsInEach(texts: readonly string[]): SecretRange[][] {
  const found: SecretRange[][] = texts.map(() => []);
  const members = texts.map((_, i) => i).filter((i) => texts[i]!.length >= minimumLength);
  if (members.length === 0) return found;
  const starts: number[] = [];
  let length = 0;
  for (const i of members) {
    starts.push(length);
    length += texts[i]!.length + separator.length;
  }
  const joined = members.map((i) => texts[i]).join(separator);
  const place = (offset: number) => {
    const k = textAt(starts, offset);
    return { k, text: texts[members[k]!]!, base: starts[k]! };
  };
  // Library findings first: on equal ranges their kind (`aws-secret-access-key`) beats a context rule's (`secret`).
  for (const finding of findLibrarySecrets(joined)) {
    const { k, text, base } = place(finding.start);
    if (finding.start - base >= text.length) continue;
    const end = Math.min(finding.end - base, text.length);
    found[members[k]!]!.push(...rangesOfFinding(text, finding, finding.start - base, end));
  }
  const contextRanges = findContextSecrets(joined);
  findProviderTokens(joined, contextRanges);
  findCommandLineSecrets(joined, contextRanges);
  for (const range of contextRanges) {
    const { k, text, base } = place(range.start);
    if (range.start - base >= text.length) continue;
    found[members[k]!]!.push({
      start: range.start - base,
      end: Math.min(range.end - base, text.length),
      kind: range.kind,
    });
  }
  return found.map((ranges, i) => {
    const tail = findClippedTail(texts[i]!);
    if (tail) ranges.push(tail);
    return ranges.length === 0 ? ranges : mergeRanges(ranges);
  });
}

/** The ranges of `text` that hold secrets, sorted and merged (character offsets, half-open). */
export function findSecrets(text: string): SecretRange[] {
  return findSecretsInEach([text])[0]!;
}

/**
 * `text` with `ranges` replaced by markers, cut at `cut` (characters of `text`): a range that starts before
 * the cut is replaced whole, so a secret straddling the cut leaves no partial copy behind.
 */
function applyRanges(text: string, ranges: readonly SecretRange[], cut = text.length): string {
  if (ranges.length === 0) return cut === text.length ? text : text.slice(0, cut);
  let out = "";
  let at = 0;
  for (const range of ranges) {
    if (range.start >= cut) break;
    out += `${text.slice(at, range.start)}${markerPrefix}${range.kind}]`;
    at = range.end;
  }
  return at < cut ? out + text.slice(at, cut) : out;
}

/**
 * Returns `text` with every secret replaced by a `[REDACTED:<kind>]` marker; unchanged when there is none.
 * Synchronous and idempotent (`redactText(redactText(x)) === redactText(x)`).
 * Examples: `DB_PASSWORD=hunter2x` → `DB_PASSWORD=[REDACTED:password]`;
 *   `curl -H "Authorization: Bearer eyJhbGciOi…"` → `curl -H "Authorization: Bearer [REDACTED:jwt]"`;
 *   `token ghp_…36 chars` → `token [REDACTED:github-token]`; `postgres://app:s3cret@db/x` →
 *   `postgres://app:[REDACTED:url-password]@db/x`.
 */
export function redactText(text: string): string {
  return applyRanges(text, findSecrets(text));
}

/** {@link redactText} of each text, in one batch (see {@link findSecretsInEach}); same result, faster. */
export function redactTexts(texts: readonly string[]): string[] {
  const found = findSecretsInEach(texts);
  return texts.map((text, i) => applyRanges(text, found[i]!));
}

/**
 * Rewrites one text; a parse result is walked twice with it, once to collect and once to replace.
 * `isOutput` marks a tool output, which is capped (see {@link RedactOptions}) before it is redacted.
 */
type TextMapper = (text: string, isOutput?: boolean) => string;

/** Options of {@link redactParseResult}. */
export interface RedactOptions {
  /**
   * Shortens a tool output to what will be kept (the index archives 40 lines / 4 KB plus a note line). It must
   * return `text` itself or a prefix of it followed by a suffix that holds no session text. Only the kept
   * prefix (and `outputContextChars` after it, so a secret cut by the cap is still recognized and replaced
   * whole) is redacted: redacting whole outputs would cost more than the rest of an index run.
   * Default: outputs are redacted whole.
   */
  capOutput?: (text: string) => string;
  /**
   * Leave each tool call's `change` out of the result instead of redacting it. For the index, which stores no file
   * changes: they were a fifth of the text to scan on the real corpus (0.95 of 4.7 MB, 2026-11-28). Default false.
   */
  dropFileChanges?: boolean;
}

/** Characters after a cap that are scanned with the kept prefix (longer than any one-line secret). */
export const outputContextChars = 1024;

function mapFileChange(change: FileChange, map: TextMapper): FileChange {
  const copy: FileChange = { ...change, path: map(change.path) };
  if (change.edits !== undefined)
    copy.edits = change.edits.map((edit) => ({ ...edit, before: map(edit.before), after: map(edit.after) }));
  if (change.content !== undefined) copy.content = map(change.content);
  if (change.patch !== undefined) copy.patch = map(change.patch);
  return copy;
}

function mapToolCall(call: ToolCall, map: TextMapper): ToolCall {
  const copy: ToolCall = { ...call, name: map(call.name), input: map(call.input) };
  if (call.filePath !== undefined) copy.filePath = map(call.filePath);
  if (call.output !== undefined) copy.output = map(call.output, true);
  if (call.change !== undefined) copy.change = mapFileChange(call.change, map);
  return copy;
}

function mapTurn(turn: Turn, map: TextMapper): Turn {
  return {
    ...turn,
    prompt: map(turn.prompt),
    response: map(turn.response),
    toolCalls: turn.toolCalls.map((call) => mapToolCall(call, map)),
    files: turn.files.map((file) => map(file)),
  };
}

function mapSession(session: Session, map: TextMapper): Session {
  return {
    ...session,
    projectPath: map(session.projectPath),
    projectName: map(session.projectName),
    gitBranch: session.gitBranch === null ? null : map(session.gitBranch),
    title: session.title === null ? null : map(session.title),
    ...(session.abstract ? { abstract: session.abstract.map((part) => ({ ...part, text: map(part.text) })) } : {}),
  };
}

/**
 * Keys of resume states whose strings are identifiers or hashes, not session text: left as they are so the
 * parser can still match uuids and byte windows. A working folder (`cwd`), a branch and a file path are session
 * text like any other (issue 37: a token in a folder name or a branch name was stored raw); the parsers only copy
 * them into the session, so a redacted copy gives the same result as redacting the parse. `output` holds tool
 * outputs.
 */
const structuralKeys = new Set([
  "kind",
  "u",
  "p",
  "lp",
  "mid",
  "id",
  "k",
  "anchor",
  "prefixHash",
  "lastTurnHash",
  "leaf",
  "sessionIdField",
]);

function mapJson(value: unknown, key: string | undefined, map: TextMapper): unknown {
  if (typeof value === "string")
    return key !== undefined && structuralKeys.has(key) ? value : map(value, key === "output");
  if (Array.isArray(value)) return value.map((item) => mapJson(item, key, map));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const name in value) out[name] = mapJson((value as Record<string, unknown>)[name], name, map);
    return out;
  }
  return value;
}

function mapParseResult(result: ParseResult, map: TextMapper): ParseResult {
  const mapped: ParseResult = {
    ...result,
    session: mapSession(result.session, map),
    turns: result.turns.map((turn) => mapTurn(turn, map)),
  };
  if (result.resume !== undefined) mapped.resume = mapJson(result.resume, undefined, map) as ResumeState;
  return mapped;
}

/**
 * Length of the common prefix of two strings. A capped output is usually the text's prefix up to its last line
 * break plus a one-line note, so the last line break of `b` is tried first (one native compare) and extended;
 * otherwise a binary search over native prefix compares.
 */
function commonPrefixLength(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  let low = 0;
  const lastBreak = b.lastIndexOf("\n", shorter);
  if (lastBreak > 0 && a.startsWith(b.slice(0, lastBreak))) {
    low = lastBreak;
    while (low < shorter && a.charCodeAt(low) === b.charCodeAt(low)) low++;
    return low;
  }
  let high = shorter;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (a.startsWith(b.slice(0, middle))) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** One text of a batch: what is scanned, where to cut it, what follows the cut (a cap's note), and the result once known. */
interface BatchItem {
  scanned: number;
  cut: number | undefined;
  suffix: string;
  redacted?: string;
}

/**
 * Redact every text `walk` visits in one batch: collect (capping outputs), scan each distinct text once
 * (a resume state repeats the last turn's texts), then walk again replacing each text. A text seen again is
 * neither capped nor replaced twice.
 */
function redactAll<T>(walk: (map: TextMapper) => T, options: RedactOptions): T {
  const scanned: string[] = [];
  const indexOf = new Map<string, number>();
  const textItems = new Map<string, BatchItem>();
  const outputItems = new Map<string, BatchItem>();
  const items: BatchItem[] = [];
  const add = (text: string): number => {
    let index = indexOf.get(text);
    if (index === undefined) {
      index = scanned.push(text) - 1;
      indexOf.set(text, index);
    }
    return index;
  };
  const itemOf = (text: string, isOutput: boolean): BatchItem => {
    const capped = isOutput && options.capOutput ? options.capOutput(text) : text;
    if (capped === text) return { scanned: add(text), cut: undefined, suffix: "" };
    const cut = commonPrefixLength(text, capped);
    return { scanned: add(text.slice(0, cut + outputContextChars)), cut, suffix: capped.slice(cut) };
  };
  walk((text, isOutput = false) => {
    const known = isOutput ? outputItems : textItems;
    let item = known.get(text);
    if (item === undefined) {
      item = itemOf(text, isOutput);
      known.set(text, item);
    }
    items.push(item);
    return text;
  });
  const found = findSecretsInEach(scanned);
  let next = 0;
  return walk(() => {
    const item = items[next++]!;
    item.redacted ??= applyRanges(scanned[item.scanned]!, found[item.scanned]!, item.cut) + item.suffix;
    return item.redacted;
  });
}

/**
 * Locator keys whose values are session text rather than places in the source: Codex's `indexTitle` (the title
 * `session_index.jsonl` gives), Gemini CLI's and Cursor's `projectPath` (the working folder). The parsers only copy
 * them into the session, which is redacted the same way.
 */
const locatorTextKeys = new Set(["indexTitle", "projectPath"]);

/**
 * Returns a unit locator (stored in `sessions.unit_locator` to re-read the source) with its session texts redacted
 * (see {@link locatorTextKeys}); every other value is a place or a flag the parser needs as it is. The same object
 * when there is nothing to redact.
 */
export function redactUnitLocator(locator: NonNullable<SourceUnit["locator"]>): NonNullable<SourceUnit["locator"]> {
  const keys = Object.keys(locator).filter((key) => locatorTextKeys.has(key) && typeof locator[key] === "string");
  if (keys.length === 0) return locator;
  const redacted = redactTexts(keys.map((key) => locator[key] as string));
  return { ...locator, ...Object.fromEntries(keys.map((key, i) => [key, redacted[i]!])) };
}

/**
 * Returns a copy of a parse result with every text of the normalized model redacted with {@link redactText} (in
 * one batch); the input is not modified. Redacted: the session's title, project path and name and git branch; each
 * turn's prompt, response and files; each tool call's name, input, file path, output and file change (path, edits'
 * before and after, written content, patch); the resume state. Kept as they are: ids (session, parent, sub-agent),
 * the source id, the session's `location` (the source file, which recall must re-read) and the skip report (places
 * in that file), times, counts and flags. This is the one redaction path for a parse result: the index writes its
 * output (parse-pipeline.ts) and every level-3 reader returns it (read-session.ts). With `options.capOutput`, tool
 * outputs (in turns and in the resume state) come back capped; with `options.dropFileChanges`, without `change`.
 */
export function redactParseResult(result: ParseResult, options: RedactOptions = {}): ParseResult {
  const kept = options.dropFileChanges ? withoutFileChanges(result) : result;
  return redactAll((map) => mapParseResult(kept, map), options);
}

/** `result` with no tool call's `change` (shallow copies of what changes). */
function withoutFileChanges(result: ParseResult): ParseResult {
  const turns = result.turns.map((turn) =>
    turn.toolCalls.some((call) => call.change !== undefined)
      ? { ...turn, toolCalls: turn.toolCalls.map(({ change: _change, ...call }) => call) }
      : turn,
  );
  return { ...result, turns };
}
