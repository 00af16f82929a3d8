/**
 * The sessions inside pi session files: one file = one session, named by its header line's `id` (pi names the file
 * `<ISO time with - for :.>_<id>.jsonl`, session-manager.ts `newSession`, but a `--session` file may be named
 * anything, so the header decides).
 */
import type { HeaderSpec } from "../shared/header-units.ts";
import { headerOf } from "./entries.ts";

/** pi's header line: `{"type":"session","version":3,"id":"…",…}` (session-manager.ts `SessionHeader`). */
export const piHeaderSpec: HeaderSpec = {
  source: "pi",
  sessionIdOf: (value) => headerOf(value)?.id ?? null,
  sessionIdOfOpening: (opening) => /^\{"type":"session",(?:"version":\d+,)?"id":"([^"]+)"/.exec(opening)?.[1] ?? null,
  noHeader: "no session header",
};
