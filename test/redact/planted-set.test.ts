/**
 * Issue 37: redaction measured as a detector over the planted set (test/fixtures/secrets: 291 secrets of 79
 * providers and command-line shapes, from gitleaks' and secretlint's rules and the shapes the issue lists), the
 * issue's command-line shapes one by one (only the value goes), and texts the new rules must leave alone.
 */
import { describe, expect, test } from "bun:test";
import { redactText } from "../../src/redact/index.ts";
import { leakedParts, plantedSet } from "../fixtures/secrets/planted-set.ts";

describe("the planted set (issue 37)", () => {
  const items = plantedSet();

  test("holds at least 200 secrets of at least 40 providers and shapes", () => {
    expect(items.length).toBeGreaterThanOrEqual(200);
    expect(new Set(items.map((item) => item.provider)).size).toBeGreaterThanOrEqual(40);
    for (const item of items) expect(item.carrier).toContain(item.secret);
  });

  test("at least 97% of it is redacted with no part of the secret left", () => {
    const misses = items.filter((item) => leakedParts(item, redactText(item.carrier)).length > 0);
    if (misses.length > 0)
      console.log(`missed:\n${misses.map((item) => `  ${item.provider} | ${item.shape} | ${item.source}`).join("\n")}`);
    expect((items.length - misses.length) / items.length).toBeGreaterThanOrEqual(0.97);
  });

  test("redacting twice changes nothing", () => {
    for (const item of items) {
      const once = redactText(item.carrier);
      expect(redactText(once)).toBe(once);
    }
  });
});

describe("command-line, header and credentials-file shapes (issue 37)", () => {
  const cases: Array<[string, string]> = [
    [
      "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCY9f3kQ2",
      "aws configure set aws_secret_access_key [REDACTED:secret]",
    ],
    ["PGPASSWORD=Tr0ub4dor3 psql -h db -U app", "PGPASSWORD=[REDACTED:password] psql -h db -U app"],
    ["mysql -u root -pS3cretPass99 shop", "mysql -u root -p[REDACTED:password] shop"],
    ["curl -u admin:S3cretPass99 https://api.example.com", "curl -u admin:[REDACTED:password] https://api.example.com"],
    ["Cookie: session=9f8e7d6c5b4a39281706f5e4d3c2b1a0; theme=dark", "Cookie: session=[REDACTED:cookie]; theme=dark"],
    ["Set-Cookie: sid=s%3AabcDEF123456ghi; Path=/; HttpOnly", "Set-Cookie: sid=[REDACTED:cookie]; Path=/; HttpOnly"],
    ["Authorization: token 2ecc19d6fc92c6302cf4ccf017035c4dca52ff11", "Authorization: token [REDACTED:secret]"],
    ["{'Authorization': 'Token H4X3YcIZ3MOgeibYxrhquGrYOD1EcDwJ'}", "{'Authorization': 'Token [REDACTED:secret]'}"],
    [
      "docker login -u acme -p DhvjL72p8Gjt registry.example.com",
      "docker login -u acme -p [REDACTED:password] registry.example.com",
    ],
    ["az login --password IMorLSrBzAZv5A --tenant x", "az login --password [REDACTED:password] --tenant x"],
    [
      "machine api.example.com login deploy password bqV30Rh9xBdm",
      "machine api.example.com login deploy password [REDACTED:password]",
    ],
    ["sshpass -p 'AnVd6lptEuEx' ssh web1", "sshpass -p '[REDACTED:password]' ssh web1"],
    ["redis-cli -h cache -a PETHbi6uiZu9cp ping", "redis-cli -h cache -a [REDACTED:password] ping"],
    [
      "git checkout -b fix/pul-433791c55f31947a94be68a31ccb764f649b7630-leak",
      "git checkout -b fix/[REDACTED:pulumi-token]-leak",
    ],
    [
      "cd /home/dev/dop_v1_1c470898ce9ca80364a068490b04a7a6b7594ac1700aaccc92d9fa8efbc18ced/app",
      "cd /home/dev/[REDACTED:digitalocean-token]/app",
    ],
  ];
  test.each(cases)("%s", (text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  test("flags, commands and headers that hold no secret come back unchanged", () => {
    const ordinary = [
      "echo $CR_PAT | docker login ghcr.io -u acme --password-stdin",
      "mysql -u root -p shop < dump.sql",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable reference, not a template
      'curl -u "$USER:${API_TOKEN}" https://api.example.com',
      "curl -b cookies.txt -c cookies.txt https://example.com",
      "Cookie: theme=dark; lang=en",
      "Set-Cookie: id=abc; Path=/; Max-Age=3600; SameSite=Lax",
      "kubectl create secret generic x --from-file=key.pem --token-file ./token",
      "use the --password flag to pass it, or --auth-type basic",
      "git config set user.name Alice && npm config set registry https://registry.npmjs.org",
      "the machine learning model needs a password reset",
      "sha256 of the file: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      "SKIP=1 SKU_0001 pull-request key-value store, dp.pt is not a token",
    ];
    for (const text of ordinary) expect(redactText(text)).toBe(text);
  });
});
