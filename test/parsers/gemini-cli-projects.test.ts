import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import type { Session } from "../../src/parsers/types.ts";

/**
 * A `.gemini` folder with pre-0.29 project folders named by the SHA-256 of the project root and no `.project_root`
 * (test/fixtures/gemini-cli/README.md): the registry `projects.json` names `/home/dev/billing` and, lower-cased as
 * the CLI writes Windows paths, `c:\users\dev\projects\shop-api`.
 */
const root = resolve(import.meta.dir, "../fixtures/gemini-cli/registry/.gemini");

function sessionsBelow(dir: string): Map<string, Session> {
  const units = geminiCliParser.listUnits(geminiCliParser.scan([dir]).containers);
  return new Map(units.map((unit) => [unit.sessionId, geminiCliParser.parse(unit).session]));
}

const project = (session: Session | undefined) => [session?.projectPath, session?.projectName];

describe("issue 26: project names of Gemini folders named by a hash", () => {
  const sessions = sessionsBelow(root);

  test("a hash folder of a registered path is named by that path", () => {
    expect(project(sessions.get("a1b2c3d4-1111-4000-8000-000000000001"))).toEqual(["/home/dev/billing", "billing"]);
  });

  test("a Windows path the registry lower-cased is found in the spelling the CLI hashed, and so is a parent folder", () => {
    expect(project(sessions.get("b2c3d4e5-2222-4000-8000-000000000002"))).toEqual([
      "C:\\Users\\dev\\Projects\\Shop-API",
      "Shop-API",
    ]);
    expect(project(sessions.get("c3d4e5f6-3333-4000-8000-000000000003"))).toEqual(["C:\\Users\\dev", "dev"]);
  });

  test("without a registry entry, the chat's directories name the project when one hashes to the folder", () => {
    expect(project(sessions.get("d4e5f6a7-4444-4000-8000-000000000004"))).toEqual(["/srv/tools", "tools"]);
  });

  test("a folder not named by the hash is named through its files' projectHash", () => {
    expect(project(sessions.get("e5f6a7b8-5555-4000-8000-000000000005"))).toEqual(["/home/dev/billing", "billing"]);
  });

  test("a hash nothing names stays unknown, shown by its first 8 hex digits", () => {
    expect(project(sessions.get("f6a7b8c9-6666-4000-8000-000000000006"))).toEqual(["", "76664e2a"]);
  });

  test("a prompt-only session from a hash folder's logs.json is named the same way", () => {
    const promptOnly = sessions.get("0a0b0c0d-7777-4000-8000-000000000007");
    expect(promptOnly?.promptOnly).toBe(true);
    expect(project(promptOnly)).toEqual(["/home/dev/billing", "billing"]);
  });

  test("a registry that appears later changes the fingerprint and then the name", () => {
    const temp = mkdtempSync(join(tmpdir(), "recall-gemini-registry-"));
    try {
      const copy = join(temp, ".gemini");
      cpSync(root, copy, { recursive: true });
      rmSync(join(copy, "projects.json"));
      const before = geminiCliParser.scan([copy]).containers;
      const hashChat = (containers: typeof before) => containers.find((entry) => entry.path.includes("a1b2c3d4"))!;
      expect(project(sessionsBelow(copy).get("a1b2c3d4-1111-4000-8000-000000000001"))).toEqual(["", "4a952e78"]);
      writeFileSync(join(copy, "projects.json"), JSON.stringify({ projects: { "/home/dev/billing": "billing" } }));
      const after = geminiCliParser.scan([copy]);
      expect(hashChat(after.containers).fingerprint).not.toBe(hashChat(before).fingerprint);
      expect(after.watched?.some((entry) => entry.path === join(copy, "projects.json"))).toBe(true);
      expect(project(sessionsBelow(copy).get("a1b2c3d4-1111-4000-8000-000000000001"))).toEqual([
        "/home/dev/billing",
        "billing",
      ]);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });
});
