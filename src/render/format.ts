/**
 * Small formatting helpers shared by the text renderers: colors (only on a TTY, never with
 * NO_COLOR; see terminal.ts), dates, truncation, byte sizes.
 */
import type { AbstractPart, AbstractSource } from "../parsers/types.ts";
import { noProjectLabel } from "../search/listing/filters.ts";
import type { Preview } from "../search/index.ts";
import { previewPieces } from "../search/reading/preview-pieces.ts";
import { neutralizeControls } from "./escapes.ts";
import type { Palette } from "./terminal.ts";
import { localOffsetMinutes } from "./time-zone.ts";

export { paletteFor, type Palette } from "./terminal.ts";

/** Epoch ms → ISO-8601 UTC (`2026-03-01T10:00:00.000Z`), or null for 0/unknown. */
export function isoTime(ms: number): string | null {
  return ms > 0 ? new Date(ms).toISOString() : null;
}

/**
 * The fields every JSON answer names a session by, first and in this order (README "JSON output"): its id, source,
 * project name, project folder and title.
 */
export function sessionIdentityJson(session: {
  sessionId: string;
  source: string;
  project: string;
  projectPath: string;
  title: string | null;
}) {
  return {
    session_id: session.sessionId,
    source: session.source,
    project: session.project,
    project_path: session.projectPath,
    title: session.title,
  };
}

/** How the text surfaces name each source of an abstract part (parsers/types.ts `AbstractSource`). */
export const abstractSourceLabels: Record<AbstractSource, string> = {
  summary: "summary",
  compaction: "compaction summary",
  recap: "recap",
  agent_summary: "agent's summary",
  agent_title: "also titled",
};

/**
 * The JSON of a session's abstract (issue 41), in every answer that lists sessions: `[{source, text, written_at}]`,
 * `source` one of summary | compaction | recap | agent_summary | agent_title, `written_at` ISO-8601 UTC or null.
 */
export function abstractJson(abstract: readonly AbstractPart[]) {
  return abstract.map((part) => ({ source: part.source, text: part.text, written_at: isoTime(part.at) }));
}

/**
 * The part of an abstract a one-line view shows: the first that is not just another title (the summary, a compaction
 * summary, a recap, the agent's summary), or undefined when there is none.
 */
export const abstractHead = (abstract: readonly AbstractPart[]): AbstractPart | undefined =>
  abstract.find((part) => part.source !== "agent_title");

/**
 * The one line a text listing shows under a session's title: its first abstract part that is not just another title
 * (the summary when there is one, else the newest compaction summary, a recap, the agent's summary) as `<label>:
 * <text>`, the text on one line cut to `maxChars`; null when there is none (the JSON keeps every part, titles too).
 * Example: `compaction summary: 1. Primary request: move the CI to GitHub Actions…`.
 */
export function abstractLine(abstract: readonly AbstractPart[], maxChars: number): string | null {
  const first = abstractHead(abstract);
  return first ? `${abstractSourceLabels[first.source]}: ${oneLine(first.text, maxChars)}` : null;
}

const twoDigits = (value: number): string => String(value).padStart(2, "0");

/** Minutes east of UTC of the local time zone at `ms`: from its TZif file (time-zone.ts), else from Date. */
function offsetMinutes(ms: number): number {
  return localOffsetMinutes(ms) ?? -new Date(ms).getTimezoneOffset();
}

/** The local wall clock at `ms` as a Date whose UTC fields are the local ones (getUTCFullYear is the local year). */
function wallClock(ms: number): Date {
  return new Date(ms + offsetMinutes(ms) * 60_000);
}

/** `YYYY-MM-DD` of a wall clock (see {@link wallClock}). */
function localDay(wall: Date): string {
  return `${wall.getUTCFullYear()}-${twoDigits(wall.getUTCMonth() + 1)}-${twoDigits(wall.getUTCDate())}`;
}

/**
 * The local time zone's offset at `ms` as people read it: `UTC` for offset 0, else `+01:00` / `-05:00`
 * (daylight saving time is the one in force at that instant).
 */
export function zoneLabel(ms: number): string {
  const offset = Math.round(offsetMinutes(ms));
  if (offset === 0) return "UTC";
  const minutes = Math.abs(offset);
  return `${offset < 0 ? "-" : "+"}${twoDigits(Math.floor(minutes / 60))}:${twoDigits(minutes % 60)}`;
}

/** Epoch ms → `YYYY-MM-DD` in the local time zone (text output; JSON keeps UTC via isoTime), or `unknown`. */
export function localDate(ms: number): string {
  return ms > 0 ? localDay(wallClock(ms)) : "unknown";
}

/** Epoch ms → `YYYY-MM-DD HH:MM <zone>` in the local time zone, e.g. `2026-03-01 11:00 +01:00`, `2026-03-01 10:00 UTC`; or `unknown`. */
export function localMinute(ms: number): string {
  if (!(ms > 0)) return "unknown";
  const wall = wallClock(ms);
  return `${localDay(wall)} ${twoDigits(wall.getUTCHours())}:${twoDigits(wall.getUTCMinutes())} ${zoneLabel(ms)}`;
}

/**
 * The text marker of a session whose source is gone (issue 9): `(source deleted, last seen 2026-11-20)`;
 * "" for a present session.
 */
export function sourceDeletedMarker(session: { sourceStatus: "present" | "deleted"; lastSeenAt: number }): string {
  return session.sourceStatus === "deleted" ? `(source deleted, last seen ${localDate(session.lastSeenAt)})` : "";
}

/** The text marker of a session known only from a prompt-history file (issue 11). */
export const promptOnlyMarker = "(prompts only: no transcript on this machine)";

/** Shown instead of the prompt of a turn that opens with an answer (the transcript starts with an assistant line). */
export const noPromptNote = "(no prompt recorded: the transcript starts with this answer)";

/** What `show` and MCP `read_turns` say instead of "turns 0-0 of 0" for a session without any turn. */
export const noTurnsNote =
  "no turns: the source holds no prompt or answer for this session (a summary or snapshot only)";

/** The session facts a marker is printed for; `here` and `archived` as search results carry them (hydrate.ts ResultPlace). */
export interface MarkedSession {
  sourceStatus: "present" | "deleted";
  lastSeenAt: number;
  promptOnly: boolean;
  here?: boolean;
  archived?: { pushedBy: string; machine: string; team: string };
}

/** `by alice@laptop, team alpha`: who pushed an archived session and from where (the machine name on one line). */
export function archiveOriginText(origin: { pushedBy: string; machine: string; team: string }): string {
  return `by ${origin.pushedBy}@${oneLine(origin.machine, 60)}, team ${origin.team}`;
}

/**
 * The markers printed after a session or turn line, each with a leading space: {@link promptOnlyMarker} and
 * {@link sourceDeletedMarker}; for a search result from the team archive, where it is held instead (a session only the
 * archive holds: who pushed it, from where; its source's state is the pusher's, not said). "" for a present session
 * with a transcript that only this machine's index was asked about.
 * Examples: ` (prompts only: no transcript on this machine) (source deleted, last seen 2026-11-20)`;
 *   ` (team archive: by alice@laptop, team alpha)`; ` (also in the team archive)`.
 */
export function sessionMarkers(session: MarkedSession): string {
  if (session.here === false && session.archived) return ` (team archive: ${archiveOriginText(session.archived)})`;
  const archived = session.archived ? " (also in the team archive)" : "";
  return `${session.promptOnly ? ` ${promptOnlyMarker}` : ""}${session.sourceStatus === "deleted" ? ` ${sourceDeletedMarker(session)}` : ""}${archived}`;
}

/**
 * Collapse whitespace and cut to `maxChars` with `…`. Reads only as much of `text` as the line needs: a prefix twice
 * the line's length, four times longer while it collapses to `maxChars` or fewer (issue 37: collapsing a whole 50 MB
 * prompt to show 90 characters of it took a second). Same result as collapsing the whole text: once the collapsed
 * prefix is longer than `maxChars`, its first `maxChars - 1` characters are the whole text's.
 * Example: ("  fix\n\nthe   build ", 9) → "fix the …".
 */
export function oneLine(text: string, maxChars: number): string {
  let read = Math.min(text.length, 2 * maxChars + 64);
  let flat = text.slice(0, read).replace(/\s+/g, " ").trim();
  while (flat.length <= maxChars && read < text.length) {
    read = Math.min(text.length, read * 4);
    flat = text.slice(0, read).replace(/\s+/g, " ").trim();
  }
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

/**
 * A range of turns for people: `turn 3` (not `turns 3-3`, issue 26), `turns 3-5`, `rewound turn r1`,
 * `rewound turns r1-r2`.
 */
export function turnSpan(from: number, to: number, rewound = false): string {
  const label = (n: number) => (rewound ? `r${n}` : String(n));
  const noun = rewound ? "rewound turn" : "turn";
  return from === to ? `${noun} ${label(from)}` : `${noun}s ${label(from)}-${label(to)}`;
}

/** `1 turn`, `2 turns`, `0 sessions`: a count and its noun, singular for exactly one. */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * A session's project as the text surfaces spell it (CLI, MCP answers, picker rows): the project itself,
 * or `(no project)` when the source recorded none (search/listing/filters.ts `noProjectLabel`, which `--project` also takes).
 *   `"/home/dev/shop"` → `"/home/dev/shop"`;  `""` → `"(no project)"`
 */
export function projectLabel(project: string): string {
  return project || noProjectLabel;
}

/** Bytes → `12.3 MB` (decimal units). */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * A preview with its matches marked: bold yellow on a color terminal, `[word]` otherwise
 * (so a pipe or an agent still sees what matched). Control characters of the session text are shown
 * as `\xNN` (escapes.ts); the marks are added after, so they still colour.
 */
export function highlight(preview: Preview, palette: Palette): string {
  const mark = palette.isColorSupported
    ? (text: string) => palette.bold(palette.yellow(text))
    : (text: string) => `[${text}]`;
  return previewPieces(preview)
    .map((piece) => (piece.matched ? mark(neutralizeControls(piece.text)) : neutralizeControls(piece.text)))
    .join("");
}

/** Round a score for output (4 decimals); undefined stays undefined. */
export function roundScore(score: number | undefined): number | undefined {
  return score === undefined ? undefined : Math.round(score * 10_000) / 10_000;
}

/** A session id shortened to 12 characters for text output (JSON always carries the full id). */
export const shortId = (id: string): string => id.slice(0, 12);
