/**
 * `writeSetting` (the settings file `recall model use` writes, issue 15): values read back by config.ts's own
 * parser exactly as written (Windows paths with backslashes, spaces, `#`), other lines kept, mode 0600, and a value
 * it cannot write rejected before anything is created.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDotEnv } from "../../src/embed/config.ts";
import { writeSetting } from "../../src/embed/settings-file.ts";
import { pathsUnder } from "../../src/home/paths.ts";

const work = mkdtempSync(join(tmpdir(), "recall-settings-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("writeSetting", () => {
  test("values read back literally through parseDotEnv; other lines and comments are kept; the file is 0600", () => {
    const folder = join(work, "kept");
    const paths = pathsUnder(folder);
    const file = writeSetting(paths, "RECALL_MODEL", "bge-small-en-v1.5");
    writeFileSync(file, `# my settings\nEMBEDDINGS_API_KEY=sk-test\n${readFileSync(file, "utf8")}`);
    for (const value of ["C:\\models\\new\\e5 base.gguf", "/models/a#b.gguf", "/models/plain.gguf"]) {
      writeSetting(paths, "RECALL_MODEL", value);
      const text = readFileSync(file, "utf8");
      expect(parseDotEnv(text)).toEqual({ EMBEDDINGS_API_KEY: "sk-test", RECALL_MODEL: value });
      expect(text.startsWith("# my settings\n")).toBe(true);
      expect(text.match(/RECALL_MODEL=/g)).toHaveLength(1);
    }
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeSetting(paths, "RECALL_MODEL", undefined);
    expect(parseDotEnv(readFileSync(file, "utf8"))).toEqual({ EMBEDDINGS_API_KEY: "sk-test" });
  });

  test("a value with a quote or a line break is refused before the folder or the file is created", () => {
    const folder = join(work, "refused");
    for (const value of ["/models/it's.gguf", "/models/a\nRECALL_HOME=/tmp"]) {
      expect(() => writeSetting(pathsUnder(folder), "RECALL_MODEL", value)).toThrow(
        "the value holds a quote or a line break",
      );
    }
    expect(existsSync(folder)).toBe(false);
  });
});
