/**
 * What `recall model pull [name]` and `recall model list` do (their flags and help: model.ts): fetch an embedding
 * model into the cache folder's models/ (`$XDG_CACHE_HOME/recall/models`, or RECALL_HOME/models; progress on a TTY,
 * resumable), and show what is present.
 */
import { describeDefaultModel, listModels, modelPresets, pullModel } from "../embed/index.ts";
import { prepareRecallPaths, type RecallPaths } from "../index/index.ts";
import { formatBytes, paletteFor } from "../render/format.ts";
import { renderModelsJson, renderModelsText } from "../render/models.ts";
import { isTerminal, writeErr, writeOut } from "../render/terminal.ts";
import { warn } from "./context.ts";
import type { ListArgs, PullArgs } from "./model.ts";

/** The recall folders, after the one-time move of an old index and `.env` (which may set RECALL_MODEL). */
const preparePaths = (): RecallPaths => prepareRecallPaths(process.env, { onNotice: (line) => warn(`recall: ${line}`), onWarning: (line) => warn(`recall: warning: ${line}`) });

/** Runs `recall model pull`; resolves to the exit code once the model file is complete. */
export async function pull(args: PullArgs): Promise<number> {
  const home = preparePaths();
  let lastPercent = -1;
  const path = await pullModel({
    home,
    env: process.env,
    name: args.name ?? describeDefaultModel().name,
    onProgress: isTerminal(2)
      ? (done, total) => {
          const percent = total ? Math.floor((done / total) * 100) : -1;
          if (percent !== lastPercent) writeErr(`\rdownloading ${formatBytes(done)}${total ? ` of ${formatBytes(total)} (${percent}%)` : ""}   `);
          lastPercent = percent;
        }
      : undefined,
  });
  if (isTerminal(2)) writeErr("\n");
  warn(`recall: model ready: ${path}`);
  return 0;
}

/** Runs `recall model list`; resolves to the exit code. */
export async function list(args: ListArgs): Promise<number> {
  const files = listModels(preparePaths());
  const presets = Object.values(modelPresets);
  const defaultModel = describeDefaultModel();
  writeOut(args.json ? `${renderModelsJson(files, presets, defaultModel)}\n` : renderModelsText(files, presets, defaultModel, await paletteFor(1)));
  return 0;
}
