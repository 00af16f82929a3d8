/**
 * Reading one task folder of the Cline family: the chat (`ui_messages.json`, a JSON array of `ClineMessage`s) and the
 * side files that say where and with what model it ran. Shapes, from the agents' own source:
 * - `ClineMessage` `{ts, type: "ask"|"say", ask?, say?, text?, images?, files?, partial?, reasoning?, modelInfo?,
 *   conversationHistoryIndex?, …}` (cline/cline src/shared/ExtensionMessage.ts @beb3ad78; Roo Code's
 *   `clineMessageSchema`, RooCodeInc/Roo-Code packages/types/src/message.ts @cb836567). `modelInfo` `{modelId,
 *   providerId, mode}` is Cline's only (src/shared/messages/metrics.ts), on messages of 2025-10 and later.
 * - Roo Code `history_item.json` (`HistoryItem`: `workspace`, `parentTaskId`, `mode`, …; packages/types/src/history.ts,
 *   written per task since 2026-02, src/core/task-persistence/TaskHistoryStore.ts).
 * - Cline `task_metadata.json` (`TaskMetadata`: `model_usage[{ts, model_id, model_provider_id, mode}]`,
 *   src/core/context/context-tracking/ContextTrackerTypes.ts).
 * A side file that is missing or not JSON is left out (counted in `skipped` when it exists but is not JSON).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SourceError } from "../../errors.ts";
import { fsReason, isMissingError } from "../file-stats.ts";
import { asObject } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import type { SkipReport } from "../types.ts";
import { historyItemFileName, taskMetadataFileName } from "./scan.ts";

/** One model a task switched to, and from when (Cline `task_metadata.json` `model_usage`). */
export interface ModelSwitch {
  /** Epoch ms. */
  ts: number;
  model: string;
}

/** What one task folder holds, decoded. */
export interface TaskFolder {
  /** The chat's messages as written (each an object or whatever the array held). */
  messages: unknown[];
  /** Roo Code `history_item.json` `workspace`, "" when absent. */
  workspace: string;
  /** Roo Code `history_item.json` `parentTaskId`, null when absent. */
  parentTaskId: string | null;
  /** Cline `task_metadata.json` `model_usage`, in time order; [] when absent. */
  modelSwitches: ModelSwitch[];
  /** Bytes read from disk. */
  bytesRead: number;
}

/**
 * Read the task folder of one `ui_messages.json`.
 * @throws SourceError when the chat cannot be read, or is not a complete JSON array (being written)
 */
export function loadTaskFolder(uiMessagesPath: string, skipped: SkipReport): TaskFolder {
  let text: string;
  try {
    text = readFileSync(uiMessagesPath, "utf8");
  } catch (error) {
    throw new SourceError(`cannot read task chat ${uiMessagesPath}: ${fsReason(error)}`, uiMessagesPath, {
      cause: error,
    });
  }
  let messages: unknown;
  try {
    messages = JSON.parse(text);
  } catch {
    messages = undefined;
  }
  if (!Array.isArray(messages)) {
    throw new SourceError(`${uiMessagesPath} is not a complete json array (being written?)`, uiMessagesPath);
  }
  const taskDir = dirname(uiMessagesPath);
  const item = readSideFile(join(taskDir, historyItemFileName), skipped);
  const metadata = readSideFile(join(taskDir, taskMetadataFileName), skipped);
  return {
    messages,
    workspace: typeof item.value?.workspace === "string" ? item.value.workspace : "",
    parentTaskId:
      typeof item.value?.parentTaskId === "string" && item.value.parentTaskId ? item.value.parentTaskId : null,
    modelSwitches: modelSwitchesOf(metadata.value?.model_usage),
    bytesRead: Buffer.byteLength(text) + item.bytes + metadata.bytes,
  };
}

/** A side file's object, or undefined when it is missing, unreadable or not a JSON object (then counted). */
function readSideFile(
  path: string,
  skipped: SkipReport,
): { value: Record<string, unknown> | undefined; bytes: number } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (!isMissingError(error)) noteSkip(skipped, path, "side file unreadable");
    return { value: undefined, bytes: 0 };
  }
  try {
    const value = asObject(JSON.parse(text));
    if (!value) noteSkip(skipped, path, "side file not a JSON object");
    return { value, bytes: Buffer.byteLength(text) };
  } catch {
    noteSkip(skipped, path, "side file not JSON");
    return { value: undefined, bytes: Buffer.byteLength(text) };
  }
}

function modelSwitchesOf(value: unknown): ModelSwitch[] {
  if (!Array.isArray(value)) return [];
  const switches: ModelSwitch[] = [];
  for (const entry of value) {
    const object = asObject(entry);
    if (typeof object?.model_id === "string" && object.model_id && typeof object.ts === "number") {
      switches.push({ ts: object.ts, model: object.model_id });
    }
  }
  return switches.sort((a, b) => a.ts - b.ts);
}
