/**
 * Runs secretlint's recommended rules (`@secretlint/secretlint-rule-preset-recommend` 13.0.7: AWS, GitHub,
 * GitLab, OpenAI, Anthropic, Slack, Stripe, npm, private keys, basic auth, database URLs, … 27 rules)
 * synchronously over one string. Not through `@secretlint/core`'s `lintSource`: it is async and rebuilds every
 * rule per call, while `redactText` must stay synchronous (parse worker, level-3 reader). The rules are
 * synchronous `file(source)` handlers calling `context.report`, so this module drives them through their public
 * `SecretLintRuleCreator` contract, created once, with a minimal context; test/redact/secretlint.test.ts checks
 * it finds what `lintSource` finds. Statically imported (the preset bundles its rules): works in the binary.
 */
import type {
  SecretLintRuleContext,
  SecretLintRuleCreator,
  SecretLintRuleReportHandler,
  SecretLintSourceCode,
} from "@secretlint/types";

/** One finding: a half-open character range of the scanned text, the rule's message id and its data. */
export interface LibraryFinding {
  start: number;
  end: number;
  /** secretlint message id, e.g. `AWSSecretAccessKey`, `GITHUB_TOKEN`, `PostgreSQLConnection`. */
  messageId: string;
  /** The rule's message data (`TOKEN`, `KEY`, `URI`, … hold the matched secret text). */
  data: Record<string, unknown>;
}

/**
 * Rules left out, with why: `filter-comments` honours `secretlint-disable` comments, which in a transcript
 * would let any text switch redaction off; the GCP rule only looks at `.p12`/`.json` files by path.
 */
const skippedRuleIds = new Set(["@secretlint/secretlint-rule-filter-comments", "@secretlint/secretlint-rule-gcp"]);

/** Options per rule id: AWS access key ids (`AKIA…`) are reported only with `enableIDScanRule`. */
const ruleOptions: Record<string, object> = { "@secretlint/secretlint-rule-aws": { enableIDScanRule: true } };

/** A half-open range of the scanned text that a rule group reads. */
type Window = readonly [start: number, end: number];

/**
 * Rules whose every pattern matches inside one run of non-whitespace characters (13.0.7: vendor tokens, URLs
 * with credentials, connection strings), and whose real secrets all contain a {@link tokenGate} hit. They
 * read only the runs around those hits. Measured 2026-11-23 (2-core EPYC, 23.5 MB of capped text of 1,000
 * generated sessions): every rule over whole texts 35–56 ms/MB, windowed 10–13 ms/MB (gates included).
 */
const tokenRuleIds = new Set([
  "@secretlint/secretlint-rule-npm",
  "@secretlint/secretlint-rule-basicauth",
  "@secretlint/secretlint-rule-slack",
  "@secretlint/secretlint-rule-sendgrid",
  "@secretlint/secretlint-rule-shopify",
  "@secretlint/secretlint-rule-stripe",
  "@secretlint/secretlint-rule-github",
  "@secretlint/secretlint-rule-gitlab",
  "@secretlint/secretlint-rule-grafana",
  "@secretlint/secretlint-rule-openai",
  "@secretlint/secretlint-rule-anthropic",
  "@secretlint/secretlint-rule-groq",
  "@secretlint/secretlint-rule-huggingface",
  "@secretlint/secretlint-rule-linear",
  "@secretlint/secretlint-rule-notion",
  "@secretlint/secretlint-rule-1password",
  "@secretlint/secretlint-rule-database-connection-string",
  "@secretlint/secretlint-rule-hashicorp-vault",
  "@secretlint/secretlint-rule-vercel",
  "@secretlint/secretlint-rule-databricks",
  "@secretlint/secretlint-rule-docker",
  "@secretlint/secretlint-rule-figma",
  "@secretlint/secretlint-rule-cloudflare",
  "@secretlint/secretlint-rule-tailscale",
]);

/**
 * What every real token of those rules contains: a separator (`_` `.` `-`) followed by 16 token characters
 * (`ghp_…`, `sk-ant-api03-…`, `hvs.…`, `xoxb-…-<24>`, `glc_<base64>`, `/services/T…` of a Slack webhook),
 * Databricks' `dapi<32 hex>`, or a URL's `://`.
 */
const tokenGate = /[_.-][A-Za-z0-9_+/=-]{16}|dapi[0-9a-f]{32}/g;

/**
 * The AWS rule reads the lines around these: a key id prefix, `SECRET_ACCESS` in its rule's spellings, or an
 * `ACCOUNT[_ID] = 1234…` assignment (the three patterns of 13.0.7's rule, each cut to a necessary part).
 */
const awsGate =
  /A(?:KIA|SIA|3T[A-Z0-9]|GPA|IDA|ROA|IPA|NPA|NVA)|(?:SECRET|[Ss]ecret)_?(?:ACCESS|[Aa]ccess)|(?:ACCOUNT|[Aa]ccount)_?(?:ID|[Ii]d)?["']?\s*(?::|=>|=)\s*["']?\d/g;

/** npm patterns that are not tokens (`_authToken=…` to the line end, `…:x-oauth-basic@github.com/`). */
const hasNpmLinePattern = (text: string): boolean => text.includes("_authToken") || text.includes("x-oauth-basic");

const isAsciiSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13);

/** The maximal non-whitespace runs of `text` that contain a hit of `tokenGate` or a `://`, sorted, disjoint. */
function tokenWindows(text: string): Window[] {
  const hits: number[] = [];
  tokenGate.lastIndex = 0;
  for (let match = tokenGate.exec(text); match; match = tokenGate.exec(text)) hits.push(match.index);
  for (let at = text.indexOf("://"); at >= 0; at = text.indexOf("://", at + 3)) hits.push(at);
  hits.sort((a, b) => a - b);
  const windows: Array<[number, number]> = [];
  for (const hit of hits) {
    const last = windows.at(-1);
    if (last && hit < last[1]) continue;
    let start = hit;
    while (start > 0 && !isAsciiSpace(text.charCodeAt(start - 1))) start--;
    let end = hit;
    while (end < text.length && !isAsciiSpace(text.charCodeAt(end))) end++;
    windows.push([start, end]);
  }
  return windows;
}

/** From the start of the line of each AWS gate hit to the end of the next line (a `KEY =` may wrap once). */
function awsWindows(text: string): Window[] {
  const windows: Array<[number, number]> = [];
  awsGate.lastIndex = 0;
  for (let match = awsGate.exec(text); match; match = awsGate.exec(text)) {
    const start = text.lastIndexOf("\n", match.index) + 1;
    let end = text.indexOf("\n", match.index);
    end = end < 0 ? text.length : text.indexOf("\n", end + 1);
    end = end < 0 ? text.length : end;
    const last = windows.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else windows.push([start, end]);
    awsGate.lastIndex = end;
  }
  return windows;
}

/** The ids of the preset's rules this runner runs, in preset order. */
export function runnerRuleIds(): string[] {
  return loadHandlers().map((handler) => handler.id);
}

/** Rule ids that read only windows of the text (the others read all of it); for tests. */
export const windowedRuleIds: readonly string[] = [
  ...tokenRuleIds,
  "@secretlint/secretlint-rule-aws",
  "@secretlint/secretlint-rule-privatekey",
];

interface RuleHandler {
  id: string;
  handler: SecretLintRuleReportHandler;
}

let sink: LibraryFinding[] = [];
let handlers: RuleHandler[] | undefined;

const context: SecretLintRuleContext = {
  sharedOptions: {},
  createTranslator: (messages) => (messageId, props) => ({
    message: messages[messageId as string]?.en(props) ?? String(messageId),
    messageId: String(messageId),
    data: props,
  }),
  report: (descriptor) => {
    sink.push({
      start: descriptor.range[0],
      end: descriptor.range[1],
      messageId: descriptor.message.messageId,
      data: (descriptor.message.data ?? {}) as Record<string, unknown>,
    });
  },
  ignore: () => {},
};

/**
 * Builds the rule handlers once, on the first text to scan. The preset is required here rather than imported at
 * the top: every command loads this module through the search and index layers, and importing the preset costs
 * ~7–14 ms of start-up (measured 2026-11-23, 2-core machine) that a keyword search never uses.
 */
function loadHandlers(): RuleHandler[] {
  if (handlers) return handlers;
  const { rules: presetRules } =
    require("@secretlint/secretlint-rule-preset-recommend") as typeof import("@secretlint/secretlint-rule-preset-recommend");
  handlers = (presetRules as unknown as SecretLintRuleCreator<object>[])
    .filter((creator) => !skippedRuleIds.has(creator.meta.id))
    .map((creator) => ({ id: creator.meta.id, handler: creator.create(context, ruleOptions[creator.meta.id] ?? {}) }));
  return handlers;
}

/** A source as the rules see it: text without a file path (so path-specific checks stay off). */
function sourceOf(content: string): SecretLintSourceCode {
  const unsupported = (): never => {
    throw new Error("not available to recall's secretlint runner");
  };
  return {
    hasBOM: false,
    content,
    filePath: undefined,
    physicalFilePath: undefined,
    contentType: "text",
    ext: "",
    getFilePath: () => undefined,
    getPhysicalFilePath: () => undefined,
    locationToRange: unsupported,
    rangeToLocation: unsupported,
    positionToIndex: unsupported,
    indexToPosition: unsupported,
  };
}

/** Run `rules` over the windows of `text` joined by "\n" (no rule pattern crosses a line end), mapping back. */
function runOnWindows(
  rules: readonly RuleHandler[],
  text: string,
  windows: readonly Window[],
  found: LibraryFinding[],
): void {
  if (rules.length === 0 || windows.length === 0) return;
  const whole = windows.length === 1 && windows[0]![0] === 0 && windows[0]![1] === text.length;
  const joinedStarts: number[] = [];
  let joined = "";
  if (whole) joined = text;
  else {
    const parts: string[] = [];
    let length = 0;
    for (const [start, end] of windows) {
      joinedStarts.push(length);
      parts.push(text.slice(start, end));
      length += end - start + 1;
    }
    joined = parts.join("\n");
  }
  const before = found.length;
  runRules(rules, joined, found);
  if (whole) return;
  for (let i = before; i < found.length; i++) {
    const finding = found[i]!;
    let k = 0;
    for (let low = 0, high = joinedStarts.length - 1; low <= high; ) {
      const middle = (low + high) >> 1;
      if (joinedStarts[middle]! <= finding.start) {
        k = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    const shift = windows[k]![0] - joinedStarts[k]!;
    finding.start += shift;
    finding.end += shift;
  }
}

function runRules(rules: readonly RuleHandler[], content: string, found: LibraryFinding[]): void {
  sink = found;
  try {
    const source = sourceOf(content);
    for (const { id, handler } of rules) {
      const pending = handler.file?.(source);
      if (pending instanceof Promise)
        throw new Error(`secretlint rule ${id} became asynchronous; recall's synchronous runner needs updating`);
    }
  } finally {
    sink = [];
  }
}

/**
 * Every secret the recommended rules find in `text`, grouped by rule (ranges may overlap). By default most
 * rules read only the windows of the text where they can match (see `tokenRuleIds`, `awsGate`): the same
 * findings for every real secret format at a fraction of the cost. A rule this module does not know (a new
 * one after an upgrade) reads the whole text.
 * Synchronous: a rule that returned a Promise would be a library change this runner does not support, so it
 * throws rather than miss a secret silently (test/redact/secretlint.test.ts runs every rule).
 * @param options.windowed read windows only (default true); false runs every rule over the whole text (tests)
 * @throws Error when a rule handler turns asynchronous
 */
export function findLibrarySecrets(text: string, options: { windowed?: boolean } = {}): LibraryFinding[] {
  const found: LibraryFinding[] = [];
  const handlers = loadHandlers();
  if (options.windowed === false) {
    runRules(handlers, text, found);
    return found;
  }
  const all: Window[] = [[0, text.length]];
  const npmWhole = hasNpmLinePattern(text);
  const byWindows = (id: string) => tokenRuleIds.has(id) && !(npmWhole && id === "@secretlint/secretlint-rule-npm");
  runOnWindows(
    handlers.filter((rule) => byWindows(rule.id)),
    text,
    tokenWindows(text),
    found,
  );
  runOnWindows(
    handlers.filter((rule) => rule.id === "@secretlint/secretlint-rule-aws"),
    text,
    awsWindows(text),
    found,
  );
  if (text.includes("PRIVATE KEY"))
    runOnWindows(
      handlers.filter((rule) => rule.id === "@secretlint/secretlint-rule-privatekey"),
      text,
      all,
      found,
    );
  const known = (id: string) =>
    byWindows(id) || id === "@secretlint/secretlint-rule-aws" || id === "@secretlint/secretlint-rule-privatekey";
  runOnWindows(
    handlers.filter((rule) => !known(rule.id)),
    text,
    all,
    found,
  );
  return found;
}
