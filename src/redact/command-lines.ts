/**
 * Secrets given to a command on its command line or in a header or credentials file line, where no `name=value`
 * says what they are (issue 37; rules.ts reads `name=value` and `name: value`): `mysql -pX`, `curl -u user:X`,
 * `--password X` and other secret-named flags, `config set <secret name> X` (`aws configure set
 * aws_secret_access_key X`, `npm config set //host/:_authToken X`), `docker login -p X`, `sshpass -p X`,
 * `redis-cli -a X`, `mongosh -p X`, `htpasswd -b file user X`, `Cookie:` / `Set-Cookie:` values and `curl -b`,
 * `.netrc` `password X`, `.pgpass` lines. Ranges cover the value only; values that are already markers,
 * references (`$PASS`) or placeholders (`<password>`) are left alone, so redacting twice changes nothing. Rules stay
 * within one shell command or header line, except that a command continues over lines ending in `\` and `.netrc`'s
 * `machine … password` spans blank space; none crosses the NUL line that separates the texts of a batch.
 */
import { classifyKey, isReferenceOrPlaceholder, looksLikeCredential, markerPrefix, type SecretRange } from "./rules.ts";

/**
 * A value: single- or double-quoted, or a bare run up to blank space, a quote, a shell separator or the `…` of a
 * clipped text (rules.ts findClippedTail).
 */
const value = String.raw`(?:'([^'\n]{1,256})'|"([^"\n]{1,256})"|([^\s'"\x60;|&…]{1,256}))`;

/** The command and the words after it up to the flag, in one shell command (lines ending in `\` continue it). */
const argumentsBefore = String.raw`\b(?:[^\n|;&\\]|\\\n?){0,512}?[ \t]`;

/** Pushes the value captured by {@link value} at groups `first`…`first + 2` of `match`, unless it is a reference. */
function pushValue(match: RegExpExecArray, first: number, kind: string, out: SecretRange[]): void {
  const quoted = match[first] ?? match[first + 1];
  const secret = quoted ?? match[first + 2];
  if (secret === undefined || secret.length < 3 || isReferenceOrPlaceholder(secret)) return;
  const end = match.index + match[0].length - (quoted !== undefined ? 1 : 0);
  out.push({ start: end - secret.length, end, kind });
}

/**
 * Runs sticky `pattern` at each place `word` occurs in `text`, calling `found` with each match. For words that are
 * rare in sessions (`config`, `machine`).
 */
function atWord(text: string, word: string, pattern: RegExp, found: (match: RegExpExecArray) => void): void {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length)) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match) found(match);
  }
}

/** Commands whose flag right before a value is a password: sticky patterns, tried where {@link commandWord} is. */
const passwordFlags: readonly RegExp[] = [
  // mysql, mariadb and their tools: `-pX` (a `-p` with no attached value asks at the prompt)
  new RegExp(
    `(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mariadb|mariadb-dump|mariadb-admin)${argumentsBefore}-p${value}`,
    "y",
  ),
  new RegExp(
    String.raw`(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)${argumentsBefore}-p[ \t]+${value}`,
    "y",
  ),
  new RegExp(String.raw`redis-cli${argumentsBefore}-a[ \t]+${value}`, "y"),
  new RegExp(String.raw`sshpass[ \t]+-p[ \t]*${value}`, "y"),
  new RegExp(
    String.raw`(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]+registry)[ \t]+login${argumentsBefore}-p[ \t]+${value}`,
    "y",
  ),
  // `htpasswd -b[c] file user password`, `htpasswd -nb user password`
  new RegExp(
    String.raw`htpasswd[ \t]+-[a-zA-Z]*b[a-zA-Z]*[ \t]+(?:-[a-zA-Z]+[ \t]+)*(?:\S+[ \t]+){1,2}${value}(?=[ \t]*(?:$|\n|[|;&]))`,
    "my",
  ),
];

// `curl -u user:password` / `--user user:password`, either part quoted or not (`-u token:` has the token as the
// user). With indices (`d`): the parts' places are read from the match.
const curlUser = new RegExp(
  String.raw`curl${argumentsBefore}(?:-u|--user)(?:[ \t]+|=)?(['"]?)([^\s:'"…]*)\1?:\1?(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'"…]*))`,
  "yd",
);

// `--password X`, `--token X`, `--client-secret X` (a `=` form is an assignment, read by rules.ts). The flag must
// hold a secret-like word (then classifyKey decides) and follow blank space or a line start (checked in the loop).
const spacedFlag = new RegExp(
  String.raw`--?((?:[A-Za-z][\w-]{0,40}?)?(?:pass|pwd|token|secret|key|auth|cred)[\w-]{0,30})[ \t]+${value}`,
  "gi",
);

/** Last words of a flag whose value is a place, a mode or a file, not a secret (`--password-stdin`, `--token-file`). */
const notSecretFlagEnds =
  /[-_](?:stdin|file|path|env|command|cmd|prompt|length|policy|reset|helper|store|type|name|id|url|dir|mode|method|header)$/i;

// `config set <name> <value>`: `aws configure set aws_secret_access_key X`, `npm config set //host/:_authToken X`.
const configSet = new RegExp(
  String.raw`config(?:ure)?[ \t]+set[ \t]+((?:--?[\w-]+[ \t]+\S+[ \t]+)*)([\w./:@-]+)[ \t]+${value}`,
  "y",
);

// A `Cookie:` / `Set-Cookie:` header, or `curl -b` / `--cookie`: the `name=value` pairs that follow.
const cookieHeader = /[Cc]ookie[ \t]*:[ \t]*['"]?/y;
const curlCookie = /curl\b[^\n|;&]*?[ \t](?:-b|--cookie)[ \t]+['"]?/y;
const cookiePair = /([^=;\s'"]{1,128})=([^;\s'"]{0,4096})(?:;[ \t]*)?/y;
/** Set-Cookie attributes, whose values are not secret. */
const cookieAttributes = new Set(["path", "domain", "expires", "max-age", "samesite", "priority", "partitioned"]);

// `.netrc`: `machine <host> login <user> password <secret>`, on one line or several.
const netrc = new RegExp(String.raw`machine\s+\S+(?:\s+(?:login|account)\s+\S+)*\s+password\s+${value}`, "y");

// `.pgpass`: `host:port:database:user:password` lines, read in the 4 KB around the place a text names the file.
const pgpassLine = /(?<=^|[\s'"])[\w.*-]+:(?:\d{1,5}|\*):[\w.*-]+:[\w.*-]+:([^\s'":]{3,256})(?=$|[\s'"])/gm;
const pgpassWindow = 4096;

/**
 * A short flag that may take a password, user or cookie (`-p`, `-a`, `-b`, `-u`, `-bc` of htpasswd, `--user`,
 * `--cookie`): where the command rules look back for their command. One scan for it is cheaper than one substring
 * search per command name (12 names cost 3–4 ms/MB each, measured 2026-11-28 on the real corpus).
 */
const flagHit = /[ \t](?:-[a-zA-Z]{0,3}[pabu]|--user|--cookie)/g;
/** The commands of {@link passwordFlags}, `curl -u` and `curl -b`, as a word. */
const commandWord =
  /(?<![\w-])(?:mysql|mariadb|mongo|redis-cli|sshpass|docker|podman|buildah|skopeo|nerdctl|oras|helm|htpasswd|curl)/g;
/** How far back a flag's command is looked for, on its line and the lines it continues (as far as {@link argumentsBefore} reaches). */
const commandReach = 512;

function pushCurlUser(match: RegExpExecArray, out: SecretRange[]): void {
  const user = match[2]!;
  if (`${user}:`.startsWith(markerPrefix)) return; // `-u [REDACTED:secret]:`, a token already redacted
  const group = [3, 4, 5].find((i) => match[i] !== undefined && match[i] !== "");
  if (group !== undefined) {
    const [start, end] = match.indices![group]!;
    if (!isReferenceOrPlaceholder(match[group]!)) out.push({ start, end, kind: "password" });
  } else if (looksLikeCredential(user)) {
    const [start, end] = match.indices![2]!;
    out.push({ start, end, kind: "secret" });
  }
}

/** Runs sticky `pattern` at `at` and returns the match, or null. */
function stickyAt(text: string, pattern: RegExp, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** `mysql -pX`, `docker login -p X`, `curl -u user:X`, `curl -b 'sid=X'` and the other flag commands. */
function findFlagCommands(text: string, out: SecretRange[]): void {
  const tried = new Set<number>();
  flagHit.lastIndex = 0;
  for (let hit = flagHit.exec(text); hit; hit = flagHit.exec(text)) {
    let lineStart = text.lastIndexOf("\n", hit.index) + 1;
    while (lineStart >= 2 && text[lineStart - 2] === "\\" && hit.index - lineStart < commandReach)
      lineStart = text.lastIndexOf("\n", lineStart - 2) + 1; // a continued line: the command is on an earlier one
    const from = Math.max(lineStart, hit.index - commandReach);
    const line = text.slice(from, hit.index);
    for (const command of line.matchAll(commandWord)) {
      const at = from + command.index;
      if (tried.has(at)) continue;
      tried.add(at);
      for (const pattern of passwordFlags) {
        const match = stickyAt(text, pattern, at);
        if (match) pushValue(match, 1, "password", out);
      }
      const user = stickyAt(text, curlUser, at);
      if (user) pushCurlUser(user, out);
      const cookie = stickyAt(text, curlCookie, at);
      if (cookie) pushCookieValues(text, cookie.index + cookie[0].length, out);
    }
  }
}

function findSpacedFlags(text: string, out: SecretRange[]): void {
  spacedFlag.lastIndex = 0;
  for (let match = spacedFlag.exec(text); match; match = spacedFlag.exec(text)) {
    const before = text[match.index - 1];
    if (before !== undefined && before !== " " && before !== "\t" && before !== "\n") continue;
    const flag = match[1]!;
    const kind = notSecretFlagEnds.test(flag) ? null : classifyKey(flag);
    if (kind === null) continue;
    const secret = match[2] ?? match[3] ?? match[4]!;
    if (secret.startsWith("-")) continue; // the next flag: this one takes no value
    // A password flag's value: anything but a plain word (`--password flag`, `--password prompt`).
    const isSecret = kind === "password" ? !/^[a-z]+$/.test(secret) : looksLikeCredential(secret);
    if (isSecret) pushValue(match, 2, kind, out);
  }
}

function findConfigSets(text: string, out: SecretRange[]): void {
  atWord(text, "config", configSet, (match) => {
    const kind = classifyKey(match[2]!);
    const secret = match[3] ?? match[4] ?? match[5]!;
    if (kind === "password" || (kind === "secret" && looksLikeCredential(secret))) pushValue(match, 3, kind, out);
  });
}

/** The cookie values after `from` (`name=value; name=value`) that look like session ids or credentials. */
function pushCookieValues(text: string, from: number, out: SecretRange[]): void {
  cookiePair.lastIndex = from;
  for (let pair = cookiePair.exec(text); pair; pair = cookiePair.exec(text)) {
    const [whole, name, cookie] = pair as unknown as [string, string, string];
    // A session id, not `theme=dark` or `Path=/`: 8+ characters with a digit, or a credential by shape.
    const isSecret =
      !cookieAttributes.has(name.toLowerCase()) &&
      !isReferenceOrPlaceholder(cookie) &&
      cookie.length >= 8 &&
      (/\d/.test(cookie) || looksLikeCredential(cookie));
    if (isSecret) {
      const valueStart = pair.index + name.length + 1;
      out.push({ start: valueStart, end: valueStart + cookie.length, kind: "cookie" });
    }
    if (!whole.includes(";")) break;
  }
}

function findCookieHeaders(text: string, out: SecretRange[]): void {
  for (let at = text.indexOf("ookie"); at > 0; at = text.indexOf("ookie", at + 5)) {
    const match = stickyAt(text, cookieHeader, at - 1);
    if (match) pushCookieValues(text, match.index + match[0].length, out);
  }
}

function findNetrc(text: string, out: SecretRange[]): void {
  atWord(text, "machine", netrc, (match) => pushValue(match, 1, "password", out));
}

function findPgpass(text: string, out: SecretRange[]): void {
  for (let at = text.indexOf("pgpass"); at >= 0; at = text.indexOf("pgpass", at + pgpassWindow)) {
    pgpassLine.lastIndex = Math.max(0, at - pgpassWindow);
    for (let match = pgpassLine.exec(text); match && match.index < at + pgpassWindow; match = pgpassLine.exec(text)) {
      const password = match[1]!;
      if (isReferenceOrPlaceholder(password)) continue;
      const end = match.index + match[0].length;
      out.push({ start: end - password.length, end, kind: "password" });
    }
  }
}

/**
 * Every command-line, header and credentials-file secret in `text` (see the file comment), pushed onto `out`
 * (unsorted, possibly overlapping other rules' ranges). Examples: `mysql -u root -pS3cret shop` → `S3cret`;
 * `curl -u admin:S3cret https://x` → `S3cret`; `Cookie: session=9f8e…; theme=dark` → the session value only.
 */
export function findCommandLineSecrets(text: string, out: SecretRange[]): void {
  findFlagCommands(text, out);
  findSpacedFlags(text, out);
  findConfigSets(text, out);
  findCookieHeaders(text, out);
  findNetrc(text, out);
  findPgpass(text, out);
}
