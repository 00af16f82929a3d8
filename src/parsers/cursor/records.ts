/**
 * Cursor chat records → one message list per chat (docs/formats.md §5), for three layouts:
 *   - legacy chat tabs (`workbench.panel.aichat.view.aichat.chatdata`.tabs[].bubbles[]): `type`
 *     "user" | "ai", `text` (ai also `rawText`), no per-bubble times (only the tab's `lastSendTime`, ms);
 *   - 2024 composers inline (`composer.composerData`.allComposers[].conversation[]): `type` 1 = user,
 *     2 = assistant, `text`, `codeBlocks[].uri` (real corpus, Cursor ~0.4x);
 *   - newer global composers (`cursorDiskKV` `composerData:<id>` + `bubbleId:<id>:<bubble>`): `type`
 *     1/2, `text` / `richText` (Lexical JSON), `thinking` (never indexed), `toolFormerData`,
 *     `createdAt` as an ISO string (chatrxiv storage-reference.md) or epoch ms.
 * A bubble's text is the first non-empty of `text`, `rawText` (assistant text in several versions: bp-telemetry
 * cursor-composer-data-capture-examples.md, cursor-chat-export), `content`, `message`, then `richText` (a Lexical
 * document, as a JSON string or an object) — the same order for every layout and both roles (issue 26).
 * Also: the project folder of a workspace db (`workspace.json` `{folder|workspace: "file:///…"}`), and the one a
 * composer or bubble names itself (`workspaceIdentifier`, `workspaceProjectDir`, `workspaceUris`).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { asObject } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import type { SkipReport, ToolCall } from "../types.ts";
import { codeBlockCalls, toolFormerCall } from "./tools.ts";

/** One chat message in conversation order, whatever the layout. */
export interface ChatMessage {
  role: "user" | "assistant";
  /** User prompt or assistant prose (no thinking, no tool payloads). */
  text: string;
  /** Epoch ms UTC, 0 when the record has none. */
  timestamp: number;
  toolCalls: ToolCall[];
}

/** JSON text → plain object, or undefined (broken or JSON `null` values are the caller's to count). */
export function parseObject(text: string | null): Record<string, unknown> | undefined {
  if (text === null) return undefined;
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * Epoch ms UTC of a Cursor time: a number (ms; values below 1e11 are taken as seconds) or an ISO string.
 * Examples: 1731818231743 → 1731818231743; 1731818231 → 1731818231000; "2025-12-25T19:35:21.759Z" → 1766691321759; null → 0.
 */
export function epochMs(value: unknown): number {
  if (typeof value === "number" && Number.isFinite(value) && value > 0)
    return value < 1e11 ? Math.round(value * 1000) : Math.round(value);
  if (typeof value === "string" && value.length > 0) {
    if (/^\d+(\.\d+)?$/.test(value)) return epochMs(Number(value));
    const ms = Date.parse(value);
    return Number.isFinite(ms) ? ms : 0;
  }
  return 0;
}

/** Plain text of a Lexical `richText` document (JSON text or the parsed object): text nodes joined, paragraphs on new lines. */
export function richTextPlain(richText: unknown): string {
  const document = typeof richText === "string" ? parseObject(richText) : asObject(richText);
  const root = asObject(document?.root);
  if (!root) return "";
  const paragraphs: string[] = [];
  const collect = (node: Record<string, unknown>): string => {
    if (typeof node.text === "string") return node.text;
    if (node.type === "linebreak") return "\n";
    const children = Array.isArray(node.children) ? node.children : [];
    return children.map((child) => collect(asObject(child) ?? {})).join("");
  };
  for (const child of Array.isArray(root.children) ? root.children : [])
    paragraphs.push(collect(asObject(child) ?? {}));
  return paragraphs.join("\n").trim();
}

/** `content` as a string, or the `text` of its parts (`[{type: "text", text}]`); "" otherwise. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (typeof part === "string" ? part : (asObject(part)?.text ?? "")))
    .filter((text): text is string => typeof text === "string" && text.length > 0)
    .join("\n");
}

/**
 * The text of a bubble (any layout, either role): the first of `text`, `rawText`, `content`, `message` that is not
 * blank, else the plain text of `richText`; "" when none holds any.
 * Examples: {text: "", rawText: "Done."} → "Done."; {message: "hi"} → "hi"; {richText: {root: {children: [{children:
 *   [{text: "a"}]}]}}} → "a"; {text: "  "} → "".
 */
export function bubbleText(bubble: Record<string, unknown>): string {
  for (const value of [bubble.text, bubble.rawText, contentText(bubble.content), bubble.message]) {
    if (typeof value === "string" && value.trim().length > 0) return value;
  }
  return richTextPlain(bubble.richText);
}

/**
 * Messages of one legacy chat tab. User bubbles with empty text (the input box draft Cursor keeps as
 * the tab's last bubble) are dropped; bubbles of another `type` are counted as skipped.
 */
export function legacyTabMessages(tab: Record<string, unknown>, place: string, skipped: SkipReport): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const bubbles = Array.isArray(tab.bubbles) ? tab.bubbles : [];
  bubbles.forEach((value, index) => {
    const bubble = asObject(value);
    const type = bubble?.type;
    if (!bubble || (type !== "user" && type !== "ai")) {
      noteSkip(skipped, `${place}: bubble ${index}`, "not a user or ai bubble");
      return;
    }
    const text = bubbleText(bubble);
    if (type === "user" && !text) return;
    messages.push({ role: type === "user" ? "user" : "assistant", text, timestamp: 0, toolCalls: [] });
  });
  return messages;
}

/**
 * One composer bubble (inline `conversation[]` entry or a `bubbleId:` value) → message, or undefined
 * when its `type` is neither 1 nor 2 (counted by the caller). The bubble's own `type` first, else the one its
 * header gives (`headerType`). Thinking (`thinking`, `allThinkingBlocks`)
 * is left out of `text`; tool calls come from `toolFormerData`, else from file-bound `codeBlocks`.
 */
export function composerBubbleMessage(
  bubble: Record<string, unknown>,
  codeBlockData: Record<string, unknown> | undefined,
  withOutputs: boolean,
  headerType?: unknown,
): ChatMessage | undefined {
  const type = bubble.type ?? headerType;
  if (type !== 1 && type !== 2) return undefined;
  const timestamp = epochMs(bubble.createdAt) || epochMs(asObject(bubble.timingInfo)?.clientRpcSendTime);
  if (type === 1) return { role: "user", text: bubbleText(bubble), timestamp, toolCalls: [] };
  const toolData = asObject(bubble.toolFormerData);
  const toolCall = toolData ? toolFormerCall(toolData, withOutputs) : undefined;
  const toolCalls = toolCall
    ? [toolCall]
    : toolData
      ? []
      : codeBlockCalls(bubble.codeBlocks, codeBlockData, withOutputs);
  return { role: "assistant", text: bubbleText(bubble), timestamp, toolCalls };
}

/**
 * Absolute folder path of a `file://` (or `vscode-remote://…`) URI, as the OS wrote it: percent-decoded,
 * Windows drive paths as `c:/Users/…`. Examples: `file:///home/me/app` → `/home/me/app`;
 * `file:///c%3A/Users/me/app` → `c:/Users/me/app`; `vscode-remote://ssh-remote%2Bbox/srv/app` → `/srv/app`; `` → ``.
 */
export function uriPath(uri: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(uri);
  if (!match) return "";
  let path: string;
  try {
    path = decodeURIComponent(match[1] ?? "");
  } catch {
    path = match[1] ?? "";
  }
  return /^\/[a-zA-Z]:/.test(path) ? path.slice(1) : path;
}

/**
 * Project folder of a workspace database from the `workspace.json` beside it (`folder`, else the
 * `.code-workspace` file's folder for multi-root `workspace`); "" when absent or unreadable.
 */
export function workspaceFolder(databasePath: string): string {
  let text: string;
  try {
    text = readFileSync(join(dirname(databasePath), "workspace.json"), "utf8");
  } catch {
    return "";
  }
  const data = parseObject(text);
  if (typeof data?.folder === "string") return uriPath(data.folder);
  if (typeof data?.workspace === "string") {
    const file = uriPath(data.workspace);
    return file ? dirname(file) : "";
  }
  return "";
}

/** Folder path of a URI given as text (`file:///…`) or as a VS Code URI object (`fsPath`, `external`, `path`); "". */
function uriValuePath(value: unknown): string {
  if (typeof value === "string") return uriPath(value);
  const uri = asObject(value);
  if (!uri) return "";
  if (typeof uri.fsPath === "string" && uri.fsPath) return uri.fsPath;
  if (typeof uri.external === "string" && uri.external) return uriPath(uri.external);
  if (typeof uri.path === "string") return /^\/[a-zA-Z]:/.test(uri.path) ? uri.path.slice(1) : uri.path;
  return "";
}

/**
 * Project folder a composer or bubble records itself, "" when none: `workspaceIdentifier.uri` (or `.configPath`,
 * chatrxiv storage-reference-modern-architecture / bp-telemetry research notes), else `workspaceProjectDir` (a
 * path), else the first of `workspaceUris` (`file://` URIs, percent-decoded; composers and user bubbles of newer
 * versions: chatrxiv storage-reference.md; public readers take `workspaceProjectDir` from the composer, else from its
 * bubbles, whose test data also carry `workspaceUris`).
 * Examples: {workspaceProjectDir: "/home/me/app"} → "/home/me/app"; {workspaceUris: ["file:///home/me/my%20app",
 *   "file:///x"]} → "/home/me/my app"; {} → "".
 */
export function composerWorkspacePath(record: Record<string, unknown>): string {
  const identifier = asObject(record.workspaceIdentifier);
  const fromIdentifier = uriValuePath(identifier?.uri ?? identifier?.configPath);
  if (fromIdentifier) return fromIdentifier;
  if (typeof record.workspaceProjectDir === "string" && record.workspaceProjectDir.trim())
    return record.workspaceProjectDir.trim();
  const uris = Array.isArray(record.workspaceUris) ? record.workspaceUris : [];
  return uris.length > 0 ? uriValuePath(uris[0]) : "";
}
