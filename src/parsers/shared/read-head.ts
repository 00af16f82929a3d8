/**
 * Reading the start of a file without reading the whole: the scans that need a header or a version before they list
 * a file's units (Claude Code's inline sub-agents, Codex's session_meta, Gemini CLI's sessionId) read its first bytes.
 */
import { closeSync, openSync, readSync } from "node:fs";

/**
 * The first `bytes` bytes of a file as UTF-8 text (a character cut at the end decodes as U+FFFD), and whether that
 * is the whole file.
 * @throws the fs error when the file cannot be opened or read (callers report it as unavailable or leave it out)
 */
export function readHead(path: string, bytes: number): { text: string; whole: boolean } {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return { text: buffer.toString("utf8", 0, read), whole: read < bytes };
  } finally {
    closeSync(fd);
  }
}
