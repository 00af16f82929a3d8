import { describe, expect, test } from "bun:test";
import { resolveSourceRoots, sourceDirVariables, sourceIds, sourceLocationVariables } from "../../src/parsers/index.ts";

const home = "/home/ada";
/** The User folders of VS Code and VS Code Insiders, on Linux or macOS (parsers/copilot-chat/source.ts). */
const vscodeUserRoots = (linuxConfig: string): string[] =>
  ["Code", "Code - Insiders"].map(
    (editor) =>
      `${process.platform === "darwin" ? "/home/ada/Library/Application Support" : linuxConfig}/${editor}/User`,
  );
/** A VS Code extension's storage in every editor recall looks in (parsers/cline/folders.ts), on Linux or macOS. */
const extensionRoots = (linuxConfig: string, extension: string): string[] =>
  ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"].map(
    (editor) =>
      `${process.platform === "darwin" ? "/home/ada/Library/Application Support" : linuxConfig}/${editor}/User/globalStorage/${extension}`,
  );

describe("where each source's history is looked for", () => {
  test("each tool's own default, moved by its own variable (formats.md §1.1, §2, §3.1, §4.1)", () => {
    expect(resolveSourceRoots({}, {}, home).roots).toEqual({
      "claude-code": ["/home/ada/.claude/projects"],
      opencode: ["/home/ada/.local/share/opencode"],
      codex: ["/home/ada/.codex"],
      "gemini-cli": ["/home/ada/.gemini"],
      cursor: [
        process.platform === "darwin"
          ? "/home/ada/Library/Application Support/Cursor/User"
          : "/home/ada/.config/Cursor/User",
      ],
      aider: [],
      "copilot-cli": ["/home/ada/.copilot"],
      "qwen-code": ["/home/ada/.qwen"],
      "kimi-cli": ["/home/ada/.kimi"],
      cline: [...extensionRoots("/home/ada/.config", "saoudrizwan.claude-dev"), "/home/ada/.cline/data"],
      "roo-code": extensionRoots("/home/ada/.config", "rooveterinaryinc.roo-cline"),
      "kilo-code": extensionRoots("/home/ada/.config", "kilocode.kilo-code"),
      pi: ["/home/ada/.pi/agent"],
      droid: ["/home/ada/.factory"],
      goose: [
        process.platform === "darwin"
          ? "/home/ada/Library/Application Support/Block/goose"
          : "/home/ada/.local/share/goose",
      ],
      crush: ["/home/ada/.local/share/crush"],
      continue: ["/home/ada/.continue"],
      "cursor-agent": ["/home/ada/.cursor/chats"],
      "copilot-chat": vscodeUserRoots("/home/ada/.config"),
      zed: [
        process.platform === "darwin"
          ? "/home/ada/Library/Application Support/Zed/threads"
          : "/home/ada/.local/share/zed/threads",
      ],
      openclaw: ["/home/ada/.openclaw", "/home/ada/.clawdbot", "/home/ada/.moltbot", "/home/ada/.moldbot"],
      "mistral-vibe": ["/home/ada/.vibe"],
      "grok-cli": ["/home/ada/.grok"],
      codebuff: ["/home/ada/.config/manicode"],
    });
    const movers = {
      CLAUDE_CONFIG_DIR: "~/cc,/etc/cc2",
      XDG_DATA_HOME: "/data",
      CODEX_HOME: "~/work/codex-home",
      GEMINI_CLI_HOME: "/srv/gem",
      COPILOT_HOME: "~/cp",
      QWEN_RUNTIME_DIR: "/srv/qwen",
      KIMI_SHARE_DIR: "~/kimi-data",
      PI_CODING_AGENT_DIR: "~/pi-agent",
      GOOSE_PATH_ROOT: "/srv/goose-root",
      CONTINUE_GLOBAL_DIR: "~/cont",
      OPENCLAW_STATE_DIR: "~/claw-state",
      VIBE_HOME: "/srv/vibe",
    };
    for (const name of Object.keys(movers)) expect(sourceLocationVariables).toContain(name); // tests unset this list to isolate a run
    const moved = resolveSourceRoots({}, movers, home);
    expect(moved.roots).toEqual({
      "claude-code": ["/home/ada/cc/projects", "/etc/cc2/projects"],
      opencode: ["/data/opencode"],
      codex: ["/home/ada/work/codex-home"],
      "gemini-cli": ["/srv/gem/.gemini"],
      cursor: [
        process.platform === "darwin"
          ? "/home/ada/Library/Application Support/Cursor/User"
          : "/home/ada/.config/Cursor/User",
      ],
      aider: [],
      "copilot-cli": ["/home/ada/cp"],
      "qwen-code": ["/srv/qwen"],
      "kimi-cli": ["/home/ada/kimi-data"],
      cline: [...extensionRoots("/home/ada/.config", "saoudrizwan.claude-dev"), "/home/ada/.cline/data"],
      "roo-code": extensionRoots("/home/ada/.config", "rooveterinaryinc.roo-cline"),
      "kilo-code": extensionRoots("/home/ada/.config", "kilocode.kilo-code"),
      pi: ["/home/ada/pi-agent"],
      droid: ["/home/ada/.factory"],
      goose: ["/srv/goose-root/data"],
      crush: ["/data/crush"],
      continue: ["/home/ada/cont"],
      "cursor-agent": ["/home/ada/.cursor/chats"],
      "copilot-chat": vscodeUserRoots("/home/ada/.config"),
      zed: [process.platform === "darwin" ? "/home/ada/Library/Application Support/Zed/threads" : "/data/zed/threads"],
      openclaw: ["/home/ada/claw-state"],
      "mistral-vibe": ["/srv/vibe"],
      "grok-cli": ["/home/ada/.grok"],
      codebuff: ["/home/ada/.config/manicode"],
    });
    expect(Object.values(moved.explicit).every((named) => !named)).toBe(true);
  });

  test("recall's env lists win over the defaults and flags win over both, per source; empty entries never become the cwd", () => {
    const env = { RECALL_CODEX_DIRS: "/a:/b::", RECALL_GEMINI_DIRS: "~/g", CODEX_HOME: "/ignored" };
    const resolved = resolveSourceRoots({ "gemini-cli": ["/flag/gemini"] }, env, home);
    expect(resolved.roots.codex).toEqual(["/a", "/b"]);
    expect(resolved.roots["gemini-cli"]).toEqual(["/flag/gemini"]);
    expect(resolved.explicit).toEqual({
      "claude-code": false,
      opencode: false,
      codex: true,
      "gemini-cli": true,
      cursor: false,
      aider: false,
      "copilot-cli": false,
      "qwen-code": false,
      "kimi-cli": false,
      cline: false,
      "roo-code": false,
      "kilo-code": false,
      pi: false,
      droid: false,
      goose: false,
      crush: false,
      continue: false,
      "cursor-agent": false,
      "copilot-chat": false,
      zed: false,
      openclaw: false,
      "mistral-vibe": false,
      "grok-cli": false,
      codebuff: false,
    });
  });

  test("every source has its own variable", () => {
    expect(Object.keys(sourceDirVariables).sort()).toEqual([...sourceIds].sort());
    for (const name of Object.values(sourceDirVariables)) expect(sourceLocationVariables).toContain(name);
    expect(new Set(Object.values(sourceDirVariables)).size).toBe(sourceIds.length);
  });
});
