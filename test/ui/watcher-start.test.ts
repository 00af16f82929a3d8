/**
 * When `recall ui` starts its watcher (issue 42): after the server has answered its first page, so the watcher's
 * folder scan (~300 ms of chokidar's reading at 20k sessions) no longer holds that page back; and after two seconds
 * when no browser comes, so a server nobody has opened yet still keeps the index fresh. A turn appended before the
 * server starts is what the watcher's first cycle indexes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { indexHoldsWord, waitFor } from "../index/watch/helpers.ts";
import { prepareUiHistory, startUi, uiIds, type RunningUi } from "./ui-history.ts";

let ui: RunningUi | undefined;
// Defined before tempDirs' own afterEach, so it runs first (bun:test runs them in order): a server still running
// after its folders were removed wrote them again, and they were left in the temporary folder.
afterEach(async () => {
  await ui?.stop();
  ui = undefined;
});
const tempDir = tempDirs("recall-ui-watcher-");

describe("recall ui starts its watcher after the first page (issue 42)", () => {
  test("no browser: the watcher starts anyway and indexes the appended turn", async () => {
    const root = tempDir();
    const history = prepareUiHistory(root);
    history.appendTurn("what about the zeppelinword cache", "It is warm now.");
    ui = await startUi(history.env, ["--keyword-only"]);
    await waitFor(() => indexHoldsWord(join(root, "recall-home"), "zeppelinword"), 20_000);
  });

  test("nothing is indexed before a page is asked for; the first page answers from the index as it was, then the watcher runs", async () => {
    const root = tempDir();
    const history = prepareUiHistory(root);
    history.appendTurn("is the quasarword queue drained", "Drained.");
    ui = await startUi(history.env, ["--keyword-only"]);
    // Long enough for a first cycle started with the server to have indexed it, short of the two seconds.
    await Bun.sleep(1500);
    expect(indexHoldsWord(join(root, "recall-home"), "quasarword")).toBe(false);
    const { cookie, base } = await ui.login();
    const search = async () => {
      const response = await fetch(`${ui!.origin}${base}/?q=quasarword`, { headers: { cookie } });
      expect(response.status).toBe(200);
      return (await response.text()).includes(uiIds.growing);
    };
    expect(await search()).toBe(false);
    await waitFor(search, 20_000);
  });
});
