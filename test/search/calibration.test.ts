import { describe, expect, test } from "bun:test";
import {
  type Calibrations,
  calibrationFor,
  defaultCalibrations,
  describeCalibration,
} from "../../src/search/ranking/calibration.ts";

const calibrations: Calibrations = {
  keyword: { slope: 7, intercept: -3.5 },
  default: { vectorWeight: 0.3, vector: null, note: "default" },
  models: {
    "exact-model": { status: "fitted", vectorWeight: 0.6, vector: { slope: 10, intercept: -7 }, note: "fitted" },
    "bge-en-v1.5": { status: "prior", vectorWeight: 0.5, vector: null, note: "prior" },
  },
};

describe("calibration per model (issue 27)", () => {
  test("found by exact name (case and .gguf aside), then by model family, else the conservative default", () => {
    expect(calibrationFor("Exact-Model.gguf", calibrations)).toMatchObject({ status: "fitted", entry: "exact-model" });
    expect(calibrationFor("BAAI/bge-small-en-v1.5", calibrations)).toMatchObject({
      status: "prior",
      entry: "bge-en-v1.5",
      vectorWeight: 0.5,
    });
    expect(calibrationFor("mystery-embed", calibrations)).toMatchObject({
      status: "default",
      entry: "default",
      vectorWeight: 0.3,
      vector: null,
    });
    expect(calibrationFor(undefined, calibrations).status).toBe("default");
  });

  test("doctor's line says what a missing calibration means and how to fit one", () => {
    expect(describeCalibration("mystery-embed", calibrationFor("mystery-embed", calibrations))).toBe(
      "mystery-embed has no calibration: hybrid search uses the conservative default (vector weight 0.3, cosine adds no confidence); run scripts/calibrate-confidence.ts --model mystery-embed on labelled queries to fit one",
    );
    expect(describeCalibration("exact-model", calibrationFor("exact-model", calibrations))).toContain(
      'fitted calibration "exact-model" (vector weight 0.6, cosine counts toward confidence)',
    );
  });

  test("the committed file: every entry has a weight in 0–1 and a note saying where it comes from", () => {
    for (const entry of [defaultCalibrations.default, ...Object.values(defaultCalibrations.models)]) {
      expect(entry.vectorWeight).toBeGreaterThanOrEqual(0);
      expect(entry.vectorWeight).toBeLessThanOrEqual(1);
      expect(entry.note.length).toBeGreaterThan(20);
    }
    expect(calibrationFor("glove-wink-100d-f16").status).toBe("fitted");
  });
});
