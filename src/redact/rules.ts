/**
 * recall's own secret rules, for secrets known by their context rather than their shape (the pattern library,
 * secretlint.ts, knows shapes): any value of a password-like name and high-entropy values of secret-, token- or
 * key-like names (`.env`, YAML, JSON, code, HTTP headers); `Bearer` credentials; the password in
 * `scheme://user:password@host`; JWTs; PEM private keys, also cut short; OpenAI-style `sk-` keys the library's
 * exact-length pattern misses; the tail of a text clipped with `…`. Ranges cover the value only, so
 * `DB_PASSWORD=[REDACTED:password]` keeps its name. Rules are line-local and skip values that are already
 * markers: redacting twice changes nothing, so incremental parses that resume from redacted state converge.
 */

/** A range of the scanned text to replace, with the kind shown in the marker. */
export interface SecretRange {
  start: number;
  end: number;
  kind: string;
}

/** Marker prefix; a value that starts with it is already redacted. */
export const markerPrefix = "[REDACTED:";

/**
 * Shannon entropy of a string, in bits per character.
 * Examples: `aaaa` → 0; `abcd` → 2; a random 40-char base64 string → about 5.
 */
export function entropyBits(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * True when `value` looks like a machine-made credential rather than a word, a path or code: at least 12
 * characters, no whitespace, brackets or quotes, two of lower / upper / digit, a digit unless it is 20+
 * mixed-case letters, and at least 3 bits of entropy per character (a 16-char random alphanumeric token
 * has about 3.8). Paths, dotted names and calls are code (`auth.StaticCredential(c.host`, `Optional[str`,
 * `CacheManager` were the false positives in ../shared/corpus, 2026-11-23).
 */
export function looksLikeCredential(value: string): boolean {
  if (value.length < 12 || /[\s()[\]{}<>"'`,;]/.test(value)) return false;
  const hasLower = /[a-z]/.test(value);
  const hasUpper = /[A-Z]/.test(value);
  const hasDigit = /\d/.test(value);
  if (Number(hasLower) + Number(hasUpper) + Number(hasDigit) < 2) return false;
  if (!hasDigit && value.length < 20) return false;
  // Paths, dotted names and URLs are not credentials by shape (their own rules handle embedded secrets); a
  // `/` is allowed in base64 (an AWS secret key) that mixes cases and digits, unlike `src/ui/ButtonComponent`.
  if (/[/\\]/.test(value) && !(/^[A-Za-z0-9+/]+={0,2}$/.test(value) && hasUpper && hasLower && /\d.*\d/.test(value)))
    return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false;
  return entropyBits(value) >= 3;
}

/** Words of a key name: `DB_PASSWORD` → db, password; `apiKey` → api, key; `X-Api-Key` → x, api, key. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const passwordWords = new Set(["password", "passwd", "pass", "pwd", "passphrase", "passcode"]);
const secretWords = new Set([
  "secret",
  "token",
  "apikey",
  "credential",
  "credentials",
  "auth",
  "authorization",
  "privatekey",
  "accesskey",
  "secretkey",
]);
const keyQualifiers = new Set([
  "api",
  "access",
  "secret",
  "private",
  "signing",
  "encryption",
  "master",
  "client",
  "auth",
  "session",
  "license",
  "account",
]);

/**
 * How a key name is treated: `password` (any value), `secret` (high-entropy values), or null (not secret).
 * Examples: `DB_PASSWORD`, `PGPASSWORD` → password; `apiKey`, `X-Auth-Token` → secret; `sort_key` → null.
 */
export function classifyKey(key: string): "password" | "secret" | null {
  const words = keyWords(key);
  // `PGPASSWORD`, `MYSQL_ROOTPASSWORD`: a password word run together with another (issue 37).
  if (words.some((word) => passwordWords.has(word) || /pass(?:word|wd)/.test(word))) return "password";
  if (words.some((word) => secretWords.has(word))) return "secret";
  for (let i = 1; i < words.length; i++) if (words[i] === "key" && keyQualifiers.has(words[i - 1]!)) return "secret";
  return null;
}

/** Type names, keywords and placeholders that are never the secret itself (`ecto://USER:PASS@HOST` in docs). */
const notValues = new Set([
  "string",
  "str",
  "number",
  "int",
  "integer",
  "bool",
  "boolean",
  "null",
  "nil",
  "none",
  "undefined",
  "true",
  "false",
  "any",
  "optional",
  "required",
  "object",
  "bytes",
  "secretstr",
  "text",
  "varchar",
  "password",
  "passwd",
  "pass",
  "pwd",
  "secret",
  "token",
  "apikey",
]);

/**
 * True when an assigned value is a reference (`$PASS`, `${{ secrets.X }}`, `%VAR%`, `{{var}}`), a placeholder
 * (`<password>`, `[hidden]`, `****`), a type name or keyword, or already a marker: not a literal secret.
 */
export function isReferenceOrPlaceholder(value: string): boolean {
  if (value.startsWith(markerPrefix)) return true;
  if (/^[$%]/.test(value) || value.startsWith("{{")) return true; // $VAR ${VAR} ${{ secrets.X }} $(cmd) %VAR% {{var}}
  if (/^<[^>]*>$/.test(value) || /^\[[^\]]*\]$/.test(value)) return true; // <your-password> [hidden]
  if (/^(?:\*+|x+|X+|\.+|•+|-+)$/.test(value)) return true; // ****, xxxx, ...
  if (notValues.has(value.toLowerCase())) return true;
  return false;
}

/** True when an unquoted value in code is an identifier, a member access or a call, not a literal. */
function isCodeExpression(value: string): boolean {
  return /^[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?:\(.*)?[,;]?$/.test(value) && !/\d/.test(value);
}

/**
 * Where an assignment may be: each `:` or `=` (one literal-class scan, 1.3 ms/MB; a case-insensitive scan
 * for the key words was 6 ms/MB, measured 2026-11-23). The key is read backwards from there.
 */
const separatorChar = /[:=]/g;
const isKeyChar = (code: number): boolean =>
  (code >= 48 && code <= 57) ||
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  code === 95 ||
  code === 45 ||
  code === 46;
// After the key: [quote] separator [quote] value (double, single or back-quoted, or a bare run). An
// `Authorization: Bearer x` style value skips its scheme word, in any case (`Authorization: token x`).
const assignedValue =
  /(["']?)[ \t]*(:=|=>|=|:)[ \t]*(?:(?:[Bb]earer|[Bb]asic|[Tt]oken|[Bb]ot|[Dd]igest)[ \t]+)?(?:"((?:[^"\\\n]|\\.){1,512})"|'([^'\n]{1,512})'|`([^`\n]{1,512})`|([^\s"'`,;)}\]]{1,512}))/y;

const keyKinds = new Map<string, "password" | "secret" | null>();

/** {@link classifyKey}, cached (keys repeat: a session has thousands of `name:` and `x =`). */
function kindOfKey(key: string): "password" | "secret" | null {
  let kind = keyKinds.get(key);
  if (kind === undefined) {
    kind = classifyKey(key);
    if (keyKinds.size > 10_000) keyKinds.clear();
    keyKinds.set(key, kind);
  }
  return kind;
}

function findAssignments(text: string, out: SecretRange[]): void {
  separatorChar.lastIndex = 0;
  for (let sep = separatorChar.exec(text); sep; sep = separatorChar.exec(text)) {
    let keyEnd = sep.index;
    while (keyEnd > 0 && sep.index - keyEnd < 4 && (text[keyEnd - 1] === " " || text[keyEnd - 1] === "\t")) keyEnd--;
    if (keyEnd > 0 && (text[keyEnd - 1] === '"' || text[keyEnd - 1] === "'")) keyEnd--;
    let keyStart = keyEnd;
    while (keyStart > 0 && keyEnd - keyStart < 80 && isKeyChar(text.charCodeAt(keyStart - 1))) keyStart--;
    if (keyEnd - keyStart < 3) continue;
    const kind = kindOfKey(text.slice(keyStart, keyEnd));
    if (!kind) continue;
    assignedValue.lastIndex = keyEnd;
    const match = assignedValue.exec(text);
    if (!match) continue;
    separatorChar.lastIndex = Math.max(separatorChar.lastIndex, match.index + match[0].length);
    const quoted = match[3] ?? match[4] ?? match[5];
    let value = quoted ?? match[6]!;
    // `'Authorization': 'Token x'`: the scheme word inside the quotes is not part of the secret.
    const scheme = quoted === undefined ? null : /^(?:bearer|basic|token|bot|digest)[ \t]+(?=\S+$)/i.exec(value);
    if (scheme) value = value.slice(scheme[0].length);
    if (value.length < 3 || isReferenceOrPlaceholder(value)) continue;
    let isSecret: boolean;
    if (kind === "password") {
      // .env lines and quoted literals: any value; elsewhere (YAML, code, prose) not a bare identifier or call.
      const lineStart = text.lastIndexOf("\n", keyStart) + 1;
      const key = text.slice(keyStart, keyEnd);
      const isEnvLine =
        match[2] === "=" &&
        /^[A-Z][A-Z0-9_]*$/.test(key) &&
        /^\s*(?:export\s+)?$/.test(text.slice(lineStart, keyStart));
      isSecret = isEnvLine || quoted !== undefined || !isCodeExpression(value);
    } else {
      isSecret = looksLikeCredential(value);
    }
    if (!isSecret) continue;
    const valueEnd = match.index + match[0].length - (quoted !== undefined ? 1 : 0);
    out.push({ start: valueEnd - value.length, end: valueEnd, kind });
  }
}

// `Bearer <token>` anywhere (`Authorization: Bearer …` is an assignment to a secret-like key as well).
const bearer = /\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)/g;

function findBearer(text: string, out: SecretRange[]): void {
  if (!text.includes("Bearer")) return; // a native substring search is 3× faster than the regex finding nothing
  for (const match of text.matchAll(bearer)) {
    const value = match[1]!;
    const start = match.index + match[0].length - value.length;
    out.push({ start, end: start + value.length, kind: "bearer-token" });
  }
}

// At a `://`: user (may be empty, as in `redis://:pw@host`), `:`, password, `@`.
const urlCredentials = /:\/\/([^\s:/?#@"'<>[\]]{0,128}):([^\s/?#@"'<>]{1,256})@/y;

function findUrlPasswords(text: string, out: SecretRange[]): void {
  for (let at = text.indexOf("://"); at > 0; at = text.indexOf("://", at + 3)) {
    urlCredentials.lastIndex = at;
    const match = urlCredentials.exec(text);
    if (!match) continue;
    const password = match[2]!;
    if (isReferenceOrPlaceholder(password)) continue;
    const end = at + match[0].length - 1;
    out.push({ start: end - password.length, end, kind: "url-password" });
  }
}

const jwt = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
// A PEM private key: base64 lines (16+ chars each, separated by real or JSON-escaped newlines), optional
// encryption headers, and the END line when it is there (a clipped text may have lost it).
const pemKey = new RegExp(
  "-----BEGIN[A-Z0-9 ]{0,20}PRIVATE KEY(?: BLOCK)?-----" +
    String.raw`(?:(?:\s|\\[nr])*(?:Proc-Type|DEK-Info|Comment|Version):[^\n\\]*)*` + // encryption headers
    String.raw`(?:(?:\s|\\[nr])*[A-Za-z0-9+/=]{16,}(?:(?:\s|\\[nr])+[A-Za-z0-9+/=]{16,})*)?` + // full base64 lines
    String.raw`(?:(?:\s|\\[nr])+[A-Za-z0-9+/=]{1,15}(?=(?:\s|\\[nr])*-----END))?` + // a short last line
    String.raw`(?:(?:\s|\\[nr])*-----END[A-Z0-9 ]{0,20}PRIVATE KEY(?: BLOCK)?-----)?`,
  "g",
);
// OpenAI (and Anthropic admin) keys the library misses: its OpenAI pattern requires the `T3BlbkFJ` marker at an
// exact offset, its Anthropic one the `api0N` form.
const openAiKey = /(?<![\w-])sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{32,200}(?![\w-])/g;

function findShapes(text: string, out: SecretRange[]): void {
  if (text.includes("eyJ")) {
    for (const match of text.matchAll(jwt))
      out.push({ start: match.index, end: match.index + match[0].length, kind: "jwt" });
  }
  if (text.includes("PRIVATE KEY")) {
    for (const match of text.matchAll(pemKey))
      out.push({ start: match.index, end: match.index + match[0].length, kind: "private-key" });
  }
  if (text.includes("sk-")) {
    for (const match of text.matchAll(openAiKey)) {
      const kind = match[0].startsWith("sk-ant-") ? "anthropic-api-key" : "openai-api-key";
      if (looksLikeCredential(match[0].slice(3)))
        out.push({ start: match.index, end: match.index + match[0].length, kind });
    }
  }
}

/**
 * Compact tool inputs are clipped at 300 characters with `…`, and a credential cut there escapes every
 * pattern: the run before a final `…` is redacted when it looks like a credential (after any `name=`).
 * Applies to one whole text (not line-local: it looks at the end of the text).
 */
export function findClippedTail(text: string): SecretRange | undefined {
  if (!text.endsWith("…")) return undefined;
  const match = /([A-Za-z0-9_+/=.:-]{12,})…$/.exec(text);
  if (!match) return undefined;
  const token = match[1]!.replace(/^.*[=:]/, "");
  if (!looksLikeCredential(token)) return undefined;
  return { start: text.length - 1 - token.length, end: text.length - 1, kind: "truncated" };
}

/**
 * Every range recall's line-local rules find in `text` (unsorted, possibly overlapping; shapes first, so
 * when ranges coincide the more specific kind names the marker: `jwt` over `bearer-token`). `text` may be
 * several texts joined by a separator line: no rule crosses a line that holds only NUL.
 */
export function findContextSecrets(text: string): SecretRange[] {
  const out: SecretRange[] = [];
  findShapes(text, out);
  findBearer(text, out);
  findAssignments(text, out);
  findUrlPasswords(text, out);
  return out;
}
