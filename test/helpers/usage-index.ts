/**
 * An index of the four usage fixtures (issue 38 item 14), for the usage reader and page tests: the Claude Code
 * transcript of split messages (test/fixtures/claude-code/usage-split.jsonl, project ai-music, June 2025), the Codex
 * rollout (test/fixtures/codex/usage, project agent-sample, December 2025), lanegrid/agtrace's Gemini CLI chat (project
 * agent-sample, December 2025) and the OpenCode storage (test/fixtures/opencode/usage, January 2026).
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { runIndex } from "../../src/index/index.ts";
import type { SourceRootMap } from "../../src/parsers/types.ts";

const fixtures = resolve(import.meta.dir, "../fixtures");

/** Index the fixtures into `home` (an empty folder), reading copies made under `scratch`; returns the roots. */
export async function buildUsageIndex(home: string, scratch: string): Promise<SourceRootMap> {
  const claude = join(scratch, "claude");
  mkdirSync(join(claude, "-Users-chip-dev-ai-music"), { recursive: true });
  copyFileSync(
    join(fixtures, "claude-code/usage-split.jsonl"),
    join(claude, "-Users-chip-dev-ai-music", "fed8ce56-bc79-401f-a83e-af084253362f.jsonl"),
  );
  const gemini = join(scratch, "gemini");
  const chats = join(gemini, "tmp", "agent-sample", "chats");
  mkdirSync(chats, { recursive: true });
  copyFileSync(
    join(fixtures, "gemini-cli/agtrace/.gemini/tmp/agent-sample/chats/session-2025-12-09T19-51-f0a689a6.json"),
    join(chats, "session-2025-12-09T19-51-f0a689a6.json"),
  );
  const roots: SourceRootMap = {
    "claude-code": [claude],
    codex: [join(fixtures, "codex/usage")],
    opencode: [join(fixtures, "opencode/usage")],
    "gemini-cli": [gemini],
    cursor: [join(scratch, "none")],
    aider: [join(scratch, "none")],
  };
  await runIndex({ recallHome: home, roots });
  return roots;
}
