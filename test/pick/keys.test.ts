import { describe, expect, test } from "bun:test";
import type { Key } from "ink";
import { actionOf, editQuery, moveSelection, type QueryLine } from "../../src/pick/keys.ts";

/** An Ink key event with the given flags set. */
const key = (flags: Partial<Key> = {}): Key =>
  ({
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
    ...flags,
  }) as Key;

/** `|` marks the cursor. */
const line = (marked: string): QueryLine => ({ text: marked.replace("|", ""), cursor: marked.indexOf("|") });
const marked = (query: QueryLine) => `${query.text.slice(0, query.cursor)}|${query.text.slice(query.cursor)}`;

describe("keys", () => {
  test("the issue's keys map to their actions", () => {
    expect(actionOf("", key({ downArrow: true }))).toEqual({ kind: "move", by: 1 });
    expect(actionOf("n", key({ ctrl: true }))).toEqual({ kind: "move", by: 1 });
    expect(actionOf("p", key({ ctrl: true }))).toEqual({ kind: "move", by: -1 });
    expect(actionOf("", key({ pageDown: true }))).toEqual({ kind: "page", by: 1 });
    expect(actionOf("", key({ pageUp: true }))).toEqual({ kind: "page", by: -1 });
    expect(actionOf("", key({ home: true }))).toEqual({ kind: "first" });
    expect(actionOf("", key({ end: true }))).toEqual({ kind: "last" });
    expect(actionOf("", key({ tab: true }))).toEqual({ kind: "toggle-turns" });
    expect(actionOf("o", key({ ctrl: true }))).toEqual({ kind: "read" });
    expect(actionOf("", key({ return: true }))).toEqual({ kind: "resume" });
    expect(actionOf("", key({ escape: true }))).toEqual({ kind: "back" });
    expect(actionOf("c", key({ ctrl: true }))).toEqual({ kind: "quit" });
  });

  test("printable text is inserted, a paste whole; control characters never reach the query", () => {
    expect(actionOf("é", key())).toEqual({ kind: "edit", edit: { kind: "insert", text: "é" } });
    expect(actionOf("docker network", key())).toEqual({
      kind: "edit",
      edit: { kind: "insert", text: "docker network" },
    });
    expect(actionOf("a\u001b[31mb\u0007", key())).toEqual({ kind: "edit", edit: { kind: "insert", text: "a[31mb" } });
    expect(actionOf("\u0000", key())).toEqual({ kind: "none" });
    expect(actionOf("x", key({ meta: true }))).toEqual({ kind: "none" });
  });
});

describe("query line", () => {
  test("inserting, deleting and moving keep the cursor where a person expects it", () => {
    expect(marked(editQuery(line("do|"), { kind: "insert", text: "ck" }))).toBe("dock|");
    expect(marked(editQuery(line("do|ker"), { kind: "insert", text: "c" }))).toBe("doc|ker");
    expect(marked(editQuery(line("docker net|"), { kind: "delete-word" }))).toBe("docker |");
    expect(marked(editQuery(line("docker |net"), { kind: "delete-word" }))).toBe("|net");
    expect(marked(editQuery(line("a|b"), { kind: "backspace" }))).toBe("|b");
    expect(marked(editQuery(line("|ab"), { kind: "backspace" }))).toBe("|ab");
    expect(marked(editQuery(line("a|b"), { kind: "delete" }))).toBe("a|");
    expect(marked(editQuery(line("ab|"), { kind: "delete" }))).toBe("ab|");
    expect(marked(editQuery(line("ab|c"), { kind: "clear" }))).toBe("|");
    expect(marked(editQuery(line("ab|c"), { kind: "cursor", to: "start" }))).toBe("|abc");
    expect(marked(editQuery(line("ab|c"), { kind: "cursor", to: "end" }))).toBe("abc|");
  });

  test("an emoji or an accented letter is one step for the arrows, Backspace and Delete", () => {
    const family = "👨‍👩‍👧";
    expect(marked(editQuery(line(`a${family}|`), { kind: "backspace" }))).toBe("a|");
    expect(marked(editQuery(line(`a${family}|`), { kind: "cursor", to: "left" }))).toBe(`a|${family}`);
    expect(marked(editQuery(line(`a|${family}b`), { kind: "cursor", to: "right" }))).toBe(`a${family}|b`);
    expect(marked(editQuery(line(`|e\u0301x`), { kind: "delete" }))).toBe("|x");
    expect(marked(editQuery(line("调度|器"), { kind: "backspace" }))).toBe("调|器");
  });

  test("a selection stays within the rows", () => {
    expect(moveSelection(3, 1, 10)).toBe(4);
    expect(moveSelection(0, -1, 10)).toBe(0);
    expect(moveSelection(8, 5, 10)).toBe(9);
    expect(moveSelection(4, 3, 0)).toBe(0);
  });
});
