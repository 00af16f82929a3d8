/**
 * Writes one setting into recall's settings file (`<config>/.env`: `$XDG_CONFIG_HOME/recall/.env`, or
 * `RECALL_HOME/.env`), the file config.ts reads under the environment. Used by `recall model use`.
 * The file may hold EMBEDDINGS_API_KEY, so it is written private (0600) through a temp file and a rename: a crash
 * leaves the old file whole, and every other line (comments included) is kept as it was.
 */
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { UsageError } from "../errors.ts";
import { dotEnvPath, ensureRecallHome, type RecallPaths } from "../home/paths.ts";

/**
 * Sets `key=value` in the settings file, replacing every earlier `key=` line (with or without `export `), or
 * removes the key when `value` is undefined. A value holding spaces, `#`, quotes or backslashes is written in single
 * quotes, which config.ts parseDotEnv reads back literally (double quotes would expand `\n` in a Windows path).
 * @returns the settings file's path
 * @throws UsageError for a value with `'` or a line break; IndexError HOME_UNUSABLE when the config folder cannot be created; Error from fs when it cannot be written
 */
export function writeSetting(paths: RecallPaths, key: string, value: string | undefined): string {
  if (value !== undefined && (value.includes("'") || /[\r\n]/.test(value))) {
    throw new UsageError(
      `cannot save ${key}: the value holds a quote or a line break`,
      "rename the file or folder, or set it in the environment",
    );
  }
  const path = dotEnvPath(paths);
  ensureRecallHome(paths.config);
  const lines = existsSync(path) ? readFileSync(path, "utf8").split(/\r?\n/) : [];
  if (lines.at(-1) === "") lines.pop();
  const isKey = new RegExp(`^\\s*(export\\s+)?${key}\\s*=`);
  const kept = lines.filter((line) => !isKey.test(line));
  if (value !== undefined) kept.push(`${key}=${/[\s#"\\]/.test(value) ? `'${value}'` : value}`);
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, kept.length > 0 ? `${kept.join("\n")}\n` : "", { mode: 0o600 });
    chmodSync(tmp, 0o600); // whatever the umask
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
  return path;
}
