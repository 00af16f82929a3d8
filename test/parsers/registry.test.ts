/**
 * Issue 39, item 3: what an agent's format implies lives behind the parser interface (parsers/types.ts `Parser`): its
 * display name, what the watcher watches, and its resume command. The watcher, the resume commands and the MCP tool
 * descriptions read them from the registry, and no module outside src/parsers switches on a source id.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { planWatchTargets } from "../../src/index/watch/targets.ts";
import { stdioRegistration } from "../../src/mcp/config-snippet.ts";
import { parserFor, parsers, sourceIds, sources } from "../../src/parsers/index.ts";
import { sourceFlagNames, sourceFlags } from "../../src/service/source-args.ts";
import { resumeCommandFor } from "../../src/search/reading/hydrate.ts";

const src = resolve(import.meta.dir, "../../src");

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(folder, entry.name))
      : /\.tsx?$/.test(entry.name)
        ? [join(folder, entry.name)]
        : [],
  );
}

describe("the parser registry holds what each agent implies (issue 39, item 3)", () => {
  test("issue 40: a registered MCP server is handed every source's folder list (RECALL_<AGENT>_DIRS)", () => {
    const set = Object.fromEntries(sources.map((source) => [source.variable, `/history/${source.id}`]));
    const registration = stdioRegistration(["--keyword-only"], { ...set, UNRELATED: "x" });
    expect(registration.kind === "stdio" ? registration.env : {}).toEqual(set);
  });

  test("every source has one parser with a watch layout and a resume command, and one source.ts with its name and options", () => {
    expect(parsers.map((parser) => parser.id)).toEqual([...sourceIds]);
    expect(sources.map((source) => source.id)).toEqual([...sourceIds]);
    expect(Object.values(sourceFlagNames)).toEqual([
      "--claude-dir",
      "--opencode-dir",
      "--codex-dir",
      "--gemini-dir",
      "--cursor-dir",
      "--aider-dir",
      "--copilot-dir",
      "--qwen-dir",
      "--kimi-dir",
      "--cline-dir",
      "--roo-dir",
      "--kilo-dir",
      "--pi-dir",
      "--droid-dir",
      "--goose-dir",
      "--crush-dir",
      "--continue-dir",
      "--cursor-agent-dir",
      "--copilot-chat-dir",
      "--zed-dir",
      "--openclaw-dir",
      "--vibe-dir",
      "--grok-dir",
      "--codebuff-dir",
    ]);
    const folders = sourceFlags({
      claudeDir: ["/c"],
      opencodeDir: [],
      codexDir: ["/x"],
      geminiDir: [],
      cursorDir: [],
      aiderDir: ["/a"],
      copilotDir: [],
      qwenDir: [],
      kimiDir: [],
      clineDir: [],
      rooDir: ["/r"],
      kiloDir: [],
      piDir: [],
      droidDir: [],
      gooseDir: [],
      crushDir: [],
      continueDir: [],
      cursorAgentDir: [],
      copilotChatDir: [],
      zedDir: [],
      openclawDir: [],
      vibeDir: [],
      grokDir: [],
      codebuffDir: [],
    });
    expect(folders).toEqual({
      "claude-code": ["/c"],
      opencode: [],
      codex: ["/x"],
      "gemini-cli": [],
      cursor: [],
      aider: ["/a"],
      "copilot-cli": [],
      "qwen-code": [],
      "kimi-cli": [],
      cline: [],
      "roo-code": ["/r"],
      "kilo-code": [],
      pi: [],
      droid: [],
      goose: [],
      crush: [],
      continue: [],
      "cursor-agent": [],
      "copilot-chat": [],
      zed: [],
      openclaw: [],
      "mistral-vibe": [],
      "grok-cli": [],
      codebuff: [],
    });
    expect(sources.map((source) => source.displayName).join(", ")).toBe(
      "Claude Code, OpenCode, Codex CLI, Gemini CLI, Cursor, Aider, GitHub Copilot CLI, Qwen Code, Kimi CLI, Cline, Roo Code, Kilo Code, pi, Factory Droid, Goose, Crush, Continue, Cursor CLI, GitHub Copilot Chat, Zed, OpenClaw, Mistral Vibe, Grok CLI, Codebuff",
    );
    expect(
      Object.fromEntries(sourceIds.map((id) => [id, parserFor(id).resumeInvocation("s-1", "/work/my app").argv])),
    ).toEqual({
      "claude-code": ["claude", "--resume", "s-1"],
      opencode: ["opencode", "--session", "s-1"],
      codex: ["codex", "resume", "s-1"],
      "gemini-cli": ["gemini", "--resume", "s-1"],
      cursor: ["cursor", "/work/my app"],
      aider: ["aider", "--restore-chat-history"],
      "copilot-cli": ["copilot", "--resume", "s-1"],
      "qwen-code": ["qwen", "--resume", "s-1"],
      "kimi-cli": ["kimi", "-r", "s-1"],
      cline: ["code", "/work/my app"],
      "roo-code": ["code", "/work/my app"],
      "kilo-code": ["code", "/work/my app"],
      pi: ["pi", "--session", "s-1"],
      droid: ["droid", "--resume", "s-1"],
      goose: ["goose", "session", "--resume", "--session-id", "s-1"],
      crush: ["crush", "--session", "s-1"],
      continue: ["cn", "--fork", "s-1"],
      "cursor-agent": ["cursor-agent", "--resume", "s-1"],
      "copilot-chat": ["code", "/work/my app"],
      zed: ["zed", "/work/my app"],
      openclaw: ["openclaw", "resume"],
      "mistral-vibe": ["vibe", "--resume", "s-1"],
      "grok-cli": ["grok", "--session", "s-1"],
      codebuff: ["codebuff", "--continue", "s-1"],
    });
    // The shell line quotes what a crafted file name could hold, and a folder that looks like an option stays a path.
    expect(resumeCommandFor("codex", "$(touch x)", "/work/my app")).toBe(
      "cd '/work/my app' && codex resume '$(touch x)'",
    );
    expect(resumeCommandFor("cursor", "c-1", "-rf")).toBe("cursor -- -rf");
  });

  test("the watcher plans each root by its parser's layout: a missing Aider folder stays gone, a missing Codex one is awaited", () => {
    const missing = "/nonexistent-recall-root/sub";
    const targets = planWatchTargets({ codex: [missing], aider: [missing], cursor: [missing] });
    expect(targets.map((target) => [target.source, target.kind, target.file])).toEqual([
      ["codex", "pending", missing],
      ["cursor", "pending", missing],
    ]);
    const here = resolve(import.meta.dir);
    const tree = planWatchTargets({ codex: [here], cursor: [here], aider: [here] });
    expect(tree.map((target) => [target.source, target.depth])).toEqual([
      ["codex", 6],
      ["cursor", 2],
      ["aider", 0],
    ]);
  });

  test("no module outside src/parsers switches on a source id", () => {
    const ids = sourceIds.map((id) => id.replace(/-/g, "\\-")).join("|");
    const sourceCase = new RegExp(`case "(${ids})":`);
    const offenders = sourceFiles(src)
      .filter((file) => !relative(src, file).startsWith("parsers/"))
      .filter((file) => {
        const text = readFileSync(file, "utf8");
        return text.includes("SourceId") && sourceCase.test(text);
      })
      .map((file) => relative(src, file));
    expect(offenders).toEqual([]);
  });
});
