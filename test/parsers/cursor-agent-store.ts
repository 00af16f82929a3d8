/**
 * Writes a cursor-agent chat store from test/fixtures/cursor-agent/chat.json the way cursor-agent lays it out
 * (docs/formats/cursor-agent.md): `blobs(id TEXT PRIMARY KEY, data BLOB)` keyed by the sha256 of each blob, every
 * message one UTF-8 JSON blob, a protocol-buffer root blob (field 1: the messages' raw 32-byte ids in order, field 9:
 * the workspace URI) and `meta(key TEXT PRIMARY KEY, value TEXT)` holding the metadata under key `0` as hex JSON.
 */
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The fixture chat: metadata, workspace URI and messages. */
export interface ChatFixture {
  chatId: string;
  workspace: string;
  meta: Record<string, unknown>;
  messages: unknown[];
}

/** The fixture chat, parsed. */
export function readChatFixture(): ChatFixture {
  return JSON.parse(readFileSync(join(import.meta.dir, "../fixtures/cursor-agent/chat.json"), "utf8")) as ChatFixture;
}

/** The md5 of a workspace path: the name of its folder under `~/.cursor/chats`. */
export function workspaceHash(path: string): string {
  return createHash("md5").update(path, "utf8").digest("hex");
}

const sha256 = (data: Uint8Array): Buffer => createHash("sha256").update(data).digest();

const varint = (value: number): number[] => {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
};

/** One length-delimited protocol-buffer field. */
const field = (number: number, payload: Uint8Array): Buffer =>
  Buffer.concat([Buffer.from([...varint((number << 3) | 2), ...varint(payload.length)]), payload]);

/**
 * Write `<chatsDir>/<md5 of workspace path>/<chat id>/store.db` for `chat` and return its path.
 * @param rawMessages extra blobs listed in the root after the messages, as given (e.g. bytes that are not JSON)
 */
export function writeChatStore(chatsDir: string, chat: ChatFixture, rawMessages: Uint8Array[] = []): string {
  const workspacePath = new URL(chat.workspace).pathname;
  const dir = join(chatsDir, workspaceHash(workspacePath), chat.chatId);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "store.db");
  const db = new Database(path, { create: true });
  try {
    db.run("create table blobs (id text primary key, data blob)");
    db.run("create table meta (key text primary key, value text)");
    const insert = db.prepare("insert or ignore into blobs (id, data) values (?, ?)");
    const ids: Buffer[] = [];
    for (const data of [
      ...chat.messages.map((message) => Buffer.from(JSON.stringify(message), "utf8")),
      ...rawMessages,
    ]) {
      const id = sha256(data);
      insert.run(id.toString("hex"), data);
      ids.push(id);
    }
    const root = Buffer.concat([...ids.map((id) => field(1, id)), field(9, Buffer.from(chat.workspace, "utf8"))]);
    const rootId = sha256(root).toString("hex");
    insert.run(rootId, root);
    insert.finalize(); // an unfinalized statement would keep the file open after close
    const meta = { ...chat.meta, latestRootBlobId: rootId };
    db.run("insert into meta (key, value) values ('0', ?)", [
      Buffer.from(JSON.stringify(meta), "utf8").toString("hex"),
    ]);
  } finally {
    db.close();
  }
  return path;
}
