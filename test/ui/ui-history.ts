/**
 * A small Claude Code history for the web view's tests, and `recall ui` started on it: a session with tool calls (a
 * Bash call, an Edit whose change is drawn as a diff), one that tries to plant script in the page (a `<script>` tag,
 * an `onerror=` image, a `javascript:` link), sessions in two projects on several days (facets, activity), and a
 * session file the tests append to while a page is open.
 */
import { mkdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { appendClaudeTurns, writeClaudeSession, type TestSession, type WriterState } from "../helpers/claude-writer.ts";
import { runCli, spawnCli } from "../helpers/cli.ts";

const day = 86_400_000;

/** Session ids by role. */
export const uiIds = {
  docker: "6a1b2c3d-1111-4111-8111-000000000001",
  hostile: "6a1b2c3d-2222-4222-8222-000000000002",
  growing: "6a1b2c3d-3333-4333-8333-000000000003",
  billing: "6a1b2c3d-4444-4444-8444-000000000004",
  archived: "6a1b2c3d-5555-4555-8555-000000000005",
} as const;

/** A prepared history: its folders, environment, and how to append a turn to the growing session. */
export interface UiHistory {
  env: Record<string, string>;
  appendTurn(prompt: string, response: string): void;
}

/**
 * Write and index the history under `root` (an empty temporary folder), with `extra` sessions besides the usual ones
 * (made from the webapp project's folder, `<root>/projects/webapp`; a `cwd` of "" is a session without a project).
 */
export function prepareUiHistory(root: string, extra: (webapp: string) => TestSession[] = () => []): UiHistory {
  const claudeDir = join(root, "claude");
  const now = Date.now();
  const webapp = join(root, "projects", "webapp");
  const billing = join(root, "projects", "billing");
  const sessions: TestSession[] = [
    {
      sessionId: uiIds.docker,
      cwd: webapp,
      gitBranch: "fix/network",
      startMs: now - 2 * day,
      title: "Fix the docker bridge network",
      turns: [
        {
          prompt: "the containers cannot reach each other over the **docker bridge network**",
          response:
            "The default bridge has no DNS. Create a user-defined bridge:\n\n```bash\ndocker network create appnet\n```",
          tools: [{ name: "Bash", input: { command: "docker network create appnet" }, output: "f3c1e0 appnet" }],
        },
        {
          prompt: "now put both services on it in the compose file",
          response: "Both services now join `appnet`.",
          tools: [
            {
              name: "Edit",
              input: {
                file_path: `${webapp}/compose.yaml`,
                old_string: "services:\n  web:\n    image: web",
                new_string: "services:\n  web:\n    image: web\n    networks: [appnet]",
              },
              output: "The file compose.yaml has been updated.",
            },
          ],
        },
      ],
    },
    {
      sessionId: uiIds.hostile,
      cwd: webapp,
      startMs: now - 3 * day,
      title: "Sanitize the <script>window.pwned = 1</script> page",
      turns: [
        {
          prompt:
            'render this: <script>window.pwned = 1</script> and <img src="x" onerror="window.pwned = 2"> and [click me](javascript:window.pwned=3)',
          response:
            'Planted: <iframe src="javascript:window.pwned=4"></iframe> <a href="javascript:window.pwned=5">link</a> <svg onload="window.pwned=6"></svg>',
        },
      ],
    },
    {
      sessionId: uiIds.billing,
      cwd: billing,
      gitBranch: "main",
      startMs: now - 20 * day,
      title: "Migrate the billing schema",
      turns: [
        {
          prompt: "migrate the billing schema to v2 with a docker test database",
          response: "Wrote 0042_billing_v2.sql.",
        },
      ],
    },
  ];
  const archived: TestSession = {
    sessionId: uiIds.archived,
    cwd: billing,
    startMs: now - 40 * day,
    title: "The invoice rounding fix",
    turns: [
      { prompt: "invoices round half cents the wrong way", response: "Switched to banker's rounding in invoice.ts." },
    ],
  };
  sessions.push(archived, ...extra(webapp));
  const fileOf = (session: TestSession) =>
    join(claudeDir, "projects", session.cwd.replace(/[/.]/g, "-") || "-", `${session.sessionId}.jsonl`);
  for (const session of sessions) writeClaudeSession(fileOf(session), session);
  const growing: TestSession = {
    sessionId: uiIds.growing,
    cwd: webapp,
    startMs: now - 60_000,
    title: "A session still running",
    turns: [{ prompt: "first question of the running session", response: "first answer" }],
  };
  const growingState: WriterState = writeClaudeSession(fileOf(growing), growing);
  const recallHome = join(root, "recall-home");
  mkdirSync(recallHome, { recursive: true, mode: 0o700 });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOME: root,
    RECALL_HOME: recallHome,
    RECALL_CLAUDE_DIRS: claudeDir,
    RECALL_CODEX_DIRS: join(root, "none"),
    RECALL_OPENCODE_DIRS: join(root, "none"),
    RECALL_GEMINI_DIRS: join(root, "none"),
    RECALL_CURSOR_DIRS: join(root, "none"),
    RECALL_AIDER_DIRS: join(root, "none"),
  };
  const index = () => {
    const run = runCli(["index"], env);
    if (run.exitCode !== 0) throw new Error(`recall index failed: ${run.stderr}`);
  };
  index();
  // Its tool deleted it after recall indexed it: the next run marks it deleted and keeps it.
  rmSync(fileOf(archived));
  index();
  return {
    env,
    appendTurn: (prompt, response) => appendClaudeTurns(fileOf(growing), growingState, [{ prompt, response }]),
  };
}

/** A running `recall ui`: its login URL, origin and token, how to log in without a browser, and how to stop it. */
export interface RunningUi {
  loginUrl: string;
  origin: string;
  token: string;
  /**
   * Opens the login URL; resolves to the `name=value` of the cookie it sets (for a Cookie header) and the path the
   * pages are under (`/<secret>`, where the login redirects).
   */
  login(): Promise<{ cookie: string; base: string }>;
  stop(): Promise<void>;
}

/**
 * Start `recall ui` from source on `env`'s history (with `--no-open` unless `open`; `binary` runs that executable
 * instead of the sources); resolves once it printed its URL.
 */
export async function startUi(
  env: Record<string, string>,
  extraArgs: string[] = [],
  options: { open?: boolean; binary?: string } = {},
): Promise<RunningUi> {
  const args = ["ui", ...(options.open ? [] : ["--no-open"]), ...extraArgs];
  const output = { stdout: "pipe", stderr: "pipe" } as const;
  const child = options.binary ? Bun.spawn([options.binary, ...args], { env, ...output }) : spawnCli(args, env, output);
  const reader = child.stdout.getReader();
  let out = "";
  const deadline = Date.now() + 20_000;
  while (!out.includes("\n")) {
    if (Date.now() > deadline) throw new Error("recall ui printed no URL");
    const { value, done } = await reader.read();
    if (done) throw new Error(`recall ui exited: ${await new Response(child.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const loginUrl = out.split("\n")[0]!.trim();
  const url = new URL(loginUrl);
  return {
    loginUrl,
    origin: url.origin,
    token: url.searchParams.get("token") ?? "",
    login: async () => {
      const response = await fetch(loginUrl, { redirect: "manual" });
      const cookie = response.headers.get("set-cookie");
      const location = response.headers.get("location");
      if (!cookie || !location) throw new Error(`the login URL set no cookie (HTTP ${response.status})`);
      return { cookie: cookie.split(";")[0]!, base: location.replace(/\/$/, "") };
    },
    stop: async () => {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

/** One request written by hand on a socket (fetch refuses some malformed headers); resolves to the whole response. */
export function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    const socket = connect(port, "127.0.0.1", () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    socket.on("data", (chunk) => {
      out += chunk.toString();
    });
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
  });
}
