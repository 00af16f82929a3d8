/**
 * Issue 42: the local offset read from the zone's TZif file (src/render/time-zone.ts) equals what Date (ICU) says, for
 * zones with daylight saving time in either hemisphere, half-hour and 45-minute offsets, negative daylight saving
 * (Dublin) and rules abolished (São Paulo), past, present and beyond the files' last transitions (their POSIX rule).
 * The zone is switched at run time through process.env.TZ, which Bun honours for Date too.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localOffsetMinutes } from "../../src/render/time-zone.ts";
import { restoreTimeZoneAfterEach } from "../helpers/time-zone.ts";

const zoneinfo = "/usr/share/zoneinfo";
const work = mkdtempSync(join(tmpdir(), "recall-time-zone-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
restoreTimeZoneAfterEach();

const hour = 3_600_000;
/** Instants every `stepMs` from `fromYear` to `toYear` (UTC), plus one minute before and after each step. */
function instants(fromYear: number, toYear: number, stepMs: number): number[] {
  const list: number[] = [];
  for (let ms = Date.UTC(fromYear, 0, 1); ms < Date.UTC(toYear, 0, 1); ms += stepMs)
    list.push(ms - 60_000, ms, ms + 60_000);
  return list;
}

/** The instants where the file's offset and Date's differ, with both (at most 5). */
function mismatches(zone: string, times: number[]): Array<{ at: string; file: number | undefined; date: number }> {
  process.env.TZ = zone;
  const found: Array<{ at: string; file: number | undefined; date: number }> = [];
  for (const ms of times) {
    const file = localOffsetMinutes(ms);
    const date = -new Date(ms).getTimezoneOffset();
    if (file !== date && found.length < 5) found.push({ at: new Date(ms).toISOString(), file, date });
  }
  return found;
}

const zones = [
  "UTC",
  "Europe/Berlin",
  "Europe/London",
  "Europe/Dublin",
  "America/New_York",
  "America/Los_Angeles",
  "America/St_Johns",
  "America/Sao_Paulo",
  "Australia/Sydney",
  "Australia/Lord_Howe",
  "Pacific/Auckland",
  "Pacific/Chatham",
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Asia/Tokyo",
];

describe.skipIf(!existsSync(zoneinfo))(`offsets from the zone files in ${zoneinfo}`, () => {
  test("every 20 minutes of 2024–2027 and every 7 hours of 1995–2060, the file's offset is Date's", () => {
    const near = instants(2024, 2028, hour / 3);
    const far = instants(1995, 2061, 7 * hour);
    for (const zone of zones) {
      expect({ zone, mismatches: mismatches(zone, near) }).toEqual({ zone, mismatches: [] });
      expect({ zone, mismatches: mismatches(zone, far) }).toEqual({ zone, mismatches: [] });
    }
  });

  test("TZ as `:Area/City` and as an absolute path names the same zone; unset TZ reads /etc/localtime", () => {
    const summer = Date.UTC(2026, 6, 1);
    process.env.TZ = ":Europe/Berlin";
    expect(localOffsetMinutes(summer)).toBe(120);
    process.env.TZ = `${zoneinfo}/America/New_York`;
    expect(localOffsetMinutes(summer)).toBe(-240);
    delete process.env.TZ;
    if (existsSync("/etc/localtime")) expect(localOffsetMinutes(summer)).toBe(-new Date(summer).getTimezoneOffset());
  });
});

describe("zones that cannot be read are left to Date", () => {
  test("an unknown zone, an empty TZ, a path out of the zone folder, or a file that is not TZif: undefined", () => {
    const garbage = join(work, "garbage");
    writeFileSync(garbage, "TZif2 but not really");
    for (const zone of ["Nowhere/Atlantis", "", "../../etc/passwd", garbage]) {
      process.env.TZ = zone;
      expect({ zone, offset: localOffsetMinutes(Date.UTC(2026, 0, 1)) }).toEqual({ zone, offset: undefined });
    }
  });
});

/**
 * A TZif version-2 file with no transitions and one time type: every instant follows its footer `rule` (RFC 8536 §3:
 * a v1 block, a v2 header and block with 64-bit times, then the footer between newlines).
 */
function footerOnlyZone(rule: string, standardOffsetS: number): string {
  const block = (): Uint8Array => {
    const bytes = new Uint8Array(10);
    const view = new DataView(bytes.buffer);
    view.setInt32(0, standardOffsetS); // ttinfo: utoff, isdst 0, desigidx 0
    bytes.set([0x53, 0x54, 0x44, 0], 6); // "STD\0"
    return bytes;
  };
  const header = (): Uint8Array => {
    const bytes = new Uint8Array(44);
    bytes.set([0x54, 0x5a, 0x69, 0x66, 0x32]); // "TZif2"
    const view = new DataView(bytes.buffer);
    view.setUint32(36, 1); // typecnt
    view.setUint32(40, 4); // charcnt
    return bytes;
  };
  const footer = new TextEncoder().encode(`\n${rule}\n`);
  const file = join(work, `rule-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, Buffer.concat([header(), block(), header(), block(), footer]));
  return file;
}

describe("POSIX rules of a file's footer (all instants beyond its last transition)", () => {
  const years = instants(2026, 2032, hour / 2);
  test.skipIf(!existsSync(zoneinfo))(
    "the rules of New York, Sydney, Dublin and Lord Howe give their zones' offsets",
    () => {
      const cases: Array<[string, number, string]> = [
        ["EST5EDT,M3.2.0,M11.1.0", -5 * 3600, "America/New_York"],
        ["AEST-10AEDT,M10.1.0,M4.1.0/3", 10 * 3600, "Australia/Sydney"],
        ["IST-1GMT0,M10.5.0,M3.5.0/1", 3600, "Europe/Dublin"],
        ["<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", 10.5 * 3600, "Australia/Lord_Howe"],
      ];
      for (const [rule, standard, zone] of cases) {
        process.env.TZ = footerOnlyZone(rule, standard);
        const fromRule = years.map((ms) => localOffsetMinutes(ms));
        process.env.TZ = zone;
        const fromDate = years.map((ms) => -new Date(ms).getTimezoneOffset());
        expect({ rule, same: fromRule.every((offset, i) => offset === fromDate[i]) }).toEqual({ rule, same: true });
      }
    },
  );

  test("Julian-day dates and a default daylight offset one hour ahead of standard time", () => {
    process.env.TZ = footerOnlyZone("<-03>3<-02>,J60/2,J300/2", -3 * 3600);
    // J60 is 1 March in every year (February 29 is never counted); 02:00 local standard time is 05:00 UTC
    expect(localOffsetMinutes(Date.UTC(2028, 2, 1, 4, 59))).toBe(-180);
    expect(localOffsetMinutes(Date.UTC(2028, 2, 1, 5, 0))).toBe(-120);
    // J300 is 27 October; 02:00 local daylight time is 04:00 UTC
    expect(localOffsetMinutes(Date.UTC(2027, 9, 27, 3, 59))).toBe(-120);
    expect(localOffsetMinutes(Date.UTC(2027, 9, 27, 4, 0))).toBe(-180);
  });

  test("a rule without daylight saving time is its standard offset; a malformed rule leaves the zone to Date", () => {
    process.env.TZ = footerOnlyZone("<+0545>-5:45", 5.75 * 3600);
    expect(localOffsetMinutes(Date.UTC(2030, 5, 1))).toBe(345);
    process.env.TZ = footerOnlyZone("EST5EDT,M3.2", -5 * 3600);
    expect(localOffsetMinutes(Date.UTC(2030, 5, 1))).toBeUndefined();
  });
});
