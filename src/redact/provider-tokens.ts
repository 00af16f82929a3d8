/**
 * Vendor tokens known by a prefix that secretlint's recommended preset (secretlint.ts) has no rule for (issue 37):
 * each pattern is the token shape of the gitleaks rule named beside it (gitleaks v8, cmd/generate/config/rules/*.go,
 * MIT licence), matched anywhere a token can stand: in prose, a value, a folder path or a branch name. A match needs
 * no letter, digit or `_` right before it and no letter or digit right after it, so a token inside a longer word is
 * not cut; `-` may follow (a branch named `fix/<token>-leak`).
 */
import type { SecretRange } from "./rules.ts";

/** [marker kind, token pattern source] per vendor. */
const patterns: ReadonlyArray<readonly [string, string]> = [
  ["gitlab-token", String.raw`glptt-[0-9a-f]{40}|GR1348941[\w-]{20}|gldt-[\w-]{20}`], // gitlab-ptt, gitlab-rrt, gitlab-deploy-token
  ["slack-token", String.raw`xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`], // slack-app-token
  ["twilio-api-key", "SK[0-9a-f]{32}"], // twilio-api-key
  ["sendgrid-api-key", String.raw`SG\.[\w-]{22}\.[\w-]{43}`], // sendgrid-api-token
  ["pypi-token", String.raw`pypi-AgEIcHlwaS5vcmc[\w-]{50,}`], // pypi-upload-token
  ["rubygems-token", "rubygems_[0-9a-f]{48}"], // rubygems-api-token
  ["digitalocean-token", "do[opr]_v1_[0-9a-f]{64}"], // digitalocean-pat, -access-token, -refresh-token
  ["doppler-token", String.raw`dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}`], // doppler-api-token
  ["dynatrace-token", String.raw`dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}`], // dynatrace-api-token
  ["postman-api-key", "PMAK-[0-9a-f]{24}-[0-9a-f]{34}"], // postman-api-token
  ["pulumi-token", "pul-[0-9a-f]{40}"], // pulumi-api-token
  ["age-secret-key", "AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"], // age-secret-key
  ["google-api-key", String.raw`AIza[\w-]{35}`], // gcp-api-key
  ["google-client-secret", String.raw`GOCSPX-[\w-]{28}`], // gcp-oauth-client-secret (Google's documented prefix)
  ["new-relic-key", "NR(?:AK|II|JS)-[A-Za-z0-9]{19,32}"], // new-relic-user-api-key, -insert-key, -browser-api-token
  ["square-token", String.raw`EAAA[\w-]{60}|sq0(?:atp|csp)-[\w-]{22,43}`], // square-access-token, square-secret
  ["flutterwave-key", "FLW(?:SECK|PUBK)(?:_TEST)?-[0-9a-f]{32}-X"], // flutterwave-secret-key, -public-key
  ["fly-io-token", String.raw`fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}`], // flyio-access-token
  ["planetscale-token", String.raw`pscale_(?:tkn|pw|oauth)_[\w=.-]{32,64}`], // planetscale-api-token, -password, -oauth-token
  ["prefect-token", "pnu_[A-Za-z0-9]{36}"], // prefect-api-token
  ["readme-token", "rdme_[a-z0-9]{70}"], // readme-api-token
  ["sourcegraph-token", "sgp_(?:[0-9a-fA-F]{16}_|local_)?[0-9a-fA-F]{40}"], // sourcegraph-access-token
  ["easypost-key", "EZ[AT]K[A-Za-z0-9]{54}"], // easypost-api-token, -test-api-token
  ["clojars-token", "CLOJARS_[a-z0-9]{60}"], // clojars-api-token
  ["alibaba-access-key-id", "LTAI[A-Za-z0-9]{20}"], // alibaba-access-key-id
  ["contentful-token", String.raw`CFPAT-[\w-]{43}`], // contentful-delivery-api-token (personal access token)
  ["1password-token", "ops_eyJ[A-Za-z0-9+/=_-]{250,}"], // 1password-service-account-token
  ["openshift-token", String.raw`sha256~[\w-]{43}`], // openshift-user-token
  ["airtable-token", String.raw`pat[A-Za-z0-9]{14}\.[0-9a-f]{64}`], // airtable-personnal-access-token
  ["replicate-token", "r8_[A-Za-z0-9]{37}"], // Replicate's documented `r8_` prefix
  ["groq-api-key", "gsk_[A-Za-z0-9]{52}"], // Groq's documented `gsk_` prefix
  ["perplexity-api-key", "pplx-[A-Za-z0-9]{48}"], // perplexity-api-key
  ["xai-api-key", "xai-[A-Za-z0-9]{80}"], // xAI's documented `xai-` prefix
  ["supabase-token", "sbp_[0-9a-f]{40}"], // Supabase's documented `sbp_` prefix
  ["stripe-key", "(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{24,247}"], // stripe-access-token
  ["mailgun-key", "key-[0-9a-f]{32}"], // mailgun-private-api-token
  ["huggingface-token", "api_org_[A-Za-z]{34}"], // huggingface-organization-api-token
  ["intra42-secret", "s-s4t2(?:ud|af)-[0-9a-f]{64}"], // intra42-client-secret
  ["sentry-token", "sntrys_eyJ[A-Za-z0-9+/=_-]{60,}|sntryu_[0-9a-f]{64}"], // sentry-org-token, sentry-user-token
  ["atlassian-token", "ATATT3[A-Za-z0-9_=-]{100,}"], // atlassian-api-token
  ["heroku-api-key", "HRKU-AA[0-9a-zA-Z_-]{58}"], // heroku-api-key-v2
  ["facebook-token", "EAA[MC][A-Za-z0-9]{100,}"], // facebook-page-access-token
  ["slack-token", String.raw`xox[os]-\d+-\d+-\d+-[0-9a-fA-F]+`], // slack-legacy-token
  ["slack-token", String.raw`xox[ep]\.xox[bp]-\d-[A-Za-z0-9]{100,}|xoxe-\d-[A-Za-z0-9]{100,}`], // slack-config-*-token
  ["sonar-token", "sq[upa]_[A-Za-z0-9]{40}"], // sonar-api-token
  ["1password-secret-key", "A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}"], // 1password-secret-key
  ["aws-bedrock-key", "ABSK[A-Za-z0-9+/]{109,269}={0,2}"], // aws-amazon-bedrock-api-key-long-lived
];

// gitleaks discord-webhook: the id and token after the webhook path (found apart: the path is not a token start).
const discordWebhook = /(?<=discord(?:app)?\.com\/api\/webhooks\/)\d{17,20}\/[\w-]{60,68}(?![\w-])/g;

// gitleaks azure-ad-client-secret: three characters, a digit and `Q~`, found by its `Q~`.
const azureClientSecret = /(?<![\w~.])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])/g;

// gitleaks hashicorp-tf-api-token: its 14-character id has no prefix, so it is found by its `.atlasv1.` middle.
const terraformToken = /(?<![A-Za-z0-9_])[A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,70}(?![A-Za-z0-9])/g;

/**
 * The first two characters of every pattern's literal prefix (`glptt-` → `gl`): a candidate that starts otherwise
 * is not tried. Kept by hand beside {@link patterns}; the planted-set test fails when a prefix is missing.
 */
const tokenStarts = new Set(
  "gl GR xa SK SG py ru do dp dt PM pu AG AI GO NR EA sq FL fo fm ps pn rd sg EZ CL LT CF op sh pa r8 gs pp sb sk rk ke ap s- sn AT HR xo A3 AB"
    .split(" ")
    .map((pair) => pairCode(pair, 0)),
);

/** The two UTF-16 code units at `at` of `text` as one number (no substring is made: this runs per candidate). */
function pairCode(text: string, at: number): number {
  return (text.charCodeAt(at) << 16) | text.charCodeAt(at + 1);
}

/**
 * One sticky expression with one capture group per vendor (group i + 1 is `patterns[i]`), tried only where a token
 * can start: the whole alternation run at every place of a text cost 37 ms/MB, tried at candidates 8 ms/MB
 * (measured 2026-11-28 on the real corpus's 3.8 MB of session text, 2-core EPYC shared with other jobs).
 */
const providerToken = new RegExp(`(?:${patterns.map(([, source]) => `(${source})`).join("|")})(?![A-Za-z0-9])`, "y");

/**
 * Where a token can start: a letter or digit after anything but a letter, digit or `_`, followed by 19 more token
 * characters (the shortest pattern, `LTAI` and 20 characters, has 24; runs of 12 or more were twice as many
 * candidates). A token can also start after a `-` or `.` inside such a run (`fix-pul-…`).
 */
const candidate = /[A-Za-z0-9][\w.~-]{19,}/g;
/** A `-` or `.` inside a candidate run, after which a token may start. */
const innerStart = /[-.]/g;

function tryAt(text: string, start: number, out: SecretRange[]): number {
  if (!tokenStarts.has(pairCode(text, start))) return start;
  providerToken.lastIndex = start;
  const match = providerToken.exec(text);
  if (!match) return start;
  const group = match.findIndex((value, i) => i > 0 && value !== undefined);
  out.push({ start, end: start + match[0].length, kind: patterns[group - 1]![0] });
  return start + match[0].length;
}

/**
 * Every vendor token of {@link patterns} in `text`, as ranges to redact (kind `<vendor>-…`, e.g. `pulumi-token`).
 * Examples: `cd /home/dev/dop_v1_<64 hex>/app` → the token; `fix/pul-<40 hex>-leak` → the token.
 */
export function findProviderTokens(text: string, out: SecretRange[]): void {
  candidate.lastIndex = 0;
  for (let run = candidate.exec(text); run; run = candidate.exec(text)) {
    // The run starts after a character outside [\w.~-]; a token cannot start after `_` (checked here, not in the
    // expression: a look-behind at every place cost more than the whole scan).
    let at = run.index > 0 && text[run.index - 1] === "_" ? run.index : tryAt(text, run.index, out);
    innerStart.lastIndex = at - run.index;
    for (let separator = innerStart.exec(run[0]); separator; separator = innerStart.exec(run[0])) {
      const start = run.index + separator.index + 1;
      at = Math.max(start, tryAt(text, start, out));
      innerStart.lastIndex = at - run.index;
    }
    candidate.lastIndex = Math.max(candidate.lastIndex, at);
  }
  if (text.includes(".atlasv1.")) {
    for (const match of text.matchAll(terraformToken))
      out.push({ start: match.index, end: match.index + match[0].length, kind: "terraform-cloud-token" });
  }
  if (text.includes("Q~")) {
    for (const match of text.matchAll(azureClientSecret))
      out.push({ start: match.index, end: match.index + match[0].length, kind: "azure-client-secret" });
  }
  if (text.includes("/webhooks/")) {
    for (const match of text.matchAll(discordWebhook))
      out.push({ start: match.index, end: match.index + match[0].length, kind: "discord-webhook" });
  }
}
