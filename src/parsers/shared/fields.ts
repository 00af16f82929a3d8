/**
 * Readers of decoded JSON fields shared by the JSON-based parsers (Claude Code, Codex, Gemini CLI):
 * ISO timestamps to epoch ms, narrowing an unknown value to a plain object, and the project name of a
 * recorded working-directory path.
 */

/**
 * Epoch ms UTC of an ISO-8601 timestamp field, 0 when missing, not a string or unparsable.
 * Examples: `"2026-03-01T10:00:00.000Z"` → 1772359200000; `undefined` → 0; `"soon"` → 0.
 */
export function timeOf(value: unknown): number {
  if (typeof value !== "string") return 0;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : 0;
}

/** The value as a plain object (not null, not an array), or undefined. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Last path component of a project path, for POSIX and Windows paths (a session's project name).
 * Examples: `/Users/x/proj` → `proj`; `C:\Users\x\proj` → `proj`; `/a/b/` → `b`; `` → ``.
 */
export function projectNameOf(path: string): string {
  const parts = path.split(/[\\/]+/).filter((part) => part.length > 0);
  return parts.at(-1) ?? "";
}
