/**
 * Path helpers for where agents keep their data: the environment as a plain record, `~` expansion, and list
 * variables. Shared by every agent's source.ts (its default folders) and by paths.ts (flags and lists).
 */
import { isAbsolute, join, resolve } from "node:path";

/** Environment variables read here (a plain record so tests pass their own). */
export type Environment = Record<string, string | undefined>;

/** Expand a leading `~` and make the path absolute against `cwd`. */
export function expandPath(path: string, home: string, cwd: string = process.cwd()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/**
 * Split a list variable on `separator` (`:` for recall's lists, `,` for CLAUDE_CONFIG_DIR), dropping empty entries so
 * the current folder never sneaks in. Example: `"a::b:"` → `["a", "b"]`.
 */
export function splitList(value: string | undefined, separator: string): string[] {
  if (!value) return [];
  return value
    .split(separator)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}
