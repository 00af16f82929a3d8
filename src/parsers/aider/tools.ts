/**
 * Tool calls of an aider turn, derived from what the history file shows (aider writes no tool calls as
 * such). Mapping, from the messages of aider/coders/base_coder.py, aider/repo.py and aider/commands.py:
 *   * `Applied edit to <path>` → `Edit` (`Write` when a `Create new file? … y` for that path came first),
 *     with line counts from the reply's SEARCH/REPLACE blocks for that path (reply.ts);
 *   * `Running <command>` (a shell command the model proposed and the user accepted) → `Bash`;
 *   * `Commit <hash> <message>` (aider's auto-commit, or `/commit`) → `GitCommit` (a name of our own:
 *     the shared vocabulary has none for a commit), input `<hash> <message>`;
 *   * `Added <path> to the chat` (`/add`), `Added <path> to read-only files.` (`/read-only`) and a
 *     `<path>` line answered `Add file to the chat? … y|a` → `Read` (the file's content enters the chat; an
 *     answer remembered from an earlier "(A)ll" is logged twice, as a prompt and as a status: one `Read`);
 *   * a prompt `/run <command>`, `!<command>` or `/test <command>` → `Bash`; `/git <args>` → `Bash git <args>`;
 *     `/web <url>` → `WebFetch`.
 * Everything else (`Tokens: … Cost: …`, warnings, confirmations, lint reports) stays out of tool calls.
 * An edit's path is matched to the model's SEARCH/REPLACE blocks by {@link samePath}: aider prints the path the
 * way the OS writes it (`Applied edit to src\\pages\\index.astro` on Windows) while the model writes `src/pages/…`.
 */
import { buildToolCall, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";
import type { EditBlock } from "./reply.ts";

/** Name of the tool call made for an aider git commit (not in the shared vocabulary, kept as named). */
export const commitToolName = "GitCommit";

/** A status record of a turn: its text (without `> ` and the trailing two spaces). */
export interface StatusText {
  text: string;
}

const appliedEdit = /^Applied edit to (.+)$/;
const running = /^Running (.+)$/s;
const commit = /^Commit ([0-9a-f]{7,40}) (.+)$/s;
const addedToChat = /^Added (.+) to the chat$/;
const addedReadOnly = /^Added (.+) to read-only files\.$/;
const confirmAnswer = /^(Add file to the chat|Create new file)\? \(Y\)es\/\(N\)o.*\]: ?([a-zA-Z]*)$/;

/**
 * True when two paths of one file as aider and the model wrote them name the same file: equal once "\\" is
 * read as "/" and a leading "./" dropped, or one is the other below some folder (an absolute path and the
 * same path relative to the repository).
 * Examples: ("src\\a.ts", "src/a.ts") → true; ("/home/me/p/src/a.ts", "src/a.ts") → true; ("a.ts", "b/a.ts") → true;
 *   ("a.ts", "ba.ts") → false.
 */
export function samePath(a: string, b: string): boolean {
  const norm = (path: string) => path.trim().replace(/\\/g, "/").replace(/^\.\//, "");
  const [x, y] = [norm(a), norm(b)];
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

/** Paths of the `Applied edit to <path>` lines among `statuses`, as aider printed them. */
export function appliedEditPaths(statuses: readonly StatusText[]): string[] {
  return statuses.flatMap((status) => appliedEdit.exec(status.text)?.[1] ?? []);
}

/**
 * Tool calls named by the prompt itself (slash commands and `!`), before those of the status lines.
 * Examples: "/run npm test" → [Bash "npm test"]; "!ls -la" → [Bash "ls -la"]; "/git status" → [Bash "git status"];
 *   "/web https://x.dev" → [WebFetch "https://x.dev"]; "fix the bug" → [].
 */
export function promptToolCalls(prompt: string): ToolCall[] {
  const bang = /^!\s*(\S[\s\S]*)$/.exec(prompt);
  if (bang) return [buildToolCall("Bash", { command: (bang[1] as string).trim() }, false)];
  const slash = /^\/(run|test|git|web)\s+(\S[\s\S]*)$/.exec(prompt);
  if (!slash) return [];
  const [, command, args] = slash as unknown as [string, string, string];
  if (command === "web") return [buildToolCall(normalizeToolName("webfetch"), { url: args.trim() }, false)];
  return [buildToolCall("Bash", { command: command === "git" ? `git ${args.trim()}` : args.trim() }, false)];
}

/**
 * Tool calls of a turn's status records, in order. `edits` are the turn's SEARCH/REPLACE blocks (for
 * line counts and, with `withOutputs`, the edit text as output); other calls get their status text as output.
 */
export function statusToolCalls(
  statuses: readonly StatusText[],
  edits: readonly EditBlock[],
  withOutputs: boolean,
): ToolCall[] {
  const calls: ToolCall[] = [];
  const created = new Set<string>();
  const accepted = (index: number, question: string): string | null => {
    const answer = confirmAnswer.exec(statuses[index]?.text ?? "");
    if (!answer || answer[1] !== question || !/^[ya]/i.test(answer[2] ?? "")) return null;
    const subject = statuses[index - 1]?.text;
    // The same answer logged a second time right after the first (a remembered "All") adds nothing.
    return subject === undefined || confirmAnswer.test(subject) ? null : subject;
  };
  statuses.forEach((status, index) => {
    const text = status.text;
    const createdPath = accepted(index, "Create new file");
    if (createdPath) created.add(createdPath);
    const readPath =
      accepted(index, "Add file to the chat") ?? addedToChat.exec(text)?.[1] ?? addedReadOnly.exec(text)?.[1];
    let call: ToolCall | null = null;
    let match: RegExpExecArray | null;
    if (readPath) call = buildToolCall("Read", { file_path: readPath }, false);
    else if ((match = appliedEdit.exec(text)))
      call = editCall(match[1] as string, created.has(match[1] as string), edits, withOutputs);
    else if ((match = running.exec(text))) call = buildToolCall("Bash", { command: match[1] as string }, false);
    else if ((match = commit.exec(text)))
      call = { name: commitToolName, input: `${match[1]} ${(match[2] as string).trim()}`, isError: false };
    if (!call) return;
    if (withOutputs && call.output === undefined) call.output = text;
    calls.push(call);
  });
  return calls;
}

/** `Edit` (or `Write` for a file just created) of `path`, with the line counts of its SEARCH/REPLACE blocks. */
function editCall(path: string, isNewFile: boolean, edits: readonly EditBlock[], withOutputs: boolean): ToolCall {
  const call = buildToolCall(isNewFile ? "Write" : "Edit", { file_path: path }, false);
  const blocks = edits.filter((edit) => samePath(edit.filePath, path));
  if (blocks.length > 0) {
    call.linesAdded = blocks.reduce((sum, edit) => sum + edit.linesAdded, 0);
    call.linesRemoved = blocks.reduce((sum, edit) => sum + edit.linesRemoved, 0);
    if (withOutputs) call.output = blocks.map((edit) => edit.text).join("\n\n");
  } else {
    delete call.linesAdded;
    delete call.linesRemoved;
  }
  return call;
}
