/**
 * Issue 37: `recall ui` without `--no-open` hands the browser opener (xdg-open here, a stand-in script that records
 * what it was given) the path of a redirect file, never the URL with the token, which any local user could read in
 * `ps`. The file is the user's alone (0600), leads to the login URL, and is removed when the server stops.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareUiHistory, startUi, type RunningUi } from "./ui-history.ts";

let root: string;
let record: string;
let ui: RunningUi;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "recall-ui-open-"));
  const history = prepareUiHistory(root);
  const bin = join(root, "bin");
  record = join(root, "record");
  mkdirSync(bin);
  mkdirSync(record);
  // The opener: records its arguments and, while the server runs, the file it was given and that file's mode.
  const opener = join(bin, "xdg-open");
  writeFileSync(
    opener,
    `#!/bin/sh\nprintf '%s\\n' "$@" > "${record}/argv"\nfile="$(printf '%s' "$1" | sed 's|^file://||')"\ncat "$file" > "${record}/content"\nstat -c %a "$file" > "${record}/mode"\n`,
  );
  chmodSync(opener, 0o755);
  ui = await startUi({ ...history.env, PATH: `${bin}:${history.env.PATH}` }, ["--no-watch"], { open: true });
  for (let waited = 0; !existsSync(join(record, "mode")) && waited < 10_000; waited += 50) await Bun.sleep(50);
});
afterAll(async () => {
  await ui?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("recall ui opens the browser without the token in a command line", () => {
  test("the opener gets a file URL, not the token; the file is 0600 and redirects to the login URL", () => {
    const argv = readFileSync(join(record, "argv"), "utf8").trim();
    expect(argv).not.toContain(ui.token);
    expect(argv).toMatch(/^file:\/\/\/.*\/ui-open-\d+\.html$/);
    expect(readFileSync(join(record, "mode"), "utf8").trim()).toBe("600");
    const content = readFileSync(join(record, "content"), "utf8");
    expect(content).toContain(`<meta http-equiv="refresh" content="0;url=${ui.loginUrl}">`);
    expect(statSync(fileURLToPath(argv)).mode & 0o777).toBe(0o600);
  });

  test("the file is removed when the server stops", async () => {
    const file = fileURLToPath(readFileSync(join(record, "argv"), "utf8").trim());
    expect(existsSync(file)).toBe(true);
    await ui.stop();
    expect(existsSync(file)).toBe(false);
  });
});
