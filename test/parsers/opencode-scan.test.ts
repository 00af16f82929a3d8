import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { containerKind, opencodeParser } from "../../src/parsers/opencode.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/opencode");
const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fake home: `.local/share/opencode` with a db, a credentials file, JSON storage and a legacy project. */
function makeDataRoot(): { home: string; data: string } {
  const home = mkdtempSync(join(tmpdir(), "recall-oc-scan-"));
  tempDirs.push(home);
  const data = join(home, ".local", "share", "opencode");
  mkdirSync(data, { recursive: true });
  cpSync(join(fixtures, "json-storage", "storage"), join(data, "storage"), { recursive: true });
  cpSync(join(fixtures, "legacy", "project"), join(data, "project"), { recursive: true });
  writeFileSync(join(data, "opencode-stable.db"), "");
  writeFileSync(join(data, "auth.json"), '{"anthropic":{"type":"oauth","access":"SECRET"}}');
  writeFileSync(join(data, "notes.db"), "");
  return { home, data };
}

const fingerprintOf = (storage: string) => opencodeParser.scan([storage]).containers[0]?.fingerprint;

/** Set the times of a folder and everything below it to `ageMs` ago, as on a disk OpenCode stopped writing to. */
function age(dir: string, ageMs: number): void {
  const then = new Date(Date.now() - ageMs);
  for (const name of readdirSync(dir, { recursive: true }) as string[]) utimesSync(join(dir, name), then, then);
  utimesSync(dir, then, then);
}

/** Rewrite a file in place and put back its folder's times (so only the file itself says it changed). */
function rewriteInPlace(file: string, text: string): void {
  const folder = join(file, "..");
  const times = statSync(folder);
  writeFileSync(file, text);
  utimesSync(folder, times.atime, times.mtime);
}

const twoDaysMs = 2 * 24 * 60 * 60 * 1000;

describe("OpenCode scan (stats only)", () => {
  test("a data folder yields its databases, its JSON storage and each legacy project storage, and no credential file", () => {
    const { data } = makeDataRoot();
    const { containers, missingRoots } = opencodeParser.scan([data]);
    expect(missingRoots).toEqual([]);
    expect(containers.map((container) => container.path)).toEqual([
      join(data, "opencode-stable.db"),
      join(data, "storage"),
      join(data, "project", "prj_old", "storage"),
    ]);
    expect(containers.map((container) => containerKind(container.path))).toEqual(["db", "json", "legacy"]);
    expect(JSON.stringify(containers)).not.toContain("auth.json");
  });

  test("the parent folder, the home folder, the storage folder or the db file itself work as roots too", () => {
    const { home, data } = makeDataRoot();
    const pathsFrom = (root: string) => opencodeParser.scan([root]).containers.map((container) => container.path);
    expect(pathsFrom(join(home, ".local", "share"))).toEqual(pathsFrom(data));
    expect(pathsFrom(home)).toEqual(pathsFrom(data));
    expect(pathsFrom(join(data, "storage"))).toEqual([join(data, "storage")]);
    expect(pathsFrom(join(data, "opencode-stable.db"))).toEqual([join(data, "opencode-stable.db")]);
  });

  test("the same container reached through two roots is listed once; a missing root is reported", () => {
    const { home, data } = makeDataRoot();
    const { containers, missingRoots } = opencodeParser.scan([data, home, join(home, "nope")]);
    expect(containers).toHaveLength(3);
    expect(missingRoots).toEqual([join(home, "nope")]);
  });

  test("the JSON storage fingerprint is stable, and changes when a session, message or part is added or the newest message rewritten", () => {
    const { data } = makeDataRoot();
    const storage = join(data, "storage");
    const steps: Array<() => void> = [
      () => writeFileSync(join(storage, "part", "msg_c02", "prt_c02c.json"), "{}"),
      () => utimesSync(join(storage, "message", "ses_child", "msg_c02.json"), new Date(), new Date(Date.now() + 9000)),
      () => writeFileSync(join(storage, "message", "ses_child", "msg_c03.json"), "{}"),
      () => writeFileSync(join(storage, "session", "prj_app", "ses_new.json"), "{}"),
    ];
    let previous = fingerprintOf(storage);
    expect(fingerprintOf(storage)).toBe(previous);
    for (const step of steps) {
      step();
      const next = fingerprintOf(storage);
      expect(next).not.toBe(previous);
      previous = next;
    }
  });

  test("JSON storage quiet for two days: the fingerprint is stable and still changes with a new message, a new session or a session file rewritten; the newest parts of a quiet session are not read", () => {
    const { data } = makeDataRoot();
    const storage = join(data, "storage");
    age(storage, twoDaysMs);
    const quiet = fingerprintOf(storage);
    expect(fingerprintOf(storage)).toBe(quiet);
    // What the window saves: a quiet session's newest part, rewritten in place, is left to the listing's change key.
    rewriteInPlace(join(storage, "part", "msg_c02", "prt_c02b.json"), "{}");
    expect(fingerprintOf(storage)).toBe(quiet);
    const steps: Array<() => void> = [
      () => rewriteInPlace(join(storage, "session", "prj_app", "ses_main.json"), '{"title":"renamed"}'),
      () => writeFileSync(join(storage, "message", "ses_shared", "msg_s02.json"), "{}"),
      () => writeFileSync(join(storage, "session", "prj_app", "ses_new.json"), "{}"),
      // ses_shared is recent now: a part of its newest message rewritten in place is seen again
      () => {
        mkdirSync(join(storage, "part", "msg_s02"));
        writeFileSync(join(storage, "part", "msg_s02", "prt_s02a.json"), "{}");
      },
      () => rewriteInPlace(join(storage, "part", "msg_s02", "prt_s02a.json"), '{"type":"text"}'),
    ];
    let previous = quiet;
    for (const step of steps) {
      step();
      const next = fingerprintOf(storage);
      expect(next).not.toBe(previous);
      previous = next;
    }
  });

  test("legacy storage quiet for two days: a new message changes the fingerprint, a quiet part rewritten does not", () => {
    const { data } = makeDataRoot();
    const legacy = join(data, "project", "prj_old", "storage");
    age(legacy, twoDaysMs);
    const quiet = fingerprintOf(legacy);
    rewriteInPlace(join(legacy, "session", "part", "ses_legacy", "msg_l4", "prt_l4.json"), "{}");
    expect(fingerprintOf(legacy)).toBe(quiet);
    writeFileSync(join(legacy, "session", "message", "ses_legacy", "msg_l5.json"), "{}");
    expect(fingerprintOf(legacy)).not.toBe(quiet);
  });

  test("the legacy storage fingerprint changes when a part is added", () => {
    const { data } = makeDataRoot();
    const legacy = join(data, "project", "prj_old", "storage");
    const before = fingerprintOf(legacy);
    const partDir = join(legacy, "session", "part", "ses_legacy", "msg_l4");
    writeFileSync(join(partDir, "prt_l5.json"), "{}");
    utimesSync(partDir, new Date(), new Date(Date.now() + 5000));
    expect(fingerprintOf(legacy)).not.toBe(before);
  });

  test("a session's change key moves when a message is added to it", () => {
    const { data } = makeDataRoot();
    const storage = join(data, "storage");
    const keyOf = () =>
      opencodeParser.listUnits(opencodeParser.scan([storage]).containers).find((unit) => unit.sessionId === "ses_child")
        ?.changeKey;
    const before = keyOf();
    writeFileSync(
      join(storage, "message", "ses_child", "msg_c03.json"),
      JSON.stringify({ role: "user", time: { created: 1300 } }, null, 2),
    );
    expect(keyOf()).not.toBe(before);
  });

  test("an empty or unrelated folder yields no containers and is not missing", () => {
    const empty = mkdtempSync(join(tmpdir(), "recall-oc-empty-"));
    tempDirs.push(empty);
    expect(opencodeParser.scan([empty])).toEqual({ containers: [], missingRoots: [], unavailable: [] });
  });
});
