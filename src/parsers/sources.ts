/**
 * The registry of agents' identities and folders (source-info.ts), in display order: one line per agent. Light (no
 * parser code): the commands' flags (service/source-args.ts) and paths.ts read it without loading a parser.
 */
import { aiderSource } from "./aider/source.ts";
import { claudeCodeSource } from "./claude-code/source.ts";
import { clineSource } from "./cline/source.ts";
import { codebuffSource } from "./codebuff/source.ts";
import { codexSource } from "./codex/source.ts";
import { continueSource } from "./continue/source.ts";
import { copilotChatSource } from "./copilot-chat/source.ts";
import { copilotCliSource } from "./copilot-cli/source.ts";
import { crushSource } from "./crush/source.ts";
import { cursorSource } from "./cursor/source.ts";
import { cursorAgentSource } from "./cursor-agent/source.ts";
import { droidSource } from "./droid/source.ts";
import { geminiCliSource } from "./gemini-cli/source.ts";
import { gooseSource } from "./goose/source.ts";
import { grokCliSource } from "./grok-cli/source.ts";
import { kiloCodeSource } from "./kilo-code/source.ts";
import { kimiCliSource } from "./kimi-cli/source.ts";
import { mistralVibeSource } from "./mistral-vibe/source.ts";
import { openclawSource } from "./openclaw/source.ts";
import { opencodeSource } from "./opencode/source.ts";
import { piSource } from "./pi/source.ts";
import { qwenCodeSource } from "./qwen-code/source.ts";
import { rooCodeSource } from "./roo-code/source.ts";
import { zedSource } from "./zed/source.ts";
import type { SourceInfo } from "./source-info.ts";
import type { SourceId } from "./types.ts";

/** Every agent, in display order (the order of `sourceIds`). */
export const sources = [
  claudeCodeSource,
  opencodeSource,
  codexSource,
  geminiCliSource,
  cursorSource,
  aiderSource,
  copilotCliSource,
  qwenCodeSource,
  kimiCliSource,
  clineSource,
  rooCodeSource,
  kiloCodeSource,
  piSource,
  droidSource,
  gooseSource,
  crushSource,
  continueSource,
  cursorAgentSource,
  copilotChatSource,
  zedSource,
  openclawSource,
  mistralVibeSource,
  grokCliSource,
  codebuffSource,
] as const;

/** The key of each agent's folder option in parsed arguments: `claudeDir`, `opencodeDir`, … */
export type SourceArgName = (typeof sources)[number]["argName"];

/** One agent's identity and folders. */
export function sourceInfo(id: SourceId): SourceInfo {
  return sources.find((source) => source.id === id)!;
}
