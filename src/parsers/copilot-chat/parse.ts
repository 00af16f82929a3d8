/**
 * Parsing one VS Code chat session file into a `Session` and its `Turn`s (docs/formats/copilot-chat.md). The file is
 * `ISerializableChatData` (microsoft/vscode src/vs/workbench/contrib/chat/common/model/chatModel.ts @8c035459):
 * `{version: 3, sessionId, creationDate, lastMessageDate?, customTitle?, requests, repoData?: {localBranch}}`, written
 * whole as `<id>.json`, or replayed from the mutation log `<id>.jsonl` (mutation-log.ts). One turn per request
 * `{requestId, message: {text, parts} | string, timestamp, modelId, response: [part], result?: {errorDetails}}`:
 * - prompt: `message.text` (a plain string in the oldest files);
 * - reply: the markdown parts (no `kind` and a `value`, or `kind: "markdownContent"` with `content.value`), joined as VS
 *   Code renders them, with `inlineReference` parts as their name or file path, and `result.errorDetails.message`;
 * - calls: `toolInvocationSerialized` parts (tools.ts);
 * - `thinking` parts are left out (as thinking is for every source); `undoStop`, `prepareToolInvocation`,
 *   `codeblockUri` and `mcpServersStarting` are the interface's bookkeeping; any other part holding text
 *   (`textEditGroup`, `confirmation`, `warning`, `progressMessage`, …) is counted in `skipped` by its kind.
 * Model: the request's `modelId` (e.g. `copilot/gpt-4.1`), recorded without token counts (the file keeps none).
 * Project: the workspace's `workspace.json` (`folder`, or the `.code-workspace` file's folder); branch:
 * `repoData.localBranch` where VS Code recorded it.
 */
import { readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { asObject, projectNameOf } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import { filesTouched } from "../tool-calls.ts";
import type { ParseOptions, ParseResult, SkipReport, SourceUnit, Turn } from "../types.ts";
import { addModelUsage } from "../usage.ts";
import { replayMutationLog } from "./mutation-log.ts";
import { workspaceFileName } from "./scan.ts";
import { copilotChatToolCall, markdownText } from "./tools.ts";

/** Response parts that carry no conversation text. */
const bookkeepingKinds = new Set(["undoStop", "prepareToolInvocation", "codeblockUri", "mcpServersStarting"]);

const unknownCounts = { input: null, output: null, cacheRead: null, cacheWrite: null };

const timeOf = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;

/**
 * Parse one session file (always a full parse).
 * @throws SourceError when the file cannot be read or holds no session, e.g. `cannot read copilot-chat session
 *   /x/chatSessions/a.json: not JSON`
 */
export function parseCopilotChatUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.key;
  const fail = (reason: string, cause?: unknown): never => {
    throw new SourceError(`cannot read copilot-chat session ${path}: ${reason}`, path, { cause });
  };
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    fail(fsReason(error), error);
  }
  const skipped: SkipReport = { count: 0 };
  let data: Record<string, unknown> | undefined;
  if (path.endsWith(".jsonl")) data = replayMutationLog(text, path, skipped);
  else {
    try {
      data = asObject(JSON.parse(text));
    } catch (error) {
      fail("not JSON", error);
    }
  }
  if (!data || !Array.isArray(data.requests)) return fail("no requests (not a VS Code chat session)");
  const creationDate = timeOf(data.creationDate);
  const sessionId = typeof data.sessionId === "string" && data.sessionId ? data.sessionId : unit.sessionId;
  const turns: Turn[] = [];
  let lastTime = creationDate;
  for (const [index, value] of (data.requests as unknown[]).entries()) {
    const request = asObject(value);
    if (!request) {
      noteSkip(skipped, `${path}: request ${index}`, "request not an object");
      continue;
    }
    const turn = readRequest(request, turns.length + 1, sessionId, creationDate, `${path}: request ${index}`, {
      skipped,
      withOutputs: options.withOutputs === true,
    });
    if (!turn) continue;
    lastTime = Math.max(lastTime, turn.timestamp);
    turns.push(turn);
  }
  const projectPath = workspacePath(path);
  const branch = asObject(data.repoData)?.localBranch;
  const title = typeof data.customTitle === "string" && data.customTitle.trim() ? data.customTitle.trim() : null;
  return {
    session: {
      id: sessionId,
      source: "copilot-chat",
      projectPath,
      projectName: projectNameOf(projectPath),
      gitBranch: typeof branch === "string" && branch && branch !== "HEAD" ? branch : null,
      startedAt: creationDate,
      endedAt: Math.max(lastTime, timeOf(data.lastMessageDate)),
      title,
      turnCount: turns.length,
      parentSessionId: null,
      isSubagent: false,
      location: path,
    },
    turns,
    fromTurn: 1,
    bytesRead: Buffer.byteLength(text),
    skipped,
  };
}

/** One request as a turn; null when it holds neither a prompt nor an answer. */
function readRequest(
  request: Record<string, unknown>,
  number: number,
  sessionId: string,
  creationDate: number,
  place: string,
  context: { skipped: SkipReport; withOutputs: boolean },
): Turn | null {
  const message = request.message;
  const prompt = (typeof message === "string" ? message : markdownText(asObject(message)?.text ?? "")).trim();
  const pieces: string[] = [];
  const turn: Turn = {
    sessionId,
    number,
    timestamp: timeOf(request.timestamp) || creationDate,
    prompt,
    response: "",
    toolCalls: [],
    files: [],
    isSubagent: false,
  };
  for (const value of Array.isArray(request.response) ? request.response : []) {
    const part = asObject(value);
    if (!part) continue;
    const kind = typeof part.kind === "string" ? part.kind : "";
    if (kind === "" || kind === "markdownContent" || kind === "markdownVuln") {
      const text = kind === "" ? markdownText(part) : markdownText(part.content);
      if (text) pieces.push(text);
    } else if (kind === "inlineReference") pieces.push(referenceText(part));
    else if (kind === "toolInvocationSerialized") {
      if (typeof part.toolId === "string" && part.toolId)
        turn.toolCalls.push(copilotChatToolCall(part, context.withOutputs));
      else noteSkip(context.skipped, place, "tool invocation without a tool id");
    } else if (kind !== "thinking" && !bookkeepingKinds.has(kind))
      noteSkip(context.skipped, place, `response part ${kind}`);
  }
  const error = markdownText(asObject(asObject(request.result)?.errorDetails)?.message);
  if (error) pieces.push(`\n\n${error}`);
  turn.response = pieces.join("").trim();
  turn.files = filesTouched(turn.toolCalls);
  if (typeof request.modelId === "string" && request.modelId) {
    turn.usage = [];
    addModelUsage(turn.usage, request.modelId, unknownCounts);
  }
  if (!prompt && !turn.response && turn.toolCalls.length === 0) return null;
  return turn;
}

/** An inline file reference as the chat shows it: its `name`, else the file's base name, in backticks. */
function referenceText(part: Record<string, unknown>): string {
  if (typeof part.name === "string" && part.name) return `\`${part.name}\``;
  const reference = asObject(part.inlineReference);
  const uri = asObject(reference?.uri) ?? reference;
  const path = typeof uri?.path === "string" ? uri.path : "";
  return path ? `\`${posix.basename(path)}\`` : "";
}

/**
 * The project folder of a session file in `<workspace id>/chatSessions/`, from `<workspace id>/workspace.json`:
 * `{folder: uri}`, or `{workspace: uri of a .code-workspace file}` (its folder); `file:` URIs as paths, remote ones
 * (`vscode-remote://ssh-remote+host/x`) as their path. "" for an empty window's session or an unreadable manifest.
 */
export function workspacePath(sessionFile: string): string {
  let manifest: Record<string, unknown> | undefined;
  try {
    manifest = asObject(JSON.parse(readFileSync(join(dirname(dirname(sessionFile)), workspaceFileName), "utf8")));
  } catch {
    return "";
  }
  const folder = typeof manifest?.folder === "string" ? manifest.folder : "";
  const workspace = typeof manifest?.workspace === "string" ? manifest.workspace : "";
  const path = pathOfUri(folder || workspace);
  return !folder && path ? dirname(path) : path;
}

function pathOfUri(uri: string): string {
  if (!uri) return "";
  try {
    if (uri.startsWith("file:")) return fileURLToPath(uri);
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return "";
  }
}
