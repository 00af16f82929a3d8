/**
 * Planted secrets for the redaction tests (issue 9): one realistic, unique value per kind the issue lists
 * (AWS, GitHub, OpenAI, Anthropic, Slack, JWT, PEM private keys, `.env` passwords, Bearer and Basic
 * headers, connection strings, vendor tokens), each with the text a session would carry it in. Values are
 * generated from a fixed seed, so they are stable and appear nowhere else.
 */
import { Random } from "../../scripts/gen-corpus/random.ts";

const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const lower = "abcdefghijklmnopqrstuvwxyz";
const digits = "0123456789";
const alnum = upper + lower + digits;

let seed = 9_000;
/** `length` characters from `alphabet`, always with at least one digit and one letter when both are offered. */
function random(length: number, alphabet = alnum): string {
  const source = new Random(seed++);
  const next = () => source.next();
  for (;;) {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
    const wantsMix = /\d/.test(alphabet) && /[A-Za-z]/.test(alphabet) && length >= 8;
    if (!wantsMix || (/\d/.test(out) && /[A-Za-z]/.test(out))) return out;
  }
}

const base64url = (text: string) => Buffer.from(text).toString("base64url");

/** One planted secret: `secret` must never be stored or printed; `carrier` is the session text holding it. */
export interface PlantedSecret {
  kind: string;
  secret: string;
  carrier: string;
}

function pemBody(magic: string, lines: number): string[] {
  const body = magic + random(64 * lines - magic.length, `${alnum}+/`);
  return Array.from({ length: lines }, (_, i) => body.slice(i * 64, i * 64 + 64));
}

function build(): PlantedSecret[] {
  const out: PlantedSecret[] = [];
  const add = (kind: string, secret: string, carrier: (secret: string) => string) =>
    out.push({ kind, secret, carrier: carrier(secret) });

  add("aws-access-key-id", `AKIA${random(16, upper + digits)}`, (s) => `[default]\naws_access_key_id = ${s}`);
  add("aws-secret-access-key", random(40, `${alnum}/+`), (s) => `aws_secret_access_key = ${s}\nregion = eu-west-1`);
  add("aws-session-key-id", `ASIA${random(16, upper + digits)}`, (s) => `export AWS_ACCESS_KEY_ID=${s}`);
  add(
    "github-classic",
    `ghp_${random(36)}`,
    (s) => `git remote set-url origin https://github.com/acme/api.git && export GH_TOKEN=${s}`,
  );
  add("github-oauth", `gho_${random(36)}`, (s) => `the gh cli stored ${s} in hosts.yml`);
  add("github-fine-grained", `github_pat_${random(22)}_${random(59)}`, (s) => `use this token: ${s}`);
  add("github-server", `ghs_${random(36)}`, (s) => `GITHUB_TOKEN is ${s} inside the action`);
  add("openai-legacy", `sk-${random(20)}T3BlbkFJ${random(20)}`, (s) => `openai.api_key = "${s}"`);
  add(
    "openai-project",
    `sk-proj-${random(74, `${alnum}_-`)}T3BlbkFJ${random(74, `${alnum}_-`)}`,
    (s) => `OPENAI_API_KEY=${s}`,
  );
  add("openai-project-unmarked", `sk-proj-${random(48)}`, (s) => `my key is ${s} please test it`);
  add("anthropic", `sk-ant-api03-${random(93, `${alnum}_-`)}AA`, (s) => `ANTHROPIC_API_KEY=${s} claude -p hi`);
  add(
    "anthropic-admin",
    `sk-ant-admin01-${random(80, alnum)}`,
    (s) => `curl -H "x-api-key: ${s}" https://api.anthropic.com/v1/organizations`,
  );
  add("slack-bot", `xoxb-${random(11, digits)}-${random(13, digits)}-${random(24)}`, (s) => `SLACK_BOT_TOKEN=${s}`);
  add(
    "slack-user",
    `xoxp-${random(11, digits)}-${random(12, digits)}-${random(13, digits)}-${random(32, "0123456789abcdef")}`,
    (s) => `token for the workspace: ${s}`,
  );
  add(
    "slack-webhook",
    `T${random(8, upper + digits)}/B${random(10, upper + digits)}/${random(24)}`,
    (s) => `curl -X POST https://hooks.slack.com/services/${s} -d '{"text":"deploy done"}'`,
  );
  const jwt = (claims: object) =>
    `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url(JSON.stringify(claims))}.${random(43, `${alnum}_-`)}`;
  add(
    "jwt-bearer",
    jwt({ sub: random(10), iat: 1732000000, role: "admin" }),
    (s) => `curl -H "Authorization: Bearer ${s}" https://api.internal/v1/users`,
  );
  add(
    "jwt-json",
    jwt({ email: "dev@example.org", exp: 1999999999 }),
    (s) => `{"id_token": "${s}", "expires_in": 3600}`,
  );
  const rsa = pemBody("MIIEowIBAAKCAQEA", 8);
  add(
    "pem-rsa",
    rsa.join("\n"),
    (s) => `$ cat ~/.ssh/deploy_rsa\n-----BEGIN RSA PRIVATE KEY-----\n${s}\n-----END RSA PRIVATE KEY-----\n`,
  );
  const openssh = pemBody("b3BlbnNzaC1rZXktdjEAAAAA", 6);
  add(
    "pem-openssh",
    openssh.join("\n"),
    (s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`,
  );
  add("env-db-password", random(18), (s) => `DB_HOST=localhost\nDB_PASSWORD=${s}\nDB_PORT=5432`);
  add("env-password-simple", `correct-horse-${random(4, digits)}`, (s) => `export PASSWORD=${s}`);
  add(
    "env-django-secret",
    random(50, "abcdefghijklmnopqrstuvwxyz0123456789!@#%^*-_=+"),
    (s) => `SECRET_KEY='${s}'\nDEBUG=False`,
  );
  add("env-api-token", random(32, "0123456789abcdef"), (s) => `API_TOKEN=${s}`);
  add("yaml-password", `S3cr3t!${random(9)}`, (s) => `database:\n  user: app\n  password: ${s}\n  host: db`);
  add("json-client-secret", random(40, `${alnum}-_`), (s) => `{"client_id": "web-app", "client_secret": "${s}"}`);
  add("bearer-opaque", random(40, `${alnum}-_.`), (s) => `-H 'Authorization: Bearer ${s}'`);
  add("basic-header", Buffer.from(`deploy:${random(16)}`).toString("base64"), (s) => `Authorization: Basic ${s}`);
  add("postgres-url", random(20), (s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/app`);
  add("mysql-url", random(16), (s) => `mysql://root:${s}@127.0.0.1:3306/shop`);
  add("mongodb-url", random(22), (s) => `mongodb+srv://svc:${s}@cluster0.abcde.mongodb.net/prod?retryWrites=true`);
  add("redis-url", random(24), (s) => `REDIS_URL=redis://:${s}@cache.internal:6379/0`);
  add("https-basic-url", random(20), (s) => `git clone https://deploy:${s}@git.example.com/acme/infra.git`);
  add("stripe", `sk_live_${random(99)}`, (s) => `stripe.api_key = "${s}"`);
  add("npm", `npm_${random(36)}`, (s) => `//registry.npmjs.org/:_authToken=${s}`);
  add("gitlab", `glpat-${random(20, `${alnum}_-`)}`, (s) => `export GITLAB_TOKEN=${s}`);
  add("sendgrid", `SG.${random(22, `${alnum}_-`)}.${random(43, `${alnum}_-`)}`, (s) => `SENDGRID_API_KEY=${s}`);
  add("huggingface", `hf_${random(34, upper + lower)}`, (s) => `huggingface-cli login --token ${s}`);
  add("docker", `dckr_pat_${random(27, `${alnum}_-`)}`, (s) => `echo ${s} | docker login -u acme --password-stdin`);
  return out;
}

/** The planted secrets, 38 of them, in a fixed order. */
export const plantedSecrets: readonly PlantedSecret[] = build();

/**
 * The strings whose presence means a leak: each secret, and, because the FTS index stores lower-cased tokens,
 * each run of 10+ letters and digits inside it (original and lower case).
 */
export function leakNeedles(secret: PlantedSecret): string[] {
  const needles = new Set([secret.secret]);
  for (const line of secret.secret.split("\n")) needles.add(line);
  for (const run of secret.secret.match(/[A-Za-z0-9]{10,}/g) ?? []) {
    needles.add(run);
    needles.add(run.toLowerCase());
  }
  return [...needles];
}

/** Where any planted secret shows in `text`: `kind: needle` lines, empty when none. */
export function findLeaks(text: string, secrets: readonly PlantedSecret[] = plantedSecrets): string[] {
  const leaks: string[] = [];
  for (const secret of secrets)
    for (const needle of leakNeedles(secret))
      if (text.includes(needle)) leaks.push(`${secret.kind}: ${needle.slice(0, 24)}…`);
  return leaks;
}
