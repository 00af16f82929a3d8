import { describe, expect, test } from "bun:test";
import { isIdentifierLike, queryShape } from "../../src/search/ranking/query-shape.ts";

describe("isIdentifierLike", () => {
  test.each([
    "snake_case_name",
    "ERR_MODULE_NOT_FOUND",
    "possibly-unbound-attribute",
    "getUserById",
    "MockStyles",
    "src/index/plan.ts",
    "plan.ts",
    "--no-verify",
    "@modelcontextprotocol/sdk",
    "db:generate",
    "Foo::bar",
    "E0502",
    "TS2345",
    "v1.2.3",
    "7acd37a",
    "#1234",
    "`sync.sh`",
  ])("%s is an identifier", (chunk) => expect(isIdentifierLike(chunk)).toBe(true));
  test.each([
    "docker",
    "Docker",
    "don't",
    "network?",
    "2024",
    "10:30",
    "API",
    "JSON",
    "e.g.",
    "well-known",
    "16GB",
    "3rd",
  ])("%s is a word", (chunk) => expect(isIdentifierLike(chunk)).toBe(false));
});

describe("queryShape", () => {
  test("one word, however plain, leans on keywords; so do identifiers", () => {
    expect(queryShape("gunicorn").semanticShare).toBe(0);
    expect(queryShape("ERR_MODULE_NOT_FOUND").semanticShare).toBe(0);
    expect(queryShape('"exact words here"').semanticShare).toBe(0);
  });

  test("a question in natural language gets the whole semantic weight, stop words not counted", () => {
    const shape = queryShape("how did we stop the container losing its network?");
    expect(shape).toEqual({ chunks: 4, identifiers: 0, semanticShare: 1 });
  });

  test("a mix is weighed by its share of identifiers and its length", () => {
    expect(queryShape("fix src/index/plan.ts").semanticShare).toBeCloseTo((1 - 1 / 2) / 3, 5);
    expect(queryShape("why does getUserById return null for deleted accounts").semanticShare).toBeCloseTo(1 - 1 / 5, 5);
  });

  test("Chinese and Japanese count words by characters, so a question in them is natural language", () => {
    expect(queryShape("帮我写个定时任务同步配置仓库").semanticShare).toBe(1);
    expect(queryShape("日本").semanticShare).toBe(0);
  });

  test("nothing searchable has no share", () => {
    expect(queryShape("?? !!").semanticShare).toBe(0);
  });
});
