/**
 * What `recall model pull [name]`, `recall model list` and `recall model use <name>` do (their flags and help:
 * model.ts): fetch an embedding model into the cache folder's models/ (`$XDG_CACHE_HOME/recall/models`, or
 * RECALL_HOME/models; progress on a TTY, resumable), show what is present, and save the choice of model.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { describeDefaultModel, listModels, modelPresets, pullModel } from "../embed/index.ts";
import { findPreset } from "../embed/presets.ts";
import { writeSetting } from "../embed/settings-file.ts";
import { UsageError } from "../errors.ts";
import { modelsDir, prepareRecallPaths, type RecallPaths } from "../index/index.ts";
import { formatBytes, paletteFor } from "../render/format.ts";
import { renderModelsJson, renderModelsText } from "../render/models.ts";
import { isTerminal, writeErr, writeOut } from "../render/terminal.ts";
import { warn } from "../service/context.ts";
import type { ListArgs, PullArgs, UseArgs } from "./model.ts";

/** The recall folders, after the one-time move of an old index and `.env` (which may set RECALL_MODEL). */
const preparePaths = (): RecallPaths =>
  prepareRecallPaths(process.env, {
    onNotice: (line) => warn(`recall: ${line}`),
    onWarning: (line) => warn(`recall: warning: ${line}`),
  });

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
          if (percent !== lastPercent)
            writeErr(`\rdownloading ${formatBytes(done)}${total ? ` of ${formatBytes(total)} (${percent}%)` : ""}   `);
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
  const paths = preparePaths();
  const files = listModels(paths);
  const presets = Object.values(modelPresets);
  const defaultModel = describeDefaultModel();
  writeOut(
    args.json
      ? `${renderModelsJson(files, presets, defaultModel)}\n`
      : renderModelsText(files, presets, defaultModel, await paletteFor(1), modelsDir(paths)),
  );
  return 0;
}

/**
 * Runs `recall model use <name>`: saves RECALL_MODEL (a preset name, or a .gguf path made absolute) in the settings
 * file, or removes it for `default`. Nothing is downloaded here; the next `recall index` fetches and embeds.
 * @throws UsageError for an unknown preset or a path that is not a .gguf file
 */
export async function use(args: UseArgs): Promise<number> {
  const paths = preparePaths();
  const name = args.name.trim();
  const preset = findPreset(name);
  let value: string | undefined;
  if (name.toLowerCase() === "default") value = undefined;
  else if (preset) value = preset.name;
  else if (/\.gguf$/i.test(name) || name.includes("/")) {
    const path = resolve(name);
    if (!existsSync(path) || !statSync(path).isFile())
      throw new UsageError(
        `no model file at ${path}`,
        "give the path of a .gguf file, or a preset name from `recall model list`",
      );
    value = path;
  } else {
    throw new UsageError(
      `unknown model "${name}"`,
      `use a preset (${Object.keys(modelPresets).join(", ")}), a path to a .gguf file, or default`,
    );
  }
  const file = writeSetting(paths, "RECALL_MODEL", value);
  const chosen = value ?? `the default here, ${describeDefaultModel().name}`;
  writeOut(`model: ${chosen} (saved in ${file})\n`);
  if (process.env.RECALL_MODEL !== undefined)
    warn(`recall: warning: RECALL_MODEL=${process.env.RECALL_MODEL} in the environment overrides the settings file`);
  warn(
    "recall: next: `recall index` downloads the model if needed and embeds your history with it (search keeps working meanwhile)",
  );
  return 0;
}
