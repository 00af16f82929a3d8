/**
 * `recall model pull [name]` and `recall model list`: fetch an embedding model into the cache folder's
 * models/ (`$XDG_CACHE_HOME/recall/models`, or RECALL_HOME/models; progress on a TTY, resumable), and show what is present.
 */
import { command, flag, optional, positional, string, subcommands } from "cmd-ts";
import { defaultPresetName, listModels, modelPresets, pullModel } from "../embed/index.ts";
import { prepareRecallPaths, type RecallPaths } from "../index/index.ts";
import { formatBytes, paletteFor } from "../render/format.ts";
import { isTerminal, writeErr, writeOut } from "../render/terminal.ts";
import { renderModelsJson, renderModelsText } from "../render/models.ts";
import { warn } from "./context.ts";

/** The recall folders, after the one-time move of an old index and `.env` (which may set RECALL_MODEL). */
const preparePaths = (): RecallPaths => prepareRecallPaths(process.env, { onNotice: (line) => warn(`recall: ${line}`), onWarning: (line) => warn(`recall: warning: ${line}`) });

const pull = command({
  name: "pull",
  description: "Download an embedding model preset into ~/.cache/recall/models or RECALL_HOME/models (resumes a partial download)",
  args: {
    name: positional({ type: optional(string), displayName: "name", description: `Preset name (default ${defaultPresetName}; see \`recall model list\`)` }),
  },
  handler: async (args) => {
    const home = preparePaths();
    let lastPercent = -1;
    const path = await pullModel({
      home,
      env: process.env,
      name: args.name ?? defaultPresetName,
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
  },
});

const list = command({
  name: "list",
  description: "Show the model files present (size, dims, pooling) and the presets that can be pulled",
  args: { json: flag({ long: "json", description: "Print one JSON object" }) },
  handler: async (args) => {
    const files = listModels(preparePaths());
    const presets = Object.values(modelPresets);
    writeOut(args.json ? `${renderModelsJson(files, presets, defaultPresetName)}\n` : renderModelsText(files, presets, defaultPresetName, await paletteFor(1)));
    return 0;
  },
});

/** The `model` subcommand group. */
export const modelCommand = subcommands({ name: "model", description: "Manage embedding model files (pull, list)", cmds: { pull, list } });
