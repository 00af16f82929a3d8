import { describe, expect, test } from "bun:test";
import { makePreview } from "../../src/search/preview.ts";

const highlighted = (preview: { text: string; highlights: Array<[number, number]> }) =>
  preview.highlights.map(([start, end]) => preview.text.slice(start, end));

describe("previews (issue 26)", () => {
  test("a CJK query word inside a longer run is found and highlighted, and the window is around it", () => {
    const text = `${"これは前置きの長い説明です。".repeat(30)} 我们发现调度器介入时 worker 会阻塞 ${"后面还有很多无关的内容。".repeat(30)}`;
    const preview = makePreview(text, ["调度器"]);
    expect(preview.text).toContain("调度器介入时");
    expect(highlighted(preview)).toEqual(["调度器"]);
  });

  test("a window after a spaced prefix still holds the CJK match (it used to jump to the next space past it)", () => {
    const text = `start ${"前".repeat(400)}调度器${"后".repeat(400)} end`;
    const preview = makePreview(text, ["调度器"]);
    expect(highlighted(preview)).toEqual(["调度器"]);
  });

  test("the preview is taken from what the user typed, not from a block the IDE injected, unless only the block matches", () => {
    const prompt =
      "<ide_opened_file>The user opened the file /home/dev/proj/src/login.ts in the IDE. This may or may not be related to the current task.</ide_opened_file>\nwhy is the login page slow";
    expect(makePreview(prompt, ["slow"]).text).toBe("why is the login page slow");
    expect(makePreview(prompt, []).text).toBe("why is the login page slow");
    expect(highlighted(makePreview(prompt, ["login.ts"]))).toContain("login");
  });
});
