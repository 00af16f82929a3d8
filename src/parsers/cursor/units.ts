/**
 * Cursor listing: the chats inside each `state.vscdb` (docs/formats.md §5), one unit per legacy chat
 * tab (`tabId`) or composer (`composerId`), with a cheap change key per chat so one changed chat
 * re-parses alone. A composer can sit in a workspace db (`composer.composerData`, inline
 * `conversation[]`, 2024) and in the global db (`cursorDiskKV`, newer): it is one session. The copy
 * with more messages wins (Cursor moved conversations to the global db and kept the workspace list as
 * an index, so the global copy is the superset); on a tie the global copy wins. A global composer's
 * project is the `workspace.json` folder of the workspace db that lists its id, else the folder it names
 * itself (records.ts `composerWorkspacePath`: `workspaceIdentifier`, `workspaceProjectDir`, `workspaceUris`), else
 * "" (the parse then tries its bubbles'). What is not listed (issue 26): a chat without any text (an empty
 * composer, a tab holding only the input-box draft) holds nothing to keep; a chat value that cannot be read (not
 * JSON, no id) is reported through `onRejected` as `<db path>#<key>`.
 */
import { hashOf } from "../shared/sha1.ts";
import { asObject } from "../shared/fields.ts";
import { rejectFile } from "../shared/skips.ts";
import type { ParserHooks, SourceUnit } from "../types.ts";
import { bubbleStatsByComposer, readDiskRange, readItem, type CursorDatabase } from "./database.ts";
import { bubbleText, composerWorkspacePath, parseObject, workspaceFolder } from "./records.ts";

/** ItemTable key of legacy chat tabs (formats.md §5). */
export const chatDataKey = "workbench.panel.aichat.view.aichat.chatdata";
/** ItemTable key of the workspace's composer list (formats.md §5). */
export const composerListKey = "composer.composerData";
/** cursorDiskKV key prefixes of composer headers and bubbles (formats.md §5). */
export const composerDataPrefix = "composerData:";
export const bubblePrefix = "bubbleId:";

/** Where a chat's messages live. */
export type ChatKind = "tab" | "workspace-composer" | "global-composer";

/** One chat found in one database, before de-duplication across databases. */
export interface ChatCandidate {
  unit: SourceUnit;
  kind: ChatKind;
  /** Messages the chat holds (bubbles or headers), for choosing between copies. */
  messageCount: number;
}

/** What one database contributes to the listing. */
export interface DatabaseListing {
  candidates: ChatCandidate[];
  /** Composer id → project folder, from workspace dbs whose composer list names the id. */
  composerFolders: Map<string, string>;
  /** Sub-composer id → parent composer id (`subComposerIds` of global composers). */
  composerParents: Map<string, string>;
}

function makeCandidate(
  databasePath: string,
  kind: ChatKind,
  sessionId: string,
  changeKey: string,
  messageCount: number,
  projectPath: string,
): ChatCandidate {
  return {
    unit: {
      source: "cursor",
      key: `${databasePath}#${sessionId}`,
      sessionId,
      containerPath: databasePath,
      changeKey: `${changeKey}:${projectPath}`,
      locator: { kind, projectPath, parentId: null },
    },
    kind,
    messageCount,
  };
}

/** True when any bubble holds text (a prompt or an answer, in any of the fields records.ts `bubbleText` reads). */
const hasText = (bubbles: readonly unknown[]): boolean =>
  bubbles.some((value) => {
    const bubble = asObject(value);
    return bubble !== undefined && bubbleText(bubble).trim().length > 0;
  });

/**
 * Chats of one open database. Change keys: tab and inline composer = SHA-1 of the chat's JSON; global
 * composer = SHA-1 of its `composerData` value + bubble row count + total bubble length.
 * A tab or inline composer is listed when one of its bubbles holds text; a global composer when it lists any
 * bubble header (typed or not: some versions leave `type` to the bubble) or its inline conversation holds text.
 * A value that is not a JSON object, and a tab or composer with text but without its id, are reported through
 * `hooks.onRejected` as `<db path>#<key>` (`not a JSON object`, `chat tab without tabId`, `composer without composerId`).
 */
export function listDatabaseChats(handle: CursorDatabase, hooks?: ParserHooks): DatabaseListing {
  const listing: DatabaseListing = { candidates: [], composerFolders: new Map(), composerParents: new Map() };
  const folder = workspaceFolder(handle.path);

  const chatText = readItem(handle, chatDataKey);
  if (chatText !== null) {
    const chatData = parseObject(chatText);
    if (!chatData) rejectFile(hooks, `${handle.path}#${chatDataKey}`, "not a JSON object");
    for (const value of Array.isArray(chatData?.tabs) ? chatData.tabs : []) {
      const tab = asObject(value);
      const bubbles = Array.isArray(tab?.bubbles) ? tab.bubbles : [];
      if (!hasText(bubbles)) continue;
      if (typeof tab?.tabId !== "string" || !tab.tabId) {
        rejectFile(hooks, `${handle.path}#${chatDataKey}`, "chat tab without tabId");
        continue;
      }
      listing.candidates.push(
        makeCandidate(handle.path, "tab", tab.tabId, hashOf(JSON.stringify(tab)), bubbles.length, folder),
      );
    }
  }

  const composerText = readItem(handle, composerListKey);
  if (composerText !== null) {
    const composerList = parseObject(composerText);
    if (!composerList) rejectFile(hooks, `${handle.path}#${composerListKey}`, "not a JSON object");
    for (const value of Array.isArray(composerList?.allComposers) ? composerList.allComposers : []) {
      const composer = asObject(value);
      const conversation = Array.isArray(composer?.conversation) ? composer.conversation : [];
      if (typeof composer?.composerId !== "string" || !composer.composerId) {
        if (hasText(conversation))
          rejectFile(hooks, `${handle.path}#${composerListKey}`, "composer without composerId");
        continue;
      }
      if (folder) listing.composerFolders.set(composer.composerId, folder);
      if (!hasText(conversation)) continue;
      listing.candidates.push(
        makeCandidate(
          handle.path,
          "workspace-composer",
          composer.composerId,
          hashOf(JSON.stringify(composer)),
          conversation.length,
          folder || composerWorkspacePath(composer),
        ),
      );
    }
  }

  if (!handle.hasDiskKv) return listing;
  const bubbleStats = bubbleStatsByComposer(handle);
  for (const row of readDiskRange(handle, composerDataPrefix)) {
    const composerId = row.key.slice(composerDataPrefix.length);
    const composer = parseObject(row.value);
    if (!composer) {
      if (row.value !== null && row.value !== "null")
        rejectFile(hooks, `${handle.path}#${row.key}`, "not a JSON object");
      continue;
    }
    for (const child of Array.isArray(composer.subComposerIds) ? composer.subComposerIds : []) {
      if (typeof child === "string") listing.composerParents.set(child, composerId);
    }
    const headers = Array.isArray(composer.fullConversationHeadersOnly) ? composer.fullConversationHeadersOnly : [];
    const inline = Array.isArray(composer.conversation) ? composer.conversation : [];
    const stats = bubbleStats.get(composerId) ?? { count: 0, length: 0 };
    if (headers.length === 0 && !hasText(inline)) continue;
    const changeKey = `${hashOf(row.value ?? "")}:${stats.count}:${stats.length}`;
    const projectPath = composerWorkspacePath(composer);
    listing.candidates.push(
      makeCandidate(
        handle.path,
        "global-composer",
        composerId,
        changeKey,
        Math.max(headers.length, inline.length),
        projectPath,
      ),
    );
  }
  return listing;
}

/**
 * Merge the listings of all databases: one unit per session id (more messages wins, then global over
 * workspace), global composers get the project folder of a workspace db naming them and their parent
 * composer id; both are folded into the change key so a move shows up as a change.
 */
export function mergeListings(listings: readonly DatabaseListing[]): SourceUnit[] {
  const folders = new Map<string, string>();
  const parents = new Map<string, string>();
  for (const listing of listings) {
    for (const [id, folder] of listing.composerFolders) if (!folders.has(id)) folders.set(id, folder);
    for (const [child, parent] of listing.composerParents) parents.set(child, parent);
  }
  const chosen = new Map<string, ChatCandidate>();
  for (const listing of listings) {
    for (const candidate of listing.candidates) {
      const current = chosen.get(candidate.unit.sessionId);
      const isBetter =
        !current ||
        candidate.messageCount > current.messageCount ||
        (candidate.messageCount === current.messageCount &&
          candidate.kind === "global-composer" &&
          current.kind !== "global-composer");
      if (isBetter) chosen.set(candidate.unit.sessionId, candidate);
    }
  }
  return [...chosen.values()].map(({ unit, kind }) => {
    if (kind !== "global-composer") return unit;
    const projectPath = folders.get(unit.sessionId) || String(unit.locator?.projectPath ?? "");
    const parentId = parents.get(unit.sessionId) ?? null;
    return {
      ...unit,
      changeKey: `${unit.changeKey}:${projectPath}:${parentId ?? ""}`,
      locator: { kind, projectPath, parentId },
    };
  });
}
