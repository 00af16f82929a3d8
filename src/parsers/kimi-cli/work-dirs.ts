/**
 * Kimi CLI's work directories (the project folders): `<share dir>/kimi.json` `{work_dirs: [{path, kaos, …}]}`, and a
 * session folder `sessions/<md5 of the path>/` (`<kaos>_<md5>` for a work dir not on the local KAOS): MoonshotAI/kimi-cli
 * `src/kimi_cli/metadata.py` `WorkDirMeta.sessions_dir`, commit 4a550eff. The folder name alone cannot be turned back
 * into a path; kimi.json is what names it.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { asObject } from "../shared/fields.ts";

/** The metadata file of a share dir. */
export const metadataFileName = "kimi.json";

/** The folder of a share dir that holds the sessions. */
export const sessionsDirName = "sessions";

/** Kimi's name of the local machine's KAOS (kaos `local_kaos.name`): its folders carry no prefix. */
const localKaos = "local";

/**
 * The share dir of a wire file at `<share>/sessions/<work dir hash>/<session id>/wire.jsonl`, else null (a copy
 * elsewhere). Example: `/h/.kimi/sessions/ab…/s1/wire.jsonl` → `/h/.kimi`.
 */
export function shareDirOf(wirePath: string): string | null {
  const sessions = dirname(dirname(dirname(wirePath)));
  return basename(sessions) === sessionsDirName ? dirname(sessions) : null;
}

/** The name of the session folder of a work dir: md5 of its path, prefixed `<kaos>_` when not local. */
export function workDirHash(path: string, kaos: string = localKaos): string {
  const md5 = new Bun.CryptoHasher("md5").update(path, "utf8").digest("hex");
  return kaos === localKaos ? md5 : `${kaos}_${md5}`;
}

/**
 * The work dirs of a share dir, by the name of their session folder; empty when kimi.json is missing or not JSON.
 * @throws the fs error when kimi.json exists but cannot be read (the caller reports it as unavailable)
 */
export function readWorkDirs(shareDir: string): Map<string, string> {
  const byHash = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(join(shareDir, metadataFileName), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return byHash;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return byHash;
  }
  const list = asObject(value)?.work_dirs;
  for (const entry of Array.isArray(list) ? list : []) {
    const dir = asObject(entry);
    if (typeof dir?.path !== "string" || !dir.path) continue;
    byHash.set(workDirHash(dir.path, typeof dir.kaos === "string" ? dir.kaos : localKaos), dir.path);
  }
  return byHash;
}
