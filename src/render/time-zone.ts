/**
 * The local time zone's UTC offset at an instant, read from the zone's TZif file (RFC 8536), for the dates text output
 * shows. Why not Date: the first local-time call of JavaScriptCore's Date (getFullYear, getTimezoneOffset) loads ICU's
 * time zones, ~10 ms in a compiled binary (measured here, Bun 1.4.5: a hello-world 7.7 ms, the same with one
 * getFullYear 17.3 ms); a text search paid it on every run for the dates of its results (71 → 60 ms, issue 42).
 * The zone is the one the C library would use: `TZ` (`:Area/City`, `Area/City` under `TZDIR` or
 * /usr/share/zoneinfo, or an absolute path), else /etc/localtime. Instants after the file's last transition follow its
 * footer, a POSIX TZ rule (`CET-1CEST,M3.5.0,M10.5.0/3`, POSIX.1-2017 §8.3 with RFC 8536's extensions).
 * Whenever the zone cannot be read (no file, an empty `TZ`, a malformed file or rule), the answer is undefined and the
 * caller asks Date, as before.
 */
import { readFileSync } from "node:fs";

/** A zone as its TZif file gives it: transition instants (s, ascending), the offset (s) from each, and the footer. */
interface Zone {
  transitions: number[];
  offsets: number[];
  /** Offset before the first transition (time type 0), s. */
  initial: number;
  rule: Rule | undefined;
}

/** A POSIX TZ rule: the standard offset, and the daylight-saving one with its yearly start and end, all in s east of UTC. */
interface Rule {
  standard: number;
  daylight?: { offset: number; start: RuleDate; end: RuleDate };
}

/** `Jn` (1–365, no Feb 29), `n` (0–365) or `Mm.w.d`, and the local time of the change in s (may be negative or > 24 h). */
type RuleDate =
  | { kind: "julian" | "day"; day: number; at: number }
  | { kind: "month"; month: number; week: number; weekday: number; at: number };

const zones = new Map<string, Zone | null>();

/**
 * Minutes east of UTC of the local zone at `ms` (epoch ms): 60 for Berlin in winter, -240 for New York in summer;
 * undefined when the zone cannot be read from its file (then Date#getTimezoneOffset is the answer). Cached per `TZ`.
 */
export function localOffsetMinutes(ms: number): number | undefined {
  const key = process.env.TZ ?? "\u0000localtime";
  let zone = zones.get(key);
  if (zone === undefined) {
    zone = loadZone(process.env.TZ) ?? null;
    zones.set(key, zone);
  }
  if (zone === null || !Number.isFinite(ms)) return undefined;
  return offsetAt(zone, Math.floor(ms / 1000)) / 60;
}

function loadZone(tz: string | undefined): Zone | undefined {
  if (tz === "") return undefined;
  const name = tz?.startsWith(":") ? tz.slice(1) : tz;
  if (name !== undefined && (name.split("/").includes("..") || name.length === 0)) return undefined;
  const path =
    name === undefined
      ? "/etc/localtime"
      : name.startsWith("/")
        ? name
        : `${process.env.TZDIR || "/usr/share/zoneinfo"}/${name}`;
  try {
    return parseTzif(readFileSync(path));
  } catch {
    return undefined;
  }
}

/**
 * Parse a TZif file (RFC 8536 §3): the version-2+ block (64-bit times) and footer when present, else version 1.
 * @throws Error on a file that is not TZif or is cut short
 */
function parseTzif(bytes: Uint8Array): Zone {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = (at: number) => {
    // "TZif", compared byte by byte: a text search reads this file in every run, and in a fresh process a spread of
    // the bytes into String.fromCharCode took ~0.2 ms by itself (issue 42), as Array.from did below
    if (bytes[at] !== 0x54 || bytes[at + 1] !== 0x5a || bytes[at + 2] !== 0x69 || bytes[at + 3] !== 0x66)
      throw new Error("not a TZif file");
    const count = (i: number) => view.getUint32(at + 20 + 4 * i);
    return {
      version: bytes[at + 4]!,
      isUt: count(0),
      isStd: count(1),
      leap: count(2),
      time: count(3),
      type: count(4),
      chars: count(5),
    };
  };
  const first = header(0);
  const blockLength = (h: ReturnType<typeof header>, timeBytes: number) =>
    h.time * timeBytes + h.time + h.type * 6 + h.chars + h.leap * (timeBytes + 4) + h.isStd + h.isUt;
  const v1Length = 44 + blockLength(first, 4);
  const wide = first.version >= 0x32; // '2' or later: a second header and block with 64-bit times, then the footer
  const start = wide ? v1Length : 0;
  const h = wide ? header(start) : first;
  const timeBytes = wide ? 8 : 4;
  let at = start + 44;
  const transitions: number[] = [];
  // a 64-bit time as its high (signed) and low (unsigned) halves: exact below 2^53 s, which every real one is
  for (let i = 0; i < h.time; i++, at += timeBytes)
    transitions.push(wide ? view.getInt32(at) * 2 ** 32 + view.getUint32(at + 4) : view.getInt32(at));
  const typeOf: number[] = [];
  for (let i = 0; i < h.time; i++) typeOf.push(bytes[at + i]!);
  at += h.time;
  const typeOffsets: number[] = [];
  for (let i = 0; i < h.type; i++) typeOffsets.push(view.getInt32(at + 6 * i));
  if (typeOffsets.length === 0) throw new Error("a TZif file without time types");
  const offsets = typeOf.map((type) => {
    const offset = typeOffsets[type];
    if (offset === undefined) throw new Error("a transition to an unknown time type");
    return offset;
  });
  let rule: Rule | undefined;
  if (wide) {
    const footerStart = start + 44 + blockLength(h, 8);
    if (footerStart >= bytes.length || bytes[footerStart] !== 0x0a) throw new Error("a TZif file without its footer");
    const footerEnd = bytes.indexOf(0x0a, footerStart + 1);
    const text = new TextDecoder().decode(bytes.subarray(footerStart + 1, footerEnd < 0 ? bytes.length : footerEnd));
    if (text !== "") rule = parseRule(text);
  }
  return { transitions, offsets, initial: typeOffsets[0]!, rule };
}

/** Offset in s at instant `t` (s). */
function offsetAt(zone: Zone, t: number): number {
  const { transitions, offsets } = zone;
  if (transitions.length === 0 || t < transitions[0]!)
    return transitions.length === 0 && zone.rule ? ruleOffset(zone.rule, t) : zone.initial;
  if (t >= transitions.at(-1)! && zone.rule) return ruleOffset(zone.rule, t);
  let low = 0;
  let high = transitions.length - 1; // the last transition at or before t
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (transitions[middle]! <= t) low = middle;
    else high = middle - 1;
  }
  return offsets[low]!;
}

/**
 * Parse a POSIX TZ rule (`std offset [dst [offset] [,start[/time],end[/time]]]`; names plain or `<…>`; offsets west of
 * UTC as written, returned east). @throws Error when it is malformed or names daylight saving time without dates
 */
function parseRule(text: string): Rule {
  let rest = text;
  const take = (pattern: RegExp): string | undefined => {
    const match = pattern.exec(rest);
    if (!match) return undefined;
    rest = rest.slice(match[0].length);
    return match[0];
  };
  const name = /^(<[^>]*>|[A-Za-z]{3,})/;
  const clock = /^[+-]?\d{1,3}(:\d{1,2}){0,2}/;
  if (!take(name)) throw new Error(`a time zone rule without a name: ${text}`);
  const standardText = take(clock);
  if (standardText === undefined) throw new Error(`a time zone rule without an offset: ${text}`);
  const standard = -seconds(standardText);
  if (rest === "") return { standard };
  if (!take(name)) throw new Error(`a malformed time zone rule: ${text}`);
  const daylightText = take(clock);
  const offset = daylightText === undefined ? standard + 3600 : -seconds(daylightText);
  const dates = /^,([^,/]+)(\/[^,]+)?,([^,/]+)(\/[^,]+)?$/.exec(rest);
  if (!dates) throw new Error(`a time zone rule without its dates: ${text}`);
  return {
    standard,
    daylight: { offset, start: ruleDate(dates[1]!, dates[2]), end: ruleDate(dates[3]!, dates[4]) },
  };
}

/** `[+-]hh[:mm[:ss]]` in s. */
function seconds(text: string): number {
  const sign = text.startsWith("-") ? -1 : 1;
  const [hours = 0, minutes = 0, secs = 0] = text.replace(/^[+-]/, "").split(":").map(Number);
  return sign * (hours * 3600 + minutes * 60 + secs);
}

function ruleDate(date: string, time: string | undefined): RuleDate {
  const at = time === undefined ? 7200 : seconds(time.slice(1)); // 02:00 local by default
  const month = /^M(\d{1,2})\.(\d)\.(\d)$/.exec(date);
  if (month) return { kind: "month", month: Number(month[1]), week: Number(month[2]), weekday: Number(month[3]), at };
  const julian = /^J(\d{1,3})$/.exec(date);
  if (julian) return { kind: "julian", day: Number(julian[1]), at };
  if (/^\d{1,3}$/.test(date)) return { kind: "day", day: Number(date), at };
  throw new Error(`a malformed date in a time zone rule: ${date}`);
}

const dayS = 86_400;

/** Offset in s at instant `t` under a rule: its year is the one local standard time is in. */
function ruleOffset(rule: Rule, t: number): number {
  const daylight = rule.daylight;
  if (!daylight) return rule.standard;
  const year = new Date((t + rule.standard) * 1000).getUTCFullYear();
  // the start is given in local standard time, the end in local daylight-saving time
  const start = localMidnight(daylight.start, year) + daylight.start.at - rule.standard;
  const end = localMidnight(daylight.end, year) + daylight.end.at - daylight.offset;
  const inDaylight = start < end ? t >= start && t < end : !(t >= end && t < start);
  return inDaylight ? daylight.offset : rule.standard;
}

/** The day a rule date names in `year`, as s since the epoch at its 00:00 (as if UTC). */
function localMidnight(date: RuleDate, year: number): number {
  if (date.kind !== "month") {
    const january1 = Date.UTC(year, 0, 1) / 1000;
    if (date.kind === "day") return january1 + date.day * dayS;
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return january1 + (date.day - 1 + (leap && date.day >= 60 ? 1 : 0)) * dayS;
  }
  const first = new Date(Date.UTC(year, date.month - 1, 1));
  const daysInMonth = new Date(Date.UTC(year, date.month, 0)).getUTCDate();
  let day = 1 + ((date.weekday - first.getUTCDay() + 7) % 7) + (date.week - 1) * 7;
  while (day > daysInMonth) day -= 7; // week 5: the last such weekday
  return Date.UTC(year, date.month - 1, day) / 1000;
}
