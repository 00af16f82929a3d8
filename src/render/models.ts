/**
 * Rendering of `recall model list`: the model files present in `<cache>/models` (size, dims,
 * pooling from the GGUF header), the presets that can be pulled (size, whether the file's sha256 is pinned), and the
 * default with the reason it was chosen (by hardware).
 */
import type { ModelFileEntry, ModelPreset } from "../embed/index.ts";
import { formatBytes, type Palette } from "./format.ts";

/** The default model and why it is the default (embed/config.ts `describeDefaultModel`). */
export interface DefaultModel {
  name: string;
  reason: string;
}

/** `recall model list --json`. */
export function renderModelsJson(files: ModelFileEntry[], presets: ModelPreset[], defaultModel: DefaultModel): string {
  return JSON.stringify({
    default: defaultModel.name,
    default_reason: defaultModel.reason,
    present: files.map((file) => ({
      file: file.path,
      preset: file.presetName ?? null,
      size_bytes: file.sizeBytes,
      dims: file.info?.dims ?? null,
      pooling: file.info?.pooling ?? null,
      architecture: file.info?.architecture ?? null,
      error: file.error ?? null,
    })),
    presets: presets.map((preset) => ({
      name: preset.name,
      dims: preset.dims,
      pooling: preset.pooling,
      size_bytes: preset.approxSizeBytes,
      revision: preset.revision ?? null,
      sha256: preset.sha256 ?? null,
    })),
  });
}

/** `recall model list`; `modelsFolder` is where model files live (`<cache>/models`). */
export function renderModelsText(
  files: ModelFileEntry[],
  presets: ModelPreset[],
  defaultModel: DefaultModel,
  palette: Palette,
  modelsFolder: string,
): string {
  const lines = [palette.bold(`present in ${modelsFolder}:`)];
  if (files.length === 0) lines.push("  (none: run `recall model pull` to fetch the default model)");
  for (const file of files) {
    const facts = file.info
      ? `${file.info.dims} dims, ${file.info.pooling} pooling, ${file.info.architecture}`
      : palette.red(`unreadable: ${file.error}`);
    lines.push(
      `  ${file.fileName}  ${formatBytes(file.sizeBytes)}  ${facts}${file.presetName ? `  (preset ${file.presetName})` : ""}`,
    );
  }
  lines.push("", palette.bold("presets (recall model pull NAME):"));
  for (const preset of presets) {
    const pinned = preset.sha256 ? "sha256 pinned" : "not pinned";
    lines.push(
      `  ${preset.name.padEnd(24)} ${String(preset.dims).padStart(5)} dims  ${preset.pooling.padEnd(4)} pooling  ${formatBytes(preset.approxSizeBytes).padStart(8)}  ${pinned}${preset.name === defaultModel.name ? "  (default)" : ""}`,
    );
  }
  lines.push(
    "",
    `default: ${defaultModel.name} (${defaultModel.reason}); --model NAME|PATH.gguf or RECALL_MODEL picks another`,
  );
  return `${lines.join("\n")}\n`;
}
