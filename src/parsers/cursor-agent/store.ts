/**
 * Reading one cursor-agent chat store, `<chat id>/store.db` (docs/formats/cursor-agent.md), read-only
 * (shared/readonly-sqlite.ts). Two tables, `meta(key TEXT PRIMARY KEY, value TEXT)` and `blobs(id TEXT PRIMARY KEY, data
 * BLOB)`: `meta` key `0` is the chat's metadata as hex-encoded UTF-8 JSON (`agentId`, `latestRootBlobId`, `name`,
 * `mode`, `createdAt` in epoch ms, `lastUsedModel`); `blobs` is content-addressed (`id` = sha256 of `data`, hex). The
 * root blob `latestRootBlobId` is a protocol-buffer message whose repeated field 1 holds the raw 32-byte ids of the
 * conversation's message blobs, in order, and whose field 9 holds the workspace as a `file://` URI; each message blob is
 * UTF-8 JSON. Sources: yashas-salankimatt/sidecar docs/plans/cursor-cli-adapter.md @4b230572 (tables, meta, message
 * JSON), the store its Python adapter's tests build (root fields 1 and 9), chenhg5/tape's Cursor CLI source tests
 * (root field 1, message parts) and a token reader's notes on a real store (meta hex JSON, protobuf root).
 */
import {
  closeReadonlyDatabase,
  DatabaseContentError,
  openReadonlySqlite,
  type ReadonlyDatabase,
} from "../shared/readonly-sqlite.ts";
import { asObject } from "../shared/fields.ts";
import { bytesFields } from "./protobuf.ts";

/** A chat store has both `meta` and `blobs`. */
function checkSchema(tables: Set<string>): Record<string, never> {
  if (!tables.has("meta") || !tables.has("blobs"))
    throw new DatabaseContentError("not a cursor-agent chat store (no meta or blobs table)");
  return {};
}

/**
 * Open one `store.db`, run `read` on it and close it again: a user has one store per chat, hundreds of them, so none is
 * kept open between calls (unlike the one database of OpenCode or the few of Cursor's editor).
 * @throws SourceError `<path>: <phrase>` when it cannot be read now (zero bytes, locked, malformed, not a chat store);
 *   whatever `read` throws
 */
export function withChatStore<T>(path: string, read: (handle: ReadonlyDatabase) => T, busyTimeoutMs = 2000): T {
  const handle = openReadonlySqlite(path, {
    busyTimeoutMs,
    tempPrefix: "recall-cursor-agent-",
    schemaCheck: checkSchema,
  });
  try {
    return read(handle);
  } finally {
    closeReadonlyDatabase(handle);
  }
}

/** The chat's metadata as the store keeps it under `meta` key `0`. */
export interface ChatMeta {
  agentId: string | null;
  latestRootBlobId: string | null;
  name: string | null;
  /** Epoch ms; 0 when absent. */
  createdAt: number;
  lastUsedModel: string | null;
}

const text = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);

/**
 * The metadata under `meta` key `0`, hex-decoded and parsed; null when the row is missing or is not hex JSON.
 * `createdAt` is a number in the stores seen, a numeric string in others (both read).
 */
export function readChatMeta(handle: ReadonlyDatabase): ChatMeta | null {
  const row = handle.db.query<{ value: unknown }, []>("select value from meta where key = '0'").get();
  const raw =
    typeof row?.value === "string"
      ? row.value
      : row?.value instanceof Uint8Array
        ? Buffer.from(row.value).toString("utf8")
        : "";
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(raw)) return null;
  let value: Record<string, unknown> | undefined;
  try {
    value = asObject(JSON.parse(Buffer.from(raw, "hex").toString("utf8")));
  } catch {
    return null;
  }
  if (!value) return null;
  const created = Number(value.createdAt);
  return {
    agentId: text(value.agentId),
    latestRootBlobId: text(value.latestRootBlobId),
    name: text(value.name),
    createdAt: Number.isFinite(created) && created > 0 ? created : 0,
    lastUsedModel: text(value.lastUsedModel),
  };
}

/** One blob's bytes by its hex id; null when absent. */
export function readBlob(handle: ReadonlyDatabase, id: string): Uint8Array | null {
  const row = handle.db.query<{ data: unknown }, [string]>("select data from blobs where id = ?").get(id.toLowerCase());
  if (row?.data instanceof Uint8Array) return row.data;
  return typeof row?.data === "string" ? Buffer.from(row.data, "utf8") : null;
}

/** What a root blob names: the message blobs in order (hex ids) and the workspace folder ("" when absent). */
export interface ChatRoot {
  messageIds: string[];
  workspacePath: string;
}

/**
 * Decode a root blob: field 1 entries of 32 bytes are message ids, field 9 a `file://` URI (or a plain path).
 * @returns null when the bytes are not a protocol-buffer message
 */
export function decodeRoot(data: Uint8Array): ChatRoot | null {
  const fields = bytesFields(data);
  if (!fields) return null;
  const messageIds: string[] = [];
  let workspacePath = "";
  for (const { field, value } of fields) {
    if (field === 1 && value.length === 32) messageIds.push(Buffer.from(value).toString("hex"));
    else if (field === 9 && !workspacePath) workspacePath = pathOfWorkspace(Buffer.from(value).toString("utf8"));
  }
  return { messageIds, workspacePath };
}

/** `file:///Users/me/My%20Project` → `/Users/me/My Project`; a plain absolute path unchanged; "" otherwise. */
export function pathOfWorkspace(value: string): string {
  if (value.startsWith("file://")) {
    try {
      // Bun's own (the same results and errors as node:url's), so the scan that loads this file never loads node:url
      return Bun.fileURLToPath(value);
    } catch {
      return "";
    }
  }
  return value.startsWith("/") || /^[A-Za-z]:[\\/]/.test(value) ? value : "";
}
