/**
 * The sessions inside Droid session files: one `<id>.jsonl` = one session, named by its first line, a `session_start`
 * record `{type:"session_start", id, title, sessionTitle?, owner, version, cwd, callingSessionId?, callingToolUseId?}`
 * (verbatim lines in entireio/cli `cmd/entire/cli/agent/factoryaidroid/subagent_session_test.go`). A sub-agent's
 * `title` holds its whole task and can run past 300 KB (same file), so a long first line is read by its opening.
 */
import type { HeaderSpec } from "../shared/header-units.ts";

/** Droid's header line. */
export const droidHeaderSpec: HeaderSpec = {
  source: "droid",
  sessionIdOf: (value) =>
    value.type === "session_start" && typeof value.id === "string" && value.id.length > 0 ? value.id : null,
  sessionIdOfOpening: (opening) => /^\{"type":"session_start","id":"([^"]+)"/.exec(opening)?.[1] ?? null,
  noHeader: "no session_start line",
};
