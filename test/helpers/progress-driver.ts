/**
 * Run under a pseudo-terminal by test/render/progress-notice.test.ts: draws an index progress bar on stderr, writes
 * a notice while it is drawn, moves the bar on, stops it, and writes one more line, as an index run with a warning does.
 */
import { createIndexProgress } from "../../src/render/progress.ts";
import { writeErr } from "../../src/render/terminal.ts";

const progress = await createIndexProgress();
progress.onProgress({ source: "claude-code", done: 1, total: 10 });
await Bun.sleep(30);
writeErr("recall: notice while the bar is drawn\n");
progress.onProgress({ source: "claude-code", done: 5, total: 10 });
await Bun.sleep(30);
progress.onProgress({ source: "embeddings", done: 1, total: 4 });
writeErr("recall: notice while embedding\n");
await Bun.sleep(30);
progress.stop();
writeErr("indexed: summary line\n");
