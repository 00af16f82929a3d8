import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pc from "picocolors";
import { jsonLine, neutralizeControls } from "../../src/render/escapes.ts";
import { highlight } from "../../src/render/format.ts";
import { drillCommand, showCommand } from "../../src/render/search.ts";
import { resumeCommandFor, shellQuote } from "../../src/search/index.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-output-safety-"));
mkdirSync(join(work, "none")); // an empty OpenCode folder: a named folder must exist (issue 15)
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ESC = "\u001b";
const BEL = "\u0007";
const CSI = "\u009b";
/** A session text that retitles the terminal, clears the screen and moves the cursor (C1 CSI). */
const hostile = `${ESC}]0;pwned-title${BEL}${ESC}[2J${ESC}[H cleared ${CSI}31m red`;
/** Any raw control character that a terminal would act on (newline and tab excepted). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for the control characters rendering must remove
const rawControl = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

function recall(args: string[], recallHome: string) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: work,
    RECALL_HOME: recallHome,
    RECALL_OFFLINE: "1",
  };
  for (const key of [...sourceLocationVariables]) delete env[key];
  const { exitCode: code, stdout, stderr } = runCli([...args], env);
  return { code, stdout, stderr };
}

describe("terminal escapes from sessions (issue 9)", () => {
  test("control characters are shown as \\xNN; newline and tab stay; JSON escapes C1 as well", () => {
    expect(neutralizeControls(`${ESC}]0;x${BEL}`)).toBe("\\x1b]0;x\\x07");
    expect(neutralizeControls(`a\tb\nc\r\nd\re${CSI}`)).toBe("a\tb\nc\nd\\x0de\\x9b");
    expect(neutralizeControls("plain ünïcode — text")).toBe("plain ünïcode — text");
    const line = jsonLine({ text: hostile });
    expect(line).not.toMatch(rawControl);
    expect(JSON.parse(line)).toEqual({ text: hostile });
  });

  test("bidirectional overrides and isolates (Trojan Source, CVE-2021-42574) are shown as \\uNNNN (issue 37)", () => {
    // "access = 'user' ‮ ⁦// admin⁩ ⁦" reads in a terminal or a page as if the comment came before the code.
    const trojan = "access = 'user' \u202e \u2066// admin\u2069 \u2066";
    expect(neutralizeControls(trojan)).toBe("access = 'user' \\u202e \\u2066// admin\\u2069 \\u2066");
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])
      expect(neutralizeControls(`a${String.fromCharCode(code)}b`)).toBe(`a\\u${code.toString(16)}b`);
    // Right-to-left text itself, and the marks that only hint a direction, are text.
    expect(neutralizeControls("שלום עולם \u200f مرحبا")).toBe("שלום עולם \u200f مرحبا");
    const line = jsonLine({ text: trojan });
    expect(line).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(line)).toEqual({ text: trojan });
  });

  test("recall's own colours still work around neutralized session text", () => {
    const palette = pc.createColors(true);
    const out = highlight({ text: `${ESC}[2J wipe the docker network`, highlights: [[21, 28]] }, palette);
    expect(out).toContain("\\x1b[2J wipe the docker ");
    expect(out).toContain(palette.bold(palette.yellow("network")));
  });

  test("search (levels 1 and 2), show and sessions print no raw control character from a hostile session", () => {
    const root = join(work, "hostile");
    const id = "eeeeeeee-1111-4111-8111-000000000001";
    writeClaudeSession(join(root, "-work-app", `${id}.jsonl`), {
      sessionId: id,
      cwd: "/work/app",
      title: `deploy ${hostile}`,
      turns: [
        {
          prompt: `fix the deploy ${hostile}`,
          response: `the deploy works now ${hostile}`,
          tools: [{ name: "Bash", input: { command: `echo ${hostile}` }, output: `deploy log ${hostile}\nok` }],
        },
      ],
    });
    const home = join(work, "home-hostile");
    const sources = ["--claude-dir", root, "--opencode-dir", join(work, "none")];
    const outputs = {
      search: recall(["search", "deploy", ...sources], home),
      searchTurns: recall(["search", "deploy", "--depth", "2", ...sources], home),
      show: recall(["show", id, ...sources], home),
      sessions: recall(["sessions", ...sources], home),
      searchJson: recall(["search", "deploy", "--json", ...sources], home),
      showJson: recall(["show", id, "--json", ...sources], home),
      sessionsJson: recall(["sessions", "--json", ...sources], home),
    };
    for (const [name, result] of Object.entries(outputs)) {
      expect({ name, code: result.code }).toEqual({ name, code: 0 });
      expect({ name, raw: rawControl.test(result.stdout) }).toEqual({ name, raw: false });
    }
    for (const name of ["search", "searchTurns", "show", "sessions"] as const)
      expect(outputs[name].stdout).toContain("\\x1b]0;pwned-title\\x07");
    expect(outputs.show.stdout).toContain("deploy log \\x1b]0;pwned-title");
    // JSON keeps the exact text for programs: escaped on the wire, the same string once parsed.
    expect(JSON.parse(outputs.showJson.stdout).turns[0].prompt).toBe(`fix the deploy ${hostile}`);
  });
});

describe("shell commands in results (issue 9)", () => {
  test("every part is quoted: ids, paths and queries cannot inject a command", () => {
    expect(shellQuote("2c5941bd-8f3e")).toBe("2c5941bd-8f3e");
    expect(shellQuote("it's $(id)")).toBe(`'it'\\''s $(id)'`);
    expect(shellQuote("")).toBe("''");
    expect(resumeCommandFor("claude-code", "a$(touch x)", "/w/my app")).toBe(
      `cd '/w/my app' && claude --resume 'a$(touch x)'`,
    );
    expect(resumeCommandFor("opencode", "ses_1", "-dir")).toBe("cd -- -dir && opencode --session ses_1");
    expect(resumeCommandFor("codex", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "/w/x")).toBe(
      "cd /w/x && codex resume 0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    );
    expect(resumeCommandFor("gemini-cli", "s;rm -rf ~", "")).toBe("gemini --resume 's;rm -rf ~'");
    expect(resumeCommandFor("cursor", "composer-1", "/w/my app")).toBe("cursor '/w/my app'");
    expect(resumeCommandFor("aider", "aider-0a1b", "-x")).toBe("cd -- -x && aider --restore-chat-history");
    expect(drillCommand("-v flag", "s1")).toBe("recall search --depth 2 --session s1 -- '-v flag'");
    expect(drillCommand("docker network", "s`id`")).toBe("recall search 'docker network' --depth 2 --session 's`id`'");
    expect(showCommand("a;rm -rf x", 4, 9)).toBe("recall show 'a;rm -rf x:3-5'");
  });

  test("pasting resume, drill-deeper and show commands of a crafted session runs nothing but the intended program", () => {
    const root = join(work, "crafted");
    const id = "x$(touch pwned-id)'y`touch pwned-tick`";
    const cwd = join(work, "proj $(touch pwned-cwd)");
    mkdirSync(cwd, { recursive: true });
    writeClaudeSession(join(root, "-work-crafted", `${id}.jsonl`), {
      sessionId: id,
      cwd,
      turns: [{ prompt: "rotate the signing keys", response: "rotated the signing keys" }],
    });
    const home = join(work, "home-crafted");
    const sources = ["--claude-dir", root, "--opencode-dir", join(work, "none")];
    const search = JSON.parse(
      recall(["search", "--json", ...sources, "--", "-v $(touch pwned-query) signing keys"], home).stdout,
    );
    const session = search.results.find((result: { session_id: string }) => result.session_id === id);
    expect(session).toBeDefined();
    const turns = JSON.parse(recall(["search", "signing keys", "--depth", "2", "--json", ...sources], home).stdout);

    // Stand-ins for the programs the commands call: each records its arguments, one per line.
    const bin = join(work, "bin");
    mkdirSync(bin, { recursive: true });
    const argsFile = join(work, "args.txt");
    for (const program of ["claude", "recall"]) {
      writeFileSync(join(bin, program), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${argsFile}'\n`);
      chmodSync(join(bin, program), 0o755);
    }
    const run = (command: string) => {
      rmSync(argsFile, { force: true });
      const result = Bun.spawnSync(["sh", "-c", command], { cwd: work, env: { PATH: `${bin}:/usr/bin:/bin` } });
      expect({ command, code: result.exitCode, stderr: result.stderr.toString() }).toEqual({
        command,
        code: 0,
        stderr: "",
      });
      return readFileSync(argsFile, "utf8").split("\n").slice(0, -1);
    };
    expect(run(session.resume_command)).toEqual(["--resume", id]);
    expect(run(session.next_command)).toEqual([
      "search",
      "--depth",
      "2",
      "--session",
      id,
      "--",
      "-v $(touch pwned-query) signing keys",
    ]);
    expect(run(turns.results[0].show_command)).toEqual(["show", `${id}:1-1`]);
    const pwned = [work, cwd].flatMap((dir) => readdirSync(dir).filter((name) => name.startsWith("pwned")));
    expect(pwned).toEqual([]);
    expect(existsSync(join(repo, "pwned-id"))).toBe(false);
  });

  test("a drill-deeper command for a query that starts with '-' works in the real CLI", () => {
    const root = join(work, "dash");
    const id = "dddddddd-1111-4111-8111-000000000001";
    writeClaudeSession(join(root, "-work-dash", `${id}.jsonl`), {
      sessionId: id,
      cwd: "/work/dash",
      turns: [{ prompt: "why does grep -v drop the header line", response: "use -v with care" }],
    });
    const home = join(work, "home-dash");
    const sources = ["--claude-dir", root, "--opencode-dir", join(work, "none")];
    const first = JSON.parse(recall(["search", "--json", ...sources, "--", "-v header"], home).stdout);
    const next: string = first.results[0].next_command;
    expect(next).toBe(`recall search --depth 2 --session ${id} -- '-v header'`);
    const argv = Bun.spawnSync(["sh", "-c", `printf '%s\\n' ${next.slice("recall ".length)}`])
      .stdout.toString()
      .trim()
      .split("\n");
    const level2 = recall([argv[0]!, "--json", ...sources, ...argv.slice(1)], home);
    expect(level2.code).toBe(0);
    expect(JSON.parse(level2.stdout).results[0].session_id).toBe(id);
  });
});
