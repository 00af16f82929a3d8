import { describe, expect, test } from "bun:test";
import { fuseByEvidence, fuseRelativeScores, normalizeMinMax } from "../../src/search/index.ts";

describe("Relative Score Fusion", () => {
  test("min-max normalization maps each leg to 0-1", () => {
    const normalized = normalizeMinMax([
      { key: "a", score: 2 },
      { key: "b", score: 4 },
      { key: "c", score: 6 },
    ]);
    expect([...normalized.entries()]).toEqual([
      ["a", 0],
      ["b", 0.5],
      ["c", 1],
    ]);
    expect([...normalizeMinMax([{ key: "only", score: -3 }]).values()]).toEqual([1]);
  });

  test("fused = alpha * vector + (1 - alpha) * keyword, a missing leg counting 0", () => {
    const fused = fuseRelativeScores(
      [
        { key: "a", score: 10 },
        { key: "b", score: 0 },
      ],
      [
        { key: "b", score: 0.9 },
        { key: "c", score: 0.1 },
      ],
      0.7,
    );
    expect(fused.map((hit) => hit.key)).toEqual(["b", "a", "c"]);
    const byKey = Object.fromEntries(fused.map((hit) => [hit.key, hit]));
    expect(byKey.b!.score).toBeCloseTo(0.7, 10);
    expect(byKey.a!.score).toBeCloseTo(0.3, 10);
    expect(byKey.c!.score).toBeCloseTo(0, 10);
    expect(byKey.a!.vectorScore).toBeUndefined();
    expect(byKey.c!.keywordScore).toBeUndefined();
  });

  test("alpha 0 is keyword order and alpha 1 is vector order", () => {
    const keyword = [
      { key: 1, score: 3 },
      { key: 2, score: 2 },
      { key: 3, score: 1 },
    ];
    const vector = [
      { key: 3, score: 0.9 },
      { key: 2, score: 0.5 },
      { key: 1, score: 0.1 },
    ];
    expect(fuseRelativeScores(keyword, vector, 0).map((hit) => hit.key)).toEqual([1, 2, 3]);
    expect(fuseRelativeScores(keyword, vector, 1).map((hit) => hit.key)).toEqual([3, 2, 1]);
  });
});

describe("evidence-tiered fusion (issue 17)", () => {
  const keyword = [
    { key: "a", score: 3 },
    { key: "b", score: 1 },
  ];
  const vector = [
    { key: "c", score: 0.9 },
    { key: "b", score: 0.6 },
    { key: "a", score: 0.2 },
  ];

  test("a confident keyword match stays first whatever the vector leg says, even at vector weight 1", () => {
    for (const weight of [0, 0.5, 1]) expect(fuseByEvidence(keyword, vector, new Set(["a"]), weight)[0]!.key).toBe("a");
    expect(fuseByEvidence(keyword, vector, new Set(["a"]), 0.5)[0]!.score).toBeCloseTo(
      0.5 + (0.5 * (1 + 0.1 * 0)) / 1.1,
      10,
    );
  });

  test("without a confident keyword match the blend decides, and vector weight 1 is vector order", () => {
    expect(fuseByEvidence(keyword, vector, new Set(), 1).map((hit) => hit.key)).toEqual(["c", "b", "a"]);
    expect(fuseByEvidence(keyword, vector, new Set(), 0).map((hit) => hit.key)).toEqual(["a", "b", "c"]);
    const fused = fuseByEvidence(keyword, vector, new Set(), 0.5);
    expect(fused.every((hit) => hit.score >= 0 && hit.score <= 0.5)).toBe(true);
  });

  test("within the confident tier the vector leg breaks near-ties only", () => {
    const tied = [
      { key: "x", score: 2 },
      { key: "y", score: 1.98 },
      { key: "z", score: 1 },
    ];
    const order = fuseByEvidence(
      tied,
      [
        { key: "y", score: 0.9 },
        { key: "x", score: 0.1 },
        { key: "z", score: 0.95 },
      ],
      new Set(["x", "y", "z"]),
      0.9,
    ).map((hit) => hit.key);
    expect(order).toEqual(["y", "x", "z"]);
  });

  test("the tie-break share follows the model's weight: a weak model (0.05) keeps a 1.5% keyword lead that an uncalibrated one (0.5) may flip", () => {
    const close = [
      { key: "x", score: 1 },
      { key: "y", score: 0.985 },
      { key: "z", score: 0 },
    ];
    const semantic = [
      { key: "y", score: 1 },
      { key: "x", score: 0 },
    ];
    expect(
      fuseByEvidence(close, semantic, new Set(["x", "y"]), 0.5)
        .map((hit) => hit.key)
        .slice(0, 2),
    ).toEqual(["y", "x"]);
    expect(
      fuseByEvidence(close, semantic, new Set(["x", "y"]), 0.05)
        .map((hit) => hit.key)
        .slice(0, 2),
    ).toEqual(["x", "y"]);
  });
});
