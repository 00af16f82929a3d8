import { describe, expect, test } from "bun:test";
import { phraseFrequency } from "../../src/team-archive/keyword-tokens.ts";

// The archive counts a phrase's instances as FTS5 does for bm25 (issue 30): consecutive tokens of one column, each
// instance weighted by its column (documentTerms, the words' counts, is test/index/postings/document-terms.test.ts's).
describe("phraseFrequency", () => {
  test("phraseFrequency counts consecutive tokens within one column, weighted by the column", () => {
    const columnsOf = {
      heading: "bridge network, bridge network",
      body: "bridge. network",
      extra: "bridge\nnetwork",
      abstract: "a bridge network",
    };
    // heading: 2 instances × 2; body: punctuation between does not break a phrase in FTS5 (1); extra: 1; abstract: 1
    expect(phraseFrequency(columnsOf, ["bridg", "network"])).toBe(7);
    expect(
      phraseFrequency({ heading: "network bridge", body: "", extra: "", abstract: "" }, ["bridg", "network"]),
    ).toBe(0);
  });
});
