/**
 * When `recall ui` starts its watcher (issue 42): after the server has answered its first page, so the watcher's
 * folder scan (~300 ms of chokidar's reading at 20k sessions) no longer holds that page back; and after two seconds
 * when no browser comes, so a server nobody has opened yet still keeps the index fresh. A turn appended before the
 * server starts is what the watcher's first cycle indexes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { databasePath } from "../../src/index/index.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { prepareUiHistory, startUi, uiIds, type RunningUi } from "./ui-history.ts";

const tempDir = tempDirs("recall-ui-watcher-");
let ui: RunningUi | undefined;
afterEach(async () => {
  await ui?.stop();
  ui = undefined;
});

/** Polls `found` every 100 ms for up to 20 s (a read that meets the writer's lock counts as not yet); whether it became true. */
async function eventually(found: () => boolean | Promise<boolean>): Promise<boolean> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await Bun.sleep(100)) {
    try {
      if (await found()) return true;
    } catch {
      // SQLITE_BUSY while the watcher commits: try again
    }
  }
  return false;
}

/** True when the index holds a turn document with `word`. */
function indexed(home: string, word: string): boolean {
  const db = new Database(databasePath(home), { readonly: true });
  try {
    return db.query("SELECT 1 FROM documents_fts WHERE documents_fts MATCH ?").get(word) !== null;
  } finally {
    db.close();
  }
}

describe("recall ui starts its watcher after the first page (issue 42)", () => {
  test("no browser: the watcher starts anyway and indexes the appended turn", async () => {
    const root = tempDir();
    const history = prepareUiHistory(root);
    history.appendTurn("what about the zeppelinword cache", "It is warm now.");
    ui = await startUi(history.env, ["--keyword-only"]);
    expect(await eventually(() => indexed(join(root, "recall-home"), "zeppelinword"))).toBe(true);
  });

  test("nothing is indexed before a page is asked for; the first page answers from the index as it was, then the watcher runs", async () => {
    const root = tempDir();
    const history = prepareUiHistory(root);
    history.appendTurn("is the quasarword queue drained", "Drained.");
    ui = await startUi(history.env, ["--keyword-only"]);
    // Long enough for a first cycle started with the server to have indexed it, short of the two seconds.
    await Bun.sleep(1500);
    expect(indexed(join(root, "recall-home"), "quasarword")).toBe(false);
    const { cookie, base } = await ui.login();
    const search = async () => {
      const response = await fetch(`${ui!.origin}${base}/?q=quasarword`, { headers: { cookie } });
      expect(response.status).toBe(200);
      return (await response.text()).includes(uiIds.growing);
    };
    expect(await search()).toBe(false);
    expect(await eventually(search)).toBe(true);
  });
});
