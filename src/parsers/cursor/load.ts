/**
 * Load one Cursor chat (a unit from units.ts) from its database as messages plus session facts
 * (docs/formats.md §5). Reads only the chat's own keys: the chat-data or composer-list item for
 * workspace chats, `composerData:<id>` and the `bubbleId:<id>:*` key range for global composers.
 * Broken, `null` or missing bubbles are skipped and counted, never thrown; so are bubble rows of the composer that
 * no header lists (issue 26: read but not kept, e.g. the messages after a restored checkpoint). A header without a
 * `type` takes its bubble's own; a bubble missing from the key range is taken from the composer's
 * `conversationMap` when it is there (the older inline layout, chatrxiv storage-reference.md).
 */
import { SourceError } from "../../errors.ts";
import { asObject } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import type { SkipReport, SourceUnit } from "../types.ts";
import { openCursorDatabase, readDiskRange, readDiskValue, readItem, type CursorDatabase } from "./database.ts";
import {
  composerBubbleMessage,
  composerWorkspacePath,
  epochMs,
  legacyTabMessages,
  parseObject,
  type ChatMessage,
} from "./records.ts";
import { bubblePrefix, chatDataKey, composerDataPrefix, composerListKey, type ChatKind } from "./units.ts";

/** One chat ready for turn building. Times epoch ms UTC (0 when unknown). */
export interface LoadedChat {
  messages: ChatMessage[];
  title: string | null;
  createdAt: number;
  updatedAt: number;
  /** Time the last prompt was sent (legacy tab `lastSendTime`), 0 when not recorded. */
  lastPromptAt: number;
  /** Branch the composer was created on (`createdOnBranch`), when recorded. */
  gitBranch: string | null;
  /**
   * Project folder the chat names itself (records.ts `composerWorkspacePath`: the composer's, else its first bubble's
   * that has one), "" when none; the unit's folder from the listing comes first (cursor.ts).
   */
  projectPath: string;
  /**
   * The summary Cursor wrote when it last summarized the composer's conversation to free context
   * (`latestConversationSummary.summary.summary`, issue 41), or null.
   */
  conversationSummary: string | null;
  bytesRead: number;
  skipped: SkipReport;
}

/** Find the array entry whose `idKey` equals `id`. */
function findById(list: unknown, idKey: string, id: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const value of list) {
    const entry = asObject(value);
    if (entry?.[idKey] === id) return entry;
  }
  return undefined;
}

const nonEmpty = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);

/** Messages of an inline `conversation[]` (2024 composers), counting bubbles of unknown type. */
function inlineMessages(
  composer: Record<string, unknown>,
  place: string,
  withOutputs: boolean,
  skipped: SkipReport,
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const codeBlockData = asObject(composer.codeBlockData);
  const conversation = Array.isArray(composer.conversation) ? composer.conversation : [];
  conversation.forEach((value, index) => {
    const bubble = asObject(value);
    const message = bubble ? composerBubbleMessage(bubble, codeBlockData, withOutputs) : undefined;
    if (message) messages.push(message);
    else noteSkip(skipped, `${place}: conversation[${index}]`, "not a user or assistant bubble");
  });
  return messages;
}

function composerFacts(
  composer: Record<string, unknown>,
): Pick<LoadedChat, "title" | "createdAt" | "updatedAt" | "gitBranch" | "projectPath" | "conversationSummary"> {
  return {
    title: nonEmpty(composer.name),
    createdAt: epochMs(composer.createdAt),
    updatedAt: epochMs(composer.lastUpdatedAt),
    gitBranch: nonEmpty(composer.createdOnBranch),
    projectPath: composerWorkspacePath(composer),
    conversationSummary: nonEmpty(asObject(asObject(composer.latestConversationSummary)?.summary)?.summary),
  };
}

/** Global composer: headers in `fullConversationHeadersOnly` order, bodies from `bubbleId:<id>:<bubble>`. */
function loadGlobalComposer(
  handle: CursorDatabase,
  sessionId: string,
  withOutputs: boolean,
  chat: LoadedChat,
): boolean {
  const key = `${composerDataPrefix}${sessionId}`;
  const text = readDiskValue(handle, key);
  if (text === null) return false;
  chat.bytesRead += text.length;
  const composer = parseObject(text);
  if (!composer) throw new SourceError(`${handle.path}: ${key}: not a JSON object`, handle.path);
  Object.assign(chat, composerFacts(composer));
  const headers = Array.isArray(composer.fullConversationHeadersOnly) ? composer.fullConversationHeadersOnly : [];
  if (headers.length === 0) {
    chat.messages = inlineMessages(composer, `${handle.path}: ${key}`, withOutputs, chat.skipped);
    return true;
  }
  const bodies = new Map<string, string | null>();
  for (const row of readDiskRange(handle, `${bubblePrefix}${sessionId}:`)) {
    bodies.set(row.key.slice(bubblePrefix.length + sessionId.length + 1), row.value);
    chat.bytesRead += row.value?.length ?? 0;
  }
  const inline = asObject(composer.conversationMap) ?? {};
  const codeBlockData = asObject(composer.codeBlockData);
  const listed = new Set<string>();
  for (const value of headers) {
    const header = asObject(value);
    const bubbleId = header?.bubbleId;
    if (typeof bubbleId !== "string") {
      noteSkip(chat.skipped, `${handle.path}: ${key}`, "header without bubbleId");
      continue;
    }
    listed.add(bubbleId);
    const place = `${handle.path}: ${bubblePrefix}${sessionId}:${bubbleId}`;
    const stored = bodies.get(bubbleId);
    const bubble = bodies.has(bubbleId) ? parseObject(stored ?? null) : asObject(inline[bubbleId]);
    if (!bubble) {
      noteSkip(chat.skipped, place, bodies.has(bubbleId) ? "not a JSON object" : "missing");
      continue;
    }
    if (!chat.projectPath) chat.projectPath = composerWorkspacePath(bubble);
    const message = composerBubbleMessage(bubble, codeBlockData, withOutputs, header?.type);
    if (message) chat.messages.push(message);
    else noteSkip(chat.skipped, place, "not a user or assistant bubble");
  }
  for (const bubbleId of bodies.keys()) {
    if (!listed.has(bubbleId))
      noteSkip(
        chat.skipped,
        `${handle.path}: ${bubblePrefix}${sessionId}:${bubbleId}`,
        "bubble not in the conversation",
      );
  }
  return true;
}

/**
 * Load the chat of one unit.
 * @throws SourceError when the database cannot be read now, or the chat is no longer in it
 */
export function loadChat(unit: SourceUnit, withOutputs: boolean, busyTimeoutMs?: number): LoadedChat {
  const handle = openCursorDatabase(unit.containerPath, busyTimeoutMs);
  const kind = String(unit.locator?.kind ?? "") as ChatKind;
  const chat: LoadedChat = {
    messages: [],
    title: null,
    createdAt: 0,
    updatedAt: 0,
    lastPromptAt: 0,
    gitBranch: null,
    projectPath: "",
    conversationSummary: null,
    bytesRead: 0,
    skipped: { count: 0 },
  };
  let found = false;
  try {
    if (kind === "global-composer") found = loadGlobalComposer(handle, unit.sessionId, withOutputs, chat);
    else {
      const key = kind === "tab" ? chatDataKey : composerListKey;
      const text = readItem(handle, key);
      chat.bytesRead += text?.length ?? 0;
      const data = parseObject(text);
      const place = `${handle.path}: ${key}`;
      if (kind === "tab") {
        const tab = findById(data?.tabs, "tabId", unit.sessionId);
        if (tab) {
          found = true;
          chat.messages = legacyTabMessages(tab, `${place}: tab ${unit.sessionId}`, chat.skipped);
          chat.title = nonEmpty(tab.chatTitle);
          chat.updatedAt = epochMs(tab.lastSendTime);
          chat.lastPromptAt = chat.updatedAt;
        }
      } else {
        const composer = findById(data?.allComposers, "composerId", unit.sessionId);
        if (composer) {
          found = true;
          Object.assign(chat, composerFacts(composer));
          chat.messages = inlineMessages(composer, `${place}: composer ${unit.sessionId}`, withOutputs, chat.skipped);
        }
      }
    }
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(`${unit.containerPath}: ${(error as Error).message.toLowerCase()}`, unit.containerPath, {
      cause: error,
    });
  }
  if (!found)
    throw new SourceError(`cursor chat ${unit.sessionId} not found in ${unit.containerPath}`, unit.containerPath);
  return chat;
}
