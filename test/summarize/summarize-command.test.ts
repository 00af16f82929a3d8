/**
 * Issue 41: `recall summarize` end to end, against a real chat server on 127.0.0.1 (test/summarize/chat-server.ts)
 * speaking the OpenAI chat-completions protocol: every session summarized once, a second run sends nothing, a server
 * that refuses half the sessions leaves exact counts and the next run resumes, a dead server stops the run in one
 * line, an interrupted run keeps what it made; summaries are searchable and shown; status and doctor count them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli, spawnCli } from "../helpers/cli.ts";
import { startChatServer, type ChatServer } from "./chat-server.ts";

const topics = [
  "kafka consumer lag",
  "nginx gzip",
  "terraform state lock",
  "redis eviction",
  "docker bridge",
  "flaky jest",
];
const idOf = (index: number) => `5a11e000-0000-4000-8000-00000000000${index}`;

let work: string;
let server: ChatServer;
let base: Record<string, string | undefined>;
/** The environment of a run that summarizes through the test server. */
let withServer: Record<string, string | undefined>;

type Json = Record<string, unknown>;
/** Runs `recall summarize … --json` without blocking this process, which must answer as the chat server. */
const summarize = async (args: string[], env = withServer) => {
  const child = spawnCli(["summarize", ...args, "--json"], env, { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stderr, report: JSON.parse(stdout) as Json };
};
/** The session a request was about: its prompt names the topic of the session. */
const topicOf = (body: Json): number => {
  const user = (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "user")!.content;
  return topics.findIndex((topic) => user.includes(topic));
};

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "recall-summarize-"));
  const projects = join(work, "home/.claude/projects/-home-dev-app");
  for (const [index, topic] of topics.entries())
    writeClaudeSession(join(projects, `${idOf(index)}.jsonl`), {
      sessionId: idOf(index),
      cwd: "/home/dev/app",
      startMs: Date.UTC(2026, 2, 1 + index, 9),
      turns: [
        { prompt: `why is the ${topic} broken`, response: `Looking at the ${topic}.` },
        { prompt: `fix the ${topic}`, response: "Fixed it." },
      ],
    });
  server = startChatServer();
  base = { ...process.env, HOME: join(work, "home"), RECALL_HOME: join(work, "recall") };
  withServer = {
    ...base,
    SUMMARIES_URL: `${server.base}/v1`,
    SUMMARIES_MODEL: "test-model",
    SUMMARIES_TIMEOUT_MS: "3000",
  };
  expect(runCli(["index"], base).exitCode).toBe(0);
}, 120_000);

afterAll(() => {
  server?.close();
  rmSync(work, { recursive: true, force: true });
});

beforeEach(() => {
  server.requests.length = 0;
  server.setPlan((request) => ({ answer: `Summary of ${topics[topicOf(request.body)]}: quokkafix applied.` }));
});

describe("issue 41: recall summarize", () => {
  test("without a backend: nothing is sent, each session counted as such, one line says how to set one, exit 1", () => {
    const run = runCli(["summarize", "--all"], base);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(`not summarized: ${topics.length} no backend configured`);
    expect(run.stdout).toContain("SUMMARIES_URL");
  });

  test("--dry-run sends nothing and states sessions, characters and estimated tokens", async () => {
    const { report } = await summarize(["--all", "--dry-run"]);
    expect(server.requests).toHaveLength(0);
    expect(report).toMatchObject({ dry_run: true, selected: topics.length, summarized: 0 });
    const sessions = report.sessions as Array<{ characters: number; estimated_tokens: number }>;
    expect(sessions).toHaveLength(topics.length);
    expect(report.characters).toBe(sessions.reduce((sum, session) => sum + session.characters, 0));
    expect(report.estimated_tokens).toBe(sessions.reduce((sum, session) => sum + session.estimated_tokens, 0));
    for (const session of sessions) expect(session.estimated_tokens).toBe(Math.ceil(session.characters / 4));
  });

  test("a server that refuses half the sessions leaves exact counts; the next run resumes and sends only what is left", async () => {
    server.setPlan((request) =>
      topicOf(request.body) % 2 === 0
        ? { answer: "", stop: "content_filter" }
        : { answer: `Summary of ${topics[topicOf(request.body)]}: quokkafix applied.` },
    );
    const first = await summarize(["--all"]);
    expect(first.report).toMatchObject({ selected: 6, summarized: 3, cached: 0, not_summarized: { refused: 3 } });
    expect(server.requests).toHaveLength(6);
    // the refused prompts are not sent again unless asked; the summarized ones are cached
    server.setPlan((request) => ({ answer: `Summary of ${topics[topicOf(request.body)]}: quokkafix applied.` }));
    server.requests.length = 0;
    expect((await summarize(["--all"])).report).toMatchObject({
      summarized: 0,
      cached: 3,
      not_summarized: { refused: 3 },
    });
    expect(server.requests).toHaveLength(0);
    const retried = await summarize(["--all", "--retry-failed"]);
    expect(retried.report).toMatchObject({ summarized: 3, cached: 3, not_summarized: {} });
    expect(server.requests.map((request) => topicOf(request.body) % 2)).toEqual([0, 0, 0]);
    // every session has its summary now: a further run sends nothing
    server.requests.length = 0;
    expect((await summarize(["--all"])).report).toMatchObject({ summarized: 0, cached: 6 });
    expect(server.requests).toHaveLength(0);
  });

  test("a summary is searchable at level 1 and shown first in the abstract, with its source", () => {
    const answer = JSON.parse(runCli(["search", "quokkafix terraform", "--json"], withServer).stdout) as Json;
    const first = (answer.results as Array<{ session_id: string; abstract: Json[] }>)[0]!;
    expect(first.session_id).toBe(idOf(2));
    expect(first.abstract[0]).toMatchObject({
      source: "summary",
      text: "Summary of terraform state lock: quokkafix applied.",
    });
    expect(runCli(["search", "quokkafix terraform"], withServer).stdout).toContain(
      "summary: Summary of terraform state lock",
    );
  });

  test("a session that grew is summarized again; the others are not", async () => {
    writeClaudeSession(join(work, "home/.claude/projects/-home-dev-app", `${idOf(1)}.jsonl`), {
      sessionId: idOf(1),
      cwd: "/home/dev/app",
      startMs: Date.UTC(2026, 2, 2, 9),
      turns: [
        { prompt: "why is the nginx gzip broken", response: "Looking at the nginx gzip." },
        { prompt: "fix the nginx gzip", response: "Fixed it." },
        { prompt: "and add brotli next to the nginx gzip", response: "Added." },
      ],
    });
    const { report } = await summarize(["--all"]);
    expect(report).toMatchObject({ summarized: 1, cached: 5 });
    expect(server.requests.map((request) => topicOf(request.body))).toEqual([1]);
  });

  test("status and doctor count abstracts and summaries and name the backend", () => {
    const status = JSON.parse(runCli(["status", "--json"], withServer).stdout) as Json;
    expect(status.summaries).toMatchObject({ made: 6, without: 0, failed: {} });
    expect(status.summaries as Json).toHaveProperty(
      "backend",
      expect.stringContaining("openai test-model at http://127.0.0.1"),
    );
    const doctor = runCli(["doctor"], withServer);
    expect(doctor.stdout).toMatch(/summaries +summary backend openai test-model/);
  });

  test("a dead server stops the run after 3 failures in a row, in one line; the rest is counted, exit 1", () => {
    const dead = { ...withServer, SUMMARIES_URL: "http://127.0.0.1:9/v1" };
    const run = runCli(["summarize", "--all", "--retry-failed"], { ...dead, RECALL_HOME: join(work, "recall-dead") });
    // a fresh index of the same history: nothing is summarized there yet
    expect(run.exitCode).toBe(1);
    // requests run four at a time, so a few more than three can fail before the stop: every session is counted once
    const counts = /not summarized: (\d+) backend unreachable(?:, (\d+) not sent: the backend was stopped)?$/m.exec(
      run.stdout,
    );
    expect(counts).not.toBeNull();
    expect(Number(counts![1])).toBeGreaterThanOrEqual(3);
    expect(Number(counts![1]) + Number(counts![2] ?? 0)).toBe(topics.length);
    expect(run.stdout).toContain("stopped after 3 failures in a row");
    const status = JSON.parse(
      runCli(["status", "--json"], { ...dead, RECALL_HOME: join(work, "recall-dead") }).stdout,
    ) as Json;
    expect(status.summaries).toMatchObject({ made: 0, failed: { unreachable: Number(counts![1]) } });
  });

  test("an interrupted run keeps the summaries it made, and the same command goes on from there", async () => {
    const home = { ...withServer, RECALL_HOME: join(work, "recall-interrupted") };
    expect(runCli(["index"], home).exitCode).toBe(0);
    server.setPlan((request, index) =>
      index < 2 ? { answer: `Summary of ${topics[topicOf(request.body)]}.` } : { hangMs: 60_000 },
    );
    const child = spawnCli(["summarize", "--all", "--json"], home, { stdout: "pipe", stderr: "pipe" });
    const deadline = Date.now() + 30_000;
    while (server.requests.length < 3 && Date.now() < deadline) await Bun.sleep(50);
    await Bun.sleep(200);
    child.kill("SIGINT");
    const report = JSON.parse(await new Response(child.stdout).text()) as Json;
    await child.exited;
    expect(report.summarized).toBe(2);
    expect((report.not_summarized as Json).interrupted).toBe(4);
    server.setPlan((request) => ({ answer: `Summary of ${topics[topicOf(request.body)]}.` }));
    server.requests.length = 0;
    const resumed = await summarize(["--all"], home);
    expect(resumed.report).toMatchObject({ summarized: 4, cached: 2 });
    expect(server.requests).toHaveLength(4);
  }, 60_000);
});
