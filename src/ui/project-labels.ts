/**
 * What the web view calls each project. A project's short name is its folder's name, and two folders may share it
 * (`~/work/IDAHO-VAULT`, `~/old/IDAHO-VAULT`, `~/idaho-vault`): names that collide, ignoring case, are told apart by as
 * many of the path's last folders as it takes (`work/IDAHO-VAULT`, `old/IDAHO-VAULT`). Sessions without a project
 * folder are {@link noProjectLabel} (issue 38).
 */
import { noProjectLabel } from "../search/index.ts";

/** A project as the index knows it: its folder (`path`, "" for none) and its short name. */
export interface ProjectName {
  path: string;
  name: string;
}

/** The last `count` folders of `path` (`/a/b/c`, 2 → `b/c`); the whole path when it has fewer. */
function pathTail(path: string, count: number): string {
  const parts = path.split(/[\\/]+/).filter((part) => part !== "");
  return parts.length <= count ? path : parts.slice(-count).join("/");
}

/**
 * A label per project path: its short name, or, when another project of the list has the same name ignoring case,
 * the shortest tail of its path (in folders) that differs ignoring case from every other project's of that name.
 * Sessions without a folder (path "") are {@link noProjectLabel}. Returns a map from path to label.
 */
export function projectLabels(projects: readonly ProjectName[]): Map<string, string> {
  const labels = new Map<string, string>();
  const byName = new Map<string, string[]>();
  for (const { path, name } of projects) {
    if (path === "") {
      labels.set(path, noProjectLabel);
      continue;
    }
    const key = (name || path).toLowerCase();
    const paths = byName.get(key) ?? [];
    if (!paths.includes(path)) paths.push(path);
    byName.set(key, paths);
    labels.set(path, name || path);
  }
  for (const paths of byName.values()) {
    if (paths.length < 2) continue;
    const deepest = Math.max(...paths.map((path) => path.split(/[\\/]+/).length));
    let count = 2;
    const distinct = () => new Set(paths.map((path) => pathTail(path, count).toLowerCase())).size === paths.length;
    while (count < deepest && !distinct()) count++;
    for (const path of paths) labels.set(path, pathTail(path, count));
  }
  return labels;
}
