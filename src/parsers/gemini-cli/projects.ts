/**
 * Project paths of Gemini CLI project folders named by a hash (docs/formats.md §4.1). Before CLI 0.29 a project's
 * folder was `tmp/<SHA-256 hex of the project root>`, with no `.project_root`; `projectHash` inside every chat is that
 * hash in both layouts. A hash cannot be reversed, but a candidate path can be checked: the CLI hashes the project
 * root exactly as it got it (`getFilePathHash` in packages/core/src/config/storage.ts, `getProjectHash` in
 * utils/paths.ts: `createHash('sha256').update(root).digest('hex')`), so a candidate whose SHA-256 is the hash is that
 * root, never a guess.
 *
 * Candidates are the paths the `.gemini` folder records elsewhere: the registry `projects.json`
 * (`{projects: {<path>: <slug>}}`) and the `.project_root` of every slug folder, plus the chat's own `directories`.
 * On Windows the registry and `.project_root` hold the path lower-cased (`normalizePath` in projectRegistry.ts) while
 * the hash is of the path as typed (real: registry `c:\users\acodu\dev\dashboard_mictlan`, folder
 * `56cfacee…` = SHA-256 of `C:\Users\acodu\dev\dashboard_mictlan`), and a user often ran the CLI in a parent folder
 * first (real: `5c810163…` = `C:\Users\acodu`). So each candidate is tried with its parent folders and, for a
 * Windows path, with the usual spellings of each component (each word lower, UPPER or Capitalized: real
 * `c:\Users\loganf\Documents\IDAHO-VAULT` from `c:\users\loganf\documents\idaho-vault`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { asObject } from "../shared/fields.ts";
import { geminiDirOf, projectRootFileName, registryFileName } from "./scan.ts";

/** Most spellings tried for one candidate path (Windows case variants multiply per component). */
const maxVariantsPerPath = 4096;

const hashPattern = /^[0-9a-f]{64}$/;

/** True for a folder name or `projectHash` that is a SHA-256 hex digest (pre-0.29 project folder). */
export function isProjectHash(name: string): boolean {
  return hashPattern.test(name);
}

/**
 * The name to show for a project folder whose path stays unknown: a hash folder's first 8 hex digits (as the CLI
 * shortens session ids in file names), any other name as it is.
 * Examples: `5c810163bbf1…431` (64 hex) → `5c810163`; `shop-app` → `shop-app`.
 */
export function shortProjectName(folderName: string): string {
  return isProjectHash(folderName) ? folderName.slice(0, 8) : folderName;
}

/** SHA-256 hex of a path string (UTF-8), as the CLI computes `projectHash`. Bun's hasher: ~4x node:crypto's here. */
export function projectHashOf(path: string): string {
  return Bun.SHA256.hash(path, "hex") as string;
}

/**
 * Paths the `.gemini` folder above `projectDir` records: the keys of `projects.json` and the `.project_root` of every
 * folder in `tmp/`. Missing or unreadable files and a registry that is not the expected JSON give no paths (the
 * project then stays unknown; nothing of a session depends on it).
 */
export function recordedProjectPaths(projectDir: string): string[] {
  const geminiDir = geminiDirOf(projectDir);
  if (geminiDir === null) return [];
  const paths: string[] = [];
  try {
    const registry = asObject(asObject(JSON.parse(readFileSync(join(geminiDir, registryFileName), "utf8")))?.projects);
    if (registry) paths.push(...Object.keys(registry));
  } catch {
    // no registry (CLI < 0.29), or one being rewritten: the .project_root files below name the same paths
  }
  let folders: string[] = [];
  try {
    folders = readdirSync(join(geminiDir, "tmp"));
  } catch {
    folders = [];
  }
  for (const folder of folders) {
    try {
      const root = readFileSync(join(geminiDir, "tmp", folder, projectRootFileName), "utf8").trim();
      if (root) paths.push(root);
    } catch {
      // a hash folder, or a folder without its marker
    }
  }
  return paths;
}

/** True for a Windows path (`C:\…`, `c:/…`, `\\server\share`), whose case the registry may have changed. */
function isWindowsPath(path: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/** Each word of a component in lower, UPPER or Capitalized case (`shop-api` → `Shop-API`, …); words split at `-_. `. */
function wordSpellings(component: string): string[] {
  const pieces = component.toLowerCase().split(/([-_. ]+)/);
  let spellings = [""];
  for (const piece of pieces) {
    const forms = /^[-_. ]*$/.test(piece)
      ? [piece]
      : [...new Set([piece, piece.toUpperCase(), piece.charAt(0).toUpperCase() + piece.slice(1)])];
    spellings = spellings.flatMap((head) => forms.map((form) => head + form));
  }
  return spellings;
}

/**
 * Spellings of one path component, the component as written first: per-word case (words split at `-_. `) when it
 * has at most {@link maxWordsVaried} words, else the whole component lower, UPPER, Capitalized.
 */
function componentSpellings(component: string): string[] {
  const words = component.split(/[-_. ]+/).filter(Boolean).length;
  if (words <= maxWordsVaried) return [...new Set([component, ...wordSpellings(component)])];
  const lower = component.toLowerCase();
  return [...new Set([component, lower, component.toUpperCase(), lower.charAt(0).toUpperCase() + lower.slice(1)])];
}

/** Components with more words than this get only whole-component spellings (3 words: 27 spellings). */
const maxWordsVaried = 3;

/**
 * Spellings of each component, cut to at most {@link maxVariantsPerPath} combinations: the components with the most
 * spellings keep only their first (as written, lower, UPPER) until the product fits.
 */
function spellingsWithinBudget(components: readonly string[]): string[][] {
  const lists = components.map((component) => (component === "" ? [""] : componentSpellings(component)));
  const product = () => lists.reduce((total, list) => total * list.length, 1);
  while (product() > maxVariantsPerPath) {
    const widest = lists.reduce((best, list, index) => (list.length > lists[best]!.length ? index : best), 0);
    lists[widest] = lists[widest]!.length > 3 ? lists[widest]!.slice(0, 3) : lists[widest]!.slice(0, 1);
  }
  return lists;
}

/**
 * A candidate path and its parent folders, each with the spellings a Windows path may have had before the registry
 * lower-cased it (at most {@link maxVariantsPerPath} per folder; a name in camelCase cannot be recovered).
 * Example: `c:\users\dev` → `c:\users\dev`, `c:\users\DEV`, …, `C:\Users\Dev`, `c:\users`, …, `c:`, `c:\`.
 */
export function candidateSpellings(path: string): string[] {
  const out: string[] = [];
  const windows = isWindowsPath(path);
  const separator = path.includes("\\") ? "\\" : "/";
  const parts = path.split(/[\\/]/);
  while (parts.length > 0 && parts.at(-1) === "") parts.pop();
  for (let depth = parts.length; depth >= 1; depth--) {
    const prefix = parts.slice(0, depth);
    const joined = prefix.join(separator) || separator;
    out.push(joined);
    if (!windows) continue;
    if (depth === 1) out.push(`${joined}${separator}`); // the drive root `C:\`
    let variants = [""];
    for (const [index, spellings] of spellingsWithinBudget(prefix).entries()) {
      variants = variants.flatMap((head) =>
        spellings.map((spelling) => (index === 0 ? spelling : head + separator + spelling)),
      );
    }
    out.push(...variants);
  }
  return [...new Set(out)];
}

/**
 * Project paths by SHA-256, for looking up many hashes against one set of candidate paths (with their parents and
 * spellings, {@link candidateSpellings}); built on the first look-up. Cost: one SHA-256 per spelling (a Windows path
 * of 6 components has ~730 with its parents; a POSIX path one per folder), ~0.5 µs each (30 such Windows paths: 25 ms).
 */
export class ProjectHashIndex {
  private byHash: Map<string, string> | null = null;

  constructor(private readonly candidates: readonly string[]) {}

  /** The first candidate spelling whose SHA-256 is one of `hashes` (in candidate order), or null. */
  lookup(hashes: readonly string[]): string | null {
    const wanted = hashes.filter(isProjectHash);
    if (wanted.length === 0 || this.candidates.length === 0) return null;
    if (!this.byHash) {
      this.byHash = new Map();
      for (const candidate of this.candidates) {
        for (const spelling of candidateSpellings(candidate)) {
          const hash = projectHashOf(spelling);
          if (!this.byHash.has(hash)) this.byHash.set(hash, spelling);
        }
      }
    }
    for (const hash of wanted) {
      const path = this.byHash.get(hash);
      if (path !== undefined) return path;
    }
    return null;
  }
}

/**
 * The path among `candidates` (with their parents and spellings) whose SHA-256 is one of `hashes`, or null.
 * Example: hashes [sha256("/home/dev/billing")], candidates ["/home/dev/billing/api"] → `/home/dev/billing`.
 */
export function matchProjectHash(hashes: readonly string[], candidates: readonly string[]): string | null {
  return new ProjectHashIndex(candidates).lookup(hashes);
}
