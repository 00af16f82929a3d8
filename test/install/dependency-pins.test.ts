import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Issue 8: set-up must give the same tree on any future day. `npm ci` already refuses a lock file that
 * disagrees with package.json; these tests say *why* before CI gets that far, and keep the allowScripts
 * policy complete so set-up does not change when npm starts enforcing it.
 */
const repo = resolve(import.meta.dir, "../..");
const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as {
  packages: Record<
    string,
    {
      version?: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
      hasInstallScript?: boolean;
    }
  >;
};
const exactVersion = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

describe("dependency pins (issue 8)", () => {
  test("every dependency and devDependency is an exact version, never latest, ^ or ~", () => {
    const loose = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies }).filter(
      ([, range]) => !exactVersion.test(range),
    );
    expect(loose).toEqual([]);
  });

  test("package-lock.json records the same ranges as package.json and installs exactly those versions", () => {
    const root = lock.packages[""]!;
    expect(root.dependencies).toEqual(pkg.dependencies);
    expect(root.devDependencies).toEqual(pkg.devDependencies);
    for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      expect(`${name}@${lock.packages[`node_modules/${name}`]?.version}`).toBe(`${name}@${version}`);
    }
  });

  test("allowScripts decides every locked package that has an install script", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== "" && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
    const undecided = withScripts.filter((name) => !(name in pkg.allowScripts));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(undecided).toEqual([]);
  });
});
