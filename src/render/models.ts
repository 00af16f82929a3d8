/**
 * Rendering of `recall model list`: the model files present in RECALL_HOME/models (size, dims,
 * pooling from the GGUF header) and the presets that can be pulled.
 */
import type { ModelFileEntry, ModelPreset } from "../embed/index.ts";
import { formatBytes, type Palette } from "./format.ts";

/** `recall model list --json`. */
export function renderModelsJson(files: ModelFileEntry[], presets: ModelPreset[], defaultName: string): string {
  return JSON.stringify({
    default: defaultName,
    present: files.map((file) => ({
      file: file.path,
      preset: file.presetName ?? null,
      size_bytes: file.sizeBytes,
      dims: file.info?.dims ?? null,
      pooling: file.info?.pooling ?? null,
      architecture: file.info?.architecture ?? null,
      error: file.error ?? null,
    })),
    presets: presets.map((preset) => ({ name: preset.name, dims: preset.dims, pooling: preset.pooling })),
  });
}

/** `recall model list`. */
export function renderModelsText(files: ModelFileEntry[], presets: ModelPreset[], defaultName: string, palette: Palette): string {
  const lines = [palette.bold("present in RECALL_HOME/models:")];
  if (files.length === 0) lines.push("  (none: run `recall model pull` to fetch the default model)");
  for (const file of files) {
    const facts = file.info ? `${file.info.dims} dims, ${file.info.pooling} pooling, ${file.info.architecture}` : palette.red(`unreadable: ${file.error}`);
    lines.push(`  ${file.fileName}  ${formatBytes(file.sizeBytes)}  ${facts}${file.presetName ? `  (preset ${file.presetName})` : ""}`);
  }
  lines.push("", palette.bold("presets (recall model pull NAME):"));
  for (const preset of presets) lines.push(`  ${preset.name.padEnd(24)} ${String(preset.dims).padStart(5)} dims  ${preset.pooling} pooling${preset.name === defaultName ? "  (default)" : ""}`);
  return `${lines.join("\n")}\n`;
}
