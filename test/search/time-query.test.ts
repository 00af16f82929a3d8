import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseTimeQuery, type TimeExpression } from "../../src/search/index.ts";
import { mightNameDate } from "../../src/search/dates/time-words.ts";

// Issue 13, "time in the query". Every time is local (the parser reads dates in the user's time zone), so the
// expectations are built with local Date constructors and hold in any TZ.
const now = new Date(2026, 10, 23, 15, 0).getTime(); // Monday 23 November 2026, 15:00
const day = (year: number, month: number, date: number) => new Date(year, month - 1, date).getTime();
const endOf = (year: number, month: number, date: number) => day(year, month, date + 1) - 1;

const only = async (query: string): Promise<TimeExpression> => {
  const { expressions } = await parseTimeQuery(query, now);
  expect(expressions.length).toBe(1);
  return expressions[0]!;
};
const range = async (query: string) => {
  const expression = await only(query);
  return { since: expression.since, until: expression.until, label: expression.label };
};

describe("parseTimeQuery reads each kind of date as a local range", () => {
  test("a month and year is that month", async () => {
    expect(await range("What did Melanie paint in July 2023?")).toEqual({
      since: day(2023, 7, 1),
      until: endOf(2023, 7, 31),
      label: "July 2023",
    });
  });

  test("a day with its year is that day, written either way round and with a comma", async () => {
    expect(await range("on 8 May 2023")).toEqual({
      since: day(2023, 5, 8),
      until: endOf(2023, 5, 8),
      label: "8 May 2023",
    });
    expect(await range("What did Gina find on 1 February, 2023?")).toMatchObject({
      since: day(2023, 2, 1),
      until: endOf(2023, 2, 1),
    });
    expect(await range("on October 13, 2023")).toMatchObject({ since: day(2023, 10, 13), until: endOf(2023, 10, 13) });
    expect(await range("the docker bug from 2023-05-01")).toMatchObject({
      since: day(2023, 5, 1),
      until: endOf(2023, 5, 1),
    });
  });

  test("a year after a preposition is that year, and a part of a year is its third", async () => {
    expect(await range("what did we ship in 2023")).toEqual({
      since: day(2023, 1, 1),
      until: endOf(2023, 12, 31),
      label: "2023",
    });
    expect(await range("early 2024 migration")).toEqual({
      since: day(2024, 1, 1),
      until: endOf(2024, 4, 30),
      label: "early 2024",
    });
    expect(await range("from 2019 to 2021")).toEqual({
      since: day(2019, 1, 1),
      until: endOf(2021, 12, 31),
      label: "2019–2021",
    });
  });

  test("relative days count from now: yesterday, today, N days ago", async () => {
    expect(await range("yesterday")).toEqual({
      since: day(2026, 11, 22),
      until: endOf(2026, 11, 22),
      label: "22 Nov 2026",
    });
    expect(await range("what broke earlier today")).toMatchObject({
      since: day(2026, 11, 23),
      until: endOf(2026, 11, 23),
    });
    expect(await range("3 days ago")).toMatchObject({ since: day(2026, 11, 20), until: endOf(2026, 11, 20) });
  });

  test("weeks are Monday to Sunday: last week, this week, two weeks ago", async () => {
    expect(await range("last week")).toEqual({
      since: day(2026, 11, 16),
      until: endOf(2026, 11, 22),
      label: "week of 16 Nov 2026",
    });
    expect(await range("this week")).toMatchObject({ since: day(2026, 11, 23), until: endOf(2026, 11, 29) });
    expect(await range("two weeks ago")).toMatchObject({ since: day(2026, 11, 9), until: endOf(2026, 11, 15) });
  });

  test("last month and last year are the calendar month and year before this one", async () => {
    expect(await range("last month")).toEqual({
      since: day(2026, 10, 1),
      until: endOf(2026, 10, 31),
      label: "October 2026",
    });
    expect(await range("last year")).toEqual({ since: day(2025, 1, 1), until: endOf(2025, 12, 31), label: "2025" });
  });

  test("the past N days run up to the end of today", async () => {
    expect(await range("in the past 3 days")).toMatchObject({ since: day(2026, 11, 20), until: endOf(2026, 11, 23) });
  });

  test("a weekday is the latest one, and the weekend just past", async () => {
    expect(await range("last Friday")).toMatchObject({ since: day(2026, 11, 20), until: endOf(2026, 11, 20) });
    expect(await range("on Friday")).toMatchObject({ since: day(2026, 11, 20), until: endOf(2026, 11, 20) });
    expect(await range("over the weekend")).toEqual({
      since: day(2026, 11, 21),
      until: endOf(2026, 11, 22),
      label: "weekend of 21 Nov 2026",
    });
  });

  test("a month without a year is the latest one that has begun, with the ten years before it to fall back on", async () => {
    const june = await only("When did Melanie go camping in June?");
    expect(june).toMatchObject({ since: day(2026, 6, 1), until: endOf(2026, 6, 30), label: "June 2026" });
    expect(june.earlier.length).toBe(10);
    expect(june.earlier[0]).toEqual({ since: day(2025, 6, 1), until: endOf(2025, 6, 30), label: "June 2025" });
    expect(await range("in December")).toMatchObject({ since: day(2025, 12, 1), until: endOf(2025, 12, 31) });
    expect((await only("in July 2023")).earlier).toEqual([]);
  });

  test("holidays and seasons are read, the latest past one when no year is given", async () => {
    expect(await range("the Christmas party")).toEqual({
      since: day(2025, 12, 24),
      until: endOf(2025, 12, 26),
      label: "Christmas 2025",
    });
    expect(await range("Easter 2024")).toMatchObject({ since: day(2024, 3, 29), until: endOf(2024, 4, 1) });
    expect(await range("What state did Joanna visit in summer 2021?")).toEqual({
      since: day(2021, 6, 1),
      until: endOf(2021, 8, 31),
      label: "summer 2021",
    });
    expect(await range("last winter")).toMatchObject({ since: day(2025, 12, 1), until: endOf(2026, 2, 28) });
    expect((await only("Christmas")).earlier[0]).toMatchObject({ label: "Christmas 2024" });
    expect((await only("last summer")).earlier).toEqual([]); // the latest one only, nothing earlier to fall back on
  });

  test("before, until, after and since make open ranges", async () => {
    expect(await range("before Christmas")).toEqual({
      since: null,
      until: day(2025, 12, 24) - 1,
      label: "before Christmas 2025",
    });
    expect(await range("until Friday")).toMatchObject({ since: null, until: endOf(2026, 11, 20) });
    expect(await range("after July 2022")).toEqual({ since: day(2022, 8, 1), until: null, label: "after July 2022" });
    expect(await range("since Monday")).toEqual({ since: day(2026, 11, 23), until: null, label: "since 23 Nov 2026" });
    expect(await range("since 2024")).toMatchObject({ since: day(2024, 1, 1), until: null });
  });

  test("spans: from A to B, and N units before a date run from that point to the date", async () => {
    expect(await range("from May to July 2023")).toMatchObject({ since: day(2023, 5, 1), until: endOf(2023, 7, 31) });
    expect(await range("the puppy she got two weeks before August 11, 2023")).toMatchObject({
      since: day(2023, 7, 24),
      until: endOf(2023, 8, 11),
    });
    expect(await range("What did Maria do last weekend before April 10, 2023?")).toMatchObject({
      since: day(2023, 4, 8),
      until: endOf(2023, 4, 10),
    });
    expect(await range("Where was John between August 11 and August 15 2023?")).toMatchObject({
      since: day(2023, 8, 11),
      until: endOf(2023, 8, 15),
    });
  });
});

describe("parseTimeQuery leaves numbers, versions and words of coding queries alone", () => {
  const none = [
    "3 files changed",
    "python 3.12",
    "node 20.11.1",
    "bump to v2.1",
    "v1.12.2023 release",
    "port 2022 is busy",
    "2024 migration",
    "fix issue 2023",
    "ES2022 target",
    "3/4 of tests fail",
    "page 2/3",
    "timeout at 10:30",
    "at noon",
    "sat solver",
    "wed",
    "march on",
    "csv sep option",
    "Spring Boot upgrade",
    "bean wiring in the Spring Boot app",
    "fall back to keyword search",
    "what is failing now",
    "next week's release",
    "tomorrow",
    "next Christmas",
    "in 2031",
    "docker network timeout",
  ];
  test.each(none)("%p names no date", async (query) => {
    expect(await parseTimeQuery(query, now)).toEqual({ expressions: [], rest: query });
  });
});

describe("spans and the query without its dates", () => {
  test("the span covers the preposition and the date, and the rest is the query without them", async () => {
    const parsed = await parseTimeQuery("What did Melanie paint in July 2023?", now);
    expect(parsed.expressions[0]).toMatchObject({ text: "in July 2023", span: [23, 35] });
    expect(parsed.rest).toBe("What did Melanie paint ?");
  });

  test("several dates are read in query order, each with its own span", async () => {
    const parsed = await parseTimeQuery("deploy fix last week or in March 2025", now);
    expect(parsed.expressions.map((expression) => [expression.text, expression.span])).toEqual([
      ["last week", [11, 20]],
      ["in March 2025", [24, 37]],
    ]);
    expect(parsed.rest).toBe("deploy fix or");
  });

  test("a plain preposition that belongs to the verb stays out of a date counted from now", async () => {
    expect((await only("What did Maria participate in last weekend?")).text).toBe("last weekend");
  });

  test("a query of only a date leaves an empty rest", async () => {
    expect((await parseTimeQuery("yesterday", now)).rest).toBe("");
  });
});

describe("cost and safety", () => {
  test("the pre-check passes date words and rejects plain coding queries, so they never load chrono", async () => {
    expect(mightNameDate("docker network timeout")).toBe(false);
    expect(mightNameDate("ERR_MODULE_NOT_FOUND in src/app.ts")).toBe(false);
    expect(mightNameDate("what broke last week")).toBe(true);
    expect(mightNameDate("on 8 May 2023")).toBe(true);
  });

  test("no source file imports chrono-node at the top: search/dates/time-query.ts alone imports it, lazily", async () => {
    const src = resolve(import.meta.dir, "../../src");
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
      );
    const loaders = files(src).filter((file) =>
      /^import\s+(?!type\b)[^;]*from\s+"chrono-node|import\(\s*"chrono-node|require\("chrono-node/m.test(
        readFileSync(file, "utf8"),
      ),
    );
    expect(loaders.map((file) => file.slice(src.length + 1))).toEqual(["search/dates/time-query.ts"]);
    expect(readFileSync(join(src, "search/dates/time-query.ts"), "utf8")).not.toMatch(
      /^import\s+(?!type\b)[^;]*from\s+"chrono-node/m,
    );
  });

  test("hostile text never throws and a 10 KB paste is read only up to the query cap", async () => {
    for (const query of [
      "\u0000\u001b[2J July 2023",
      "in July 2023".repeat(1000),
      "\ud800 since Monday",
      "before before before",
      "from 2023 to",
      "between and",
    ]) {
      expect((await parseTimeQuery(query, now)).expressions).toBeArray();
    }
    const long = await parseTimeQuery(`${"x ".repeat(5000)} in July 2023`, now);
    expect(long.expressions).toEqual([]);
  });
});
