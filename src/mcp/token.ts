/**
 * The bearer token of `recall mcp --http` (issue 10): 32 random bytes (base64url, 43 characters) kept in
 * `<config>/mcp-token`, created 0600 in a 0700 folder on first use and reused after, so a client registered
 * once keeps working across restarts. A token file that other users can read is refused, never used.
 */
import { timingSafeEqual, randomBytes } from "node:crypto";
import { linkSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IndexError } from "../errors.ts";
import { makePrivateDirs, type RecallPaths } from "../index/index.ts";

/** Name of the token file in the config folder. */
export const tokenFileName = "mcp-token";

/** Path of the token file: `<config>/mcp-token`. */
export function tokenPath(paths: RecallPaths): string {
  return join(paths.config, tokenFileName);
}

function unusable(path: string, why: string, hint: string, cause?: unknown): IndexError {
  return new IndexError("HOME_UNUSABLE", `cannot use the MCP token file ${path}: ${why}`, { hint, cause });
}

function readToken(path: string): string {
  const stat = statSync(path);
  if ((stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, "0");
    throw unusable(
      path,
      `other users can read it (mode ${mode})`,
      `run \`chmod 600 ${path}\`, or delete it so recall makes a new one`,
    );
  }
  if (typeof process.getuid === "function" && stat.uid !== process.getuid())
    throw unusable(path, "it belongs to another user", `delete it so recall makes a new one`);
  const token = readFileSync(path, "utf8").trim();
  if (token.length < 32) throw unusable(path, "it holds no token", `delete it so recall makes a new one`);
  return token;
}

/**
 * The token, made on first use. Creation is atomic (a private temporary file linked into place), so two servers
 * starting together agree on one token.
 * @returns the token and the path of its file
 * @throws IndexError HOME_UNUSABLE when the file is readable by others, not ours, empty, or cannot be written
 */
export function ensureToken(paths: RecallPaths): { token: string; path: string } {
  const path = tokenPath(paths);
  try {
    return { token: readToken(path), path };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    makePrivateDirs(paths.config);
    writeFileSync(temporary, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error; // another server made it first: use theirs
    }
  } catch (error) {
    throw unusable(path, (error as Error).message, "check that you own the config folder (see `recall doctor`)", error);
  } finally {
    rmSync(temporary, { force: true });
  }
  return { token: readToken(path), path };
}

/**
 * True when an `Authorization` header carries exactly `Bearer <token>` (compared in constant time).
 * Examples: `Bearer abc…` (right token) → true; `bearer abc…` → true; `Basic …`, null, a wrong token → false.
 */
export function isAuthorized(header: string | null, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
