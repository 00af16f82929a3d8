/**
 * Preload (`bun --preload test/commands/module-recorder.ts …`) that writes, when the process exits, the absolute path of
 * every module it loaded, one per line, to the file named by RECALL_TEST_MODULES_FILE. Bun's `require.cache` lists ES
 * modules as well as CommonJS ones, so this is the process's whole module graph as it was actually loaded.
 */
import { writeFileSync } from "node:fs";

const target = process.env.RECALL_TEST_MODULES_FILE;
if (target) process.on("exit", () => writeFileSync(target, `${Object.keys(require.cache).join("\n")}\n`));
