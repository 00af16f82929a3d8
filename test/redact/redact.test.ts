import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { capArchivedOutput } from "../../src/index/store/archive.ts";
import { claudeCodeParser, unitForContainer } from "../../src/parsers/claude-code.ts";
import type { ParseResult } from "../../src/parsers/index.ts";
import {
  findSecrets,
  kindOfMessageId,
  outputContextChars,
  redactParseResult,
  redactText,
  redactTexts,
} from "../../src/redact/index.ts";
import { appendClaudeTurns, writeClaudeSession } from "../helpers/claude-writer.ts";
import { findLeaks, plantedSecrets } from "../helpers/secrets.ts";

const work = mkdtempSync(join(tmpdir(), "recall-redact-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Text that must come back unchanged: code, prose, references, hashes, ids. */
const ordinary = [
  "password: string;\nconst password = getPassword();\nif (password === undefined) throw new Error('no password')",
  "token_usage: Optional[str] = None\ncache_manager = CacheManager()\nCredential: auth.StaticCredential(c.host)",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable reference, not a template
  "echo $GITHUB_TOKEN; export PASSWORD=$DB_PASS; PASSWORD=${SECRET}\npassword: ${{ secrets.MAIL_PASSWORD }}",
  "max_tokens: 4096, tokenizer = AutoTokenizer.from_pretrained('x'), input_tokens=12345",
  "commit 3f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a\nsession 2c5941bd-8f3e-4c1a-9d2b-7e6f5a4b3c2d",
  "Reset your password: click the link. The api key: see the dashboard. auth: true, secret: false",
  "public_key = ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx9\nsort_key = created_at; primary_key: id",
  "git clone https://github.com/acme/api.git && cd api && npm test -- --grep 'login flow'",
  "postgres://localhost:5432/app and https://user@example.com/path",
  "the password is <your-password>; API_KEY=xxxx; SECRET=****; token: [hidden]",
];

describe("redactText (issue 9)", () => {
  test("each of the 38 planted secret kinds is replaced by a marker and nothing of it is left", () => {
    expect(plantedSecrets.length).toBe(38);
    for (const planted of plantedSecrets) {
      const redacted = redactText(planted.carrier);
      expect({ kind: planted.kind, leaks: findLeaks(redacted) }).toEqual({ kind: planted.kind, leaks: [] });
      expect(redacted).toContain("[REDACTED:");
    }
  });

  test("only the secret goes: names, hosts and commands around it stay readable", () => {
    expect(redactText("DB_HOST=db\nDB_PASSWORD=Tr0ub4dor&3x\nDB_PORT=5432")).toBe(
      "DB_HOST=db\nDB_PASSWORD=[REDACTED:password]\nDB_PORT=5432",
    );
    expect(redactText("postgres://app:s3cretPassw0rd@db.internal:5432/app")).toBe(
      "postgres://app:[REDACTED:url-password]@db.internal:5432/app",
    );
    expect(redactText("export GH_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 && gh pr list")).toBe(
      "export GH_TOKEN=[REDACTED:github-token] && gh pr list",
    );
    expect(redactText('curl -H "Authorization: Bearer abcDEF123456ghiJKL789mno" https://api')).toBe(
      'curl -H "Authorization: Bearer [REDACTED:bearer-token]" https://api',
    );
  });

  test("ordinary code, prose, references, hashes and ids come back unchanged", () => {
    for (const text of ordinary) expect(redactText(text)).toBe(text);
  });

  test("redacting twice changes nothing", () => {
    const all = plantedSecrets.map((planted) => planted.carrier).join("\n\n");
    const once = redactText(all);
    expect(redactText(once)).toBe(once);
    for (const planted of plantedSecrets)
      expect(redactText(redactText(planted.carrier))).toBe(redactText(planted.carrier));
  });

  test("a batch gives exactly what one text at a time gives", () => {
    const texts = [...plantedSecrets.map((planted) => planted.carrier), ...ordinary, "", "short", "x".repeat(5000)];
    expect(redactTexts(texts)).toEqual(texts.map(redactText));
  });

  test("secretlint message ids become readable marker kinds", () => {
    expect(kindOfMessageId("AWSSecretAccessKey")).toBe("aws-secret-access-key");
    expect(kindOfMessageId("GITHUB_TOKEN")).toBe("github-token");
    expect(kindOfMessageId("AWSAccessKeyID")).toBe("aws-access-key-id");
  });

  test("a credential clipped by the 300-character compact input still goes", () => {
    const clipped = `${"curl -sS https://api.example.com/v1/items ".repeat(6)}-u admin:Zk81mQx7Lp2Vb9Rt4Wy6…`;
    expect(redactText(clipped)).toEndWith("-u admin:[REDACTED:password]…"); // the curl rule (issue 37) reads it whole
    const unnamed = `${"deploy --region eu-west-1 --stage prod ".repeat(8)}--key-id Zk81mQx7Lp2Vb9Rt4Wy6…`;
    expect(redactText(unnamed)).toEndWith("--key-id [REDACTED:truncated]…");
    expect(findSecrets(`run ${"word ".repeat(10)}src/components/ButtonComponent…`)).toEqual([]);
  });
});

function parseFile(path: string, resume?: ParseResult["resume"]): ParseResult {
  const unit = unitForContainer(claudeCodeParser.scan([path]).containers[0]!);
  return claudeCodeParser.parse(unit, { withOutputs: true, resume });
}

const secretTurns = plantedSecrets.map((planted, i) => ({
  prompt: i % 3 === 0 ? `please check this: ${planted.carrier}` : `step ${i}: look at the config`,
  response: i % 3 === 1 ? `I found ${planted.carrier} in the file` : "Done.",
  tools:
    i % 3 === 2
      ? [
          {
            name: "Bash",
            input: { command: `cat .env # ${planted.carrier}` },
            output: `${planted.carrier}\n`.repeat(2),
          },
        ]
      : [],
}));

describe("redactParseResult (issue 9)", () => {
  test("title, prompts, responses, tool inputs and outputs and the resume state hold no secret; ids and paths are kept", () => {
    const path = join(work, "-work-app", "aaaaaaaa-1111-4111-8111-000000000001.jsonl");
    writeClaudeSession(path, {
      sessionId: "aaaaaaaa-1111-4111-8111-000000000001",
      cwd: "/work/app",
      title: `deploy with ${plantedSecrets[3]!.secret}`,
      turns: secretTurns,
    });
    const raw = parseFile(path);
    expect(findLeaks(JSON.stringify(raw)).length).toBeGreaterThan(30); // the fixture does plant them
    const redacted = redactParseResult(raw);
    expect(findLeaks(JSON.stringify(redacted))).toEqual([]);
    expect(redacted.session.title).toBe("deploy with [REDACTED:github-token]");
    expect(redacted.session).toMatchObject({ id: raw.session.id, projectPath: "/work/app", location: path });
    expect(redacted.turns.map((turn) => turn.number)).toEqual(raw.turns.map((turn) => turn.number));
    expect(JSON.stringify(raw)).not.toContain("[REDACTED:"); // the input is not modified
    expect(redacted.resume?.kind).toBe(raw.resume?.kind);
  });

  test("a resumed parse from the redacted state converges with a full parse of the whole file", () => {
    const path = join(work, "-work-app", "aaaaaaaa-1111-4111-8111-000000000002.jsonl");
    const state = writeClaudeSession(path, {
      sessionId: "aaaaaaaa-1111-4111-8111-000000000002",
      cwd: "/work/app",
      turns: secretTurns.slice(0, 20),
    });
    const options = { capOutput: capArchivedOutput };
    const first = redactParseResult(parseFile(path), options);
    appendClaudeTurns(path, state, secretTurns.slice(20));
    const resumed = redactParseResult(parseFile(path, first.resume), options);
    expect(resumed.fromTurn).toBeGreaterThan(1); // it did resume
    const full = redactParseResult(parseFile(path), options);
    const merged = [...first.turns.filter((turn) => turn.number < resumed.fromTurn), ...resumed.turns];
    expect(merged).toEqual(full.turns);
    expect(resumed.resume).toEqual(full.resume);
    expect(findLeaks(JSON.stringify([resumed, full]))).toEqual([]);
  });

  test("an output capped at a line break is cut there, and the same output in two calls and the resume state reads the same", () => {
    const secret = plantedSecrets.find((planted) => planted.kind === "github-classic")!.secret;
    const lines = Array.from({ length: 60 }, (_, i) => `build step ${i} finished`);
    lines[3] = `export GH_TOKEN=${secret}`;
    const output = lines.join("\n");
    const path = join(work, "-work-app", "aaaaaaaa-1111-4111-8111-000000000003.jsonl");
    writeClaudeSession(path, {
      sessionId: "aaaaaaaa-1111-4111-8111-000000000003",
      cwd: "/work/app",
      turns: [
        {
          prompt: "run the build twice",
          response: "Both passed.",
          tools: [
            { name: "Bash", input: { command: "make" }, output },
            { name: "Bash", input: { command: "make" }, output },
          ],
        },
      ],
    });
    const result = redactParseResult(parseFile(path), { capOutput: capArchivedOutput });
    // capArchivedOutput keeps 40 lines and adds a note line: the text goes on with "\n" where the note starts.
    const expected = capArchivedOutput(output).replace(secret, "[REDACTED:github-token]");
    expect(result.turns[0]!.toolCalls.map((call) => call.output)).toEqual([expected, expected]);
    const tailOutputs = JSON.stringify(result.resume).split(JSON.stringify(expected)).length - 1;
    expect(tailOutputs).toBe(2);
    expect(findLeaks(JSON.stringify(result))).toEqual([]);
  });

  test("a secret cut by the output cap is replaced whole, and only the capped output is kept", () => {
    const secret = plantedSecrets.find((planted) => planted.kind === "github-classic")!.secret;
    const filler = "log line without anything secret in it\n".repeat(104); // 4,056 characters
    const output = `${filler}export GH_TOKEN=${secret}\n${"more output\n".repeat(500)}`;
    const cap = (text: string) => (text.length > 4096 ? `${text.slice(0, 4096)}\n… (cut)` : text);
    const result = redactParseResult(
      {
        session: {
          id: "s",
          source: "claude-code",
          projectPath: "",
          projectName: "",
          gitBranch: null,
          startedAt: 0,
          endedAt: 0,
          title: null,
          turnCount: 1,
          parentSessionId: null,
          isSubagent: false,
          location: "",
        },
        turns: [
          {
            sessionId: "s",
            number: 1,
            timestamp: 0,
            prompt: "p",
            response: "r",
            toolCalls: [{ name: "Bash", input: "env", isError: false, output }],
            files: [],
            isSubagent: false,
          },
        ],
        fromTurn: 1,
        bytesRead: 0,
        skipped: { count: 0 },
      },
      { capOutput: cap },
    );
    const kept = result.turns[0]!.toolCalls[0]!.output!;
    expect(cap(output)).toContain(secret.slice(0, 20)); // the cap alone would keep a piece of it
    expect(kept).toBe(`${filler}export GH_TOKEN=[REDACTED:github-token]\n… (cut)`);
    expect(outputContextChars).toBeGreaterThan(secret.length);
  });
});
