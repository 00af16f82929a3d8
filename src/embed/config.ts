/**
 * Decides which embedding backend to use from flags, the environment and the `.env` file (`<config>/.env`,
 * i.e. `$XDG_CONFIG_HOME/recall/.env`, or `RECALL_HOME/.env`; src/home/paths.ts):
 * `EMBEDDINGS_URL` set → remote OpenAI-compatible endpoint, else a local GGUF (preset name or file path from
 * `--model` / `RECALL_MODEL`, default by hardware: qwen3-embedding-0.6b with a GPU, bge-small-en-v1.5 without, see
 * `describeDefaultModel`). `RECALL_OFFLINE=1` forbids all network access:
 * no downloads, no remote endpoint. Reads at most one small file; opens no model and no socket.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { EmbedError, UsageError } from "../errors.ts";
import { asRecallPaths, dotEnvPath, modelsDir, type RecallPaths } from "../home/paths.ts";
import { detectHardware } from "./hardware.ts";
import { recognizeModelFamily, resolvePrefixes } from "./model-family.ts";
import { defaultPresetFor, findPreset, modelPresets, presetDownloadUrl, type ModelPreset } from "./presets.ts";

/** A local model: a file under `<cache>/models` (preset) or any .gguf path the user gave. */
export interface LocalEmbedConfig {
  kind: "local";
  /** preset name, or the file's base name without .gguf */
  name: string;
  /** absolute path of the .gguf file (may not exist yet for presets) */
  modelPath: string;
  /** set for presets; a custom path has dims and pooling read from the file */
  preset: ModelPreset | undefined;
  /** where a missing preset file is downloaded from (undefined for custom paths) */
  downloadUrl: string | undefined;
  offline: boolean;
  /** recall's models folder (`<cache>/models`): the model file's sha256 is cached there (model-hash.ts), never beside a file the user gave */
  modelsFolder: string;
  /** `EMBEDDINGS_QUERY_PREFIX` / `EMBEDDINGS_DOCUMENT_PREFIX` when set; else the model family's (model-family.ts) */
  queryPrefix: string | undefined;
  documentPrefix: string | undefined;
}

/** An OpenAI-compatible `/v1/embeddings` endpoint. */
export interface RemoteEmbedConfig {
  kind: "remote";
  /** full endpoint URL ending in /embeddings */
  url: string;
  apiKey: string | undefined;
  /** `EMBEDDINGS_MODEL`; "default" when unset (llama-server ignores it) */
  model: string;
  /**
   * `EMBEDDINGS_MAX_TOKENS`: the model's window in tokens, of which a chunk uses 80%; default the window the model
   * family states (model-family.ts: the Universal Sentence Encoder lite reads 128), else 512
   */
  maxTokens: number;
  /** UTF-8 bytes per token a chunk is sized by (the model family's `bytesPerToken`; default 3: remote-embedder.ts) */
  bytesPerToken?: number;
  /** `EMBEDDINGS_QUERY_PREFIX`, else the family's of EMBEDDINGS_MODEL (model-family.ts: HF ids, Ollama names, presets), else "" */
  queryPrefix: string;
  /** `EMBEDDINGS_DOCUMENT_PREFIX`, else the family's of EMBEDDINGS_MODEL, else "" */
  documentPrefix: string;
}

export type EmbedConfig = LocalEmbedConfig | RemoteEmbedConfig;

/** The model's name as calibrations and tunings know it: a local model's preset or file name, an endpoint's `EMBEDDINGS_MODEL`. */
export const modelNameOf = (config: EmbedConfig): string => (config.kind === "local" ? config.name : config.model);

/**
 * Parses a `.env` file: `KEY=VALUE` lines, optional `export `, `#` comments, single or double quotes
 * (double quotes expand \n, \t, \", \\), and ` #` comments after unquoted values. Invalid lines are skipped.
 *   `A=1` → {A:"1"};  `export B="x y" # c` → {B:"x y"};  `C='a#b'` → {C:"a#b"};  `D=v # c` → {D:"v"}
 */
export function parseDotEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/.exec(rawLine);
    if (!match) continue;
    const key = match[1]!;
    const rest = match[2]!.trim();
    const quote = rest[0];
    if ((quote === '"' || quote === "'") && rest.indexOf(quote, 1) > 0) {
      const inner = rest.slice(1, rest.indexOf(quote, 1));
      out[key] =
        quote === '"'
          ? inner.replace(/\\([nt"\\])/g, (_, c: string) => (({ n: "\n", t: "\t" }) as Record<string, string>)[c] ?? c)
          : inner;
    } else {
      out[key] = rest.replace(/\s+#.*$/, "");
    }
  }
  return out;
}

/**
 * `env` overlaid on the `.env` file (the environment wins). Missing file → `env` unchanged.
 * @param home the recall folders (`.env` is read from `paths.config`), or one folder holding everything (RECALL_HOME)
 */
export function loadEnvWithDotEnv(
  env: Record<string, string | undefined>,
  home: string | RecallPaths,
): Record<string, string | undefined> {
  const path = dotEnvPath(asRecallPaths(home));
  if (!existsSync(path)) return env;
  const fromFile = parseDotEnv(readFileSync(path, "utf8"));
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  return merged;
}

/**
 * Normalizes an endpoint to the full embeddings URL:
 *   `http://h:8080/v1` → `http://h:8080/v1/embeddings`;  `http://h/v1/embeddings/` → `http://h/v1/embeddings`;
 *   `http://h:8080` → `http://h:8080/v1/embeddings`
 * @throws UsageError when the value is not an http(s) URL
 */
export function normalizeEmbeddingsUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new UsageError(`EMBEDDINGS_URL is not a url: ${value}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`EMBEDDINGS_URL must be http or https: ${value}`);
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith("/embeddings")
    ? path
    : path.endsWith("/v1")
      ? `${path}/embeddings`
      : `${path}/v1/embeddings`;
  return url.toString();
}

/**
 * True when `url` names this machine's loopback interface (`localhost`, `127.0.0.0/8`, `::1`): a server there is no
 * network access, so RECALL_OFFLINE=1 allows it (issue 27: the evaluation encoder is one).
 * Examples: `http://127.0.0.1:8080/v1` → true; `http://[::1]/v1` → true; `http://10.0.0.2/v1` → false.
 */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** True for RECALL_OFFLINE=1/true/yes. */
export function isOffline(env: Record<string, string | undefined>): boolean {
  return /^(1|true|yes)$/i.test(env.RECALL_OFFLINE ?? "");
}

/**
 * Resolves the embedding backend. Precedence: `modelFlag` > `RECALL_MODEL` > `EMBEDDINGS_URL` > default preset;
 * an explicit model (flag or RECALL_MODEL) always means local.
 * @param options.env process environment (pass `process.env`); merged over the `.env` file
 * @param options.home the recall folders (models live in `<cache>/models/`, `.env` in `<config>/`), or one folder
 *   holding both (RECALL_HOME; tests pass a temp folder)
 * @param options.modelFlag `--model` value: a preset name or a path ending in .gguf / containing a slash
 * @param options.cwd base for relative model paths (default process.cwd())
 * @throws UsageError for an unknown preset name or a bad EMBEDDINGS_URL;
 *   EmbedError(ENDPOINT_UNREACHABLE) when a remote endpoint off this machine is configured but RECALL_OFFLINE=1
 */
export function resolveEmbedConfig(options: {
  env: Record<string, string | undefined>;
  home: string | RecallPaths;
  modelFlag?: string | undefined;
  cwd?: string;
}): EmbedConfig {
  const env = loadEnvWithDotEnv(options.env, options.home);
  const offline = isOffline(env);
  const explicitModel = options.modelFlag ?? env.RECALL_MODEL;
  if (!explicitModel && env.EMBEDDINGS_URL) {
    const url = normalizeEmbeddingsUrl(env.EMBEDDINGS_URL);
    // A server on this machine's loopback downloads nothing: RECALL_OFFLINE=1 forbids only what leaves the machine.
    if (offline && !isLoopbackUrl(url)) {
      throw new EmbedError(
        "ENDPOINT_UNREACHABLE",
        "RECALL_OFFLINE=1 forbids the remote embedding endpoint in EMBEDDINGS_URL",
        {
          hint: "unset RECALL_OFFLINE or EMBEDDINGS_URL",
        },
      );
    }
    const maxTokens = Number.parseInt(env.EMBEDDINGS_MAX_TOKENS ?? "", 10);
    const family = recognizeModelFamily(env.EMBEDDINGS_MODEL);
    const prefixes = resolvePrefixes(env, family);
    return {
      kind: "remote",
      url,
      apiKey: env.EMBEDDINGS_API_KEY || undefined,
      model: env.EMBEDDINGS_MODEL || "default",
      maxTokens: Number.isFinite(maxTokens) && maxTokens > 0 ? maxTokens : (family?.maxInputTokens ?? 512),
      ...(family?.bytesPerToken === undefined ? {} : { bytesPerToken: family.bytesPerToken }),
      queryPrefix: prefixes.queryPrefix,
      documentPrefix: prefixes.documentPrefix,
    };
  }
  return resolveLocalModel(
    explicitModel ?? defaultModelName(),
    modelsDir(asRecallPaths(options.home)),
    options.cwd ?? process.cwd(),
    env,
    offline,
  );
}

/**
 * The default preset here, and why: by hardware (hardware.ts, `defaultPresetFor`). Shown by `doctor` and
 * `recall model list`; `--model` / `RECALL_MODEL` override it.
 */
export function describeDefaultModel(): { name: string; reason: string } {
  const hardware = detectHardware();
  const choice = defaultPresetFor(hardware.gpu !== undefined);
  return {
    name: choice.name,
    reason: hardware.gpu ? `${hardware.reason}` : `${hardware.reason}; ${choice.name} is fast enough on a CPU`,
  };
}

function defaultModelName(): string {
  return defaultPresetFor(detectHardware().gpu !== undefined).name;
}

function resolveLocalModel(
  model: string,
  modelsFolder: string,
  cwd: string,
  env: Record<string, string | undefined>,
  offline: boolean,
): LocalEmbedConfig {
  const isPath = model.endsWith(".gguf") || model.includes("/") || model.includes("\\");
  if (isPath) {
    const modelPath = isAbsolute(model) ? model : resolve(cwd, model);
    const name = modelPath.replace(/^.*[\\/]/, "").replace(/\.gguf$/, "");
    return {
      kind: "local",
      name,
      modelPath,
      preset: undefined,
      downloadUrl: undefined,
      offline,
      modelsFolder,
      queryPrefix: env.EMBEDDINGS_QUERY_PREFIX,
      documentPrefix: env.EMBEDDINGS_DOCUMENT_PREFIX,
    };
  }
  const preset = findPreset(model);
  if (!preset) {
    throw new UsageError(
      `unknown model: ${model}`,
      `use one of ${Object.keys(modelPresets).join(", ")}, or a path to a .gguf file`,
    );
  }
  return {
    kind: "local",
    name: preset.name,
    modelPath: join(modelsFolder, preset.fileName),
    preset,
    downloadUrl: presetDownloadUrl(preset, env.RECALL_MODEL_BASE_URL || undefined),
    offline,
    modelsFolder,
    queryPrefix: env.EMBEDDINGS_QUERY_PREFIX,
    documentPrefix: env.EMBEDDINGS_DOCUMENT_PREFIX,
  };
}
