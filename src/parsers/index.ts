/**
 * The parsers layer's public surface: the normalized model, the source registry, and root
 * resolution. The registry is a plain list; `parserFor` covers every `SourceId` with a
 * `satisfies never` switch so adding a source fails typecheck until it is registered.
 */
import { aiderParser } from "./aider.ts";
import { claudeCodeParser } from "./claude-code.ts";
import { clineParser } from "./cline.ts";
import { codebuffParser } from "./codebuff.ts";
import { codexParser } from "./codex.ts";
import { continueParser } from "./continue.ts";
import { copilotChatParser } from "./copilot-chat.ts";
import { copilotCliParser } from "./copilot-cli.ts";
import { crushParser } from "./crush.ts";
import { cursorParser } from "./cursor.ts";
import { cursorAgentParser } from "./cursor-agent.ts";
import { droidParser } from "./droid.ts";
import { geminiCliParser } from "./gemini-cli.ts";
import { gooseParser } from "./goose.ts";
import { grokCliParser } from "./grok-cli.ts";
import { kiloCodeParser } from "./kilo-code.ts";
import { kimiCliParser } from "./kimi-cli.ts";
import { mistralVibeParser } from "./mistral-vibe.ts";
import { openclawParser } from "./openclaw.ts";
import { opencodeParser } from "./opencode.ts";
import { piParser } from "./pi.ts";
import { qwenCodeParser } from "./qwen-code.ts";
import { rooCodeParser } from "./roo-code.ts";
import { zedParser } from "./zed.ts";
import type { Parser, SourceId } from "./types.ts";

export * from "./types.ts";
export { sourceInfo, sources, type SourceArgName } from "./sources.ts";
export type { SourceInfo } from "./source-info.ts";
export { comparePaths, watchedFingerprint } from "./shared/tree-walk.ts";
export { isMissingError } from "./file-stats.ts";
export {
  resolveSourceRoots,
  expandPath,
  sourceDirVariables,
  sourceLocationVariables,
  type Environment,
  type SourceRoots,
} from "./paths.ts";
export { normalizeToolName, buildToolCall, filesTouched } from "./tool-calls.ts";
export { mainModel, plusCount } from "./usage.ts";
export { typedText, injectedWrapperTags } from "./shared/typed-text.ts";
export { optionSafe } from "./shared/option-safe.ts";
/** What the scans skip and how deep they walk, for the watcher (src/index/watch/targets.ts) to watch the same folders. */
export { skippedDirs as claudeSkippedDirs, maxDepth as claudeMaxDepth } from "./claude-code/scan.ts";
export { dbNamePattern as opencodeDbNamePattern } from "./opencode/scan.ts";

/** Every parser, in display order. */
export const parsers: readonly Parser[] = [
  claudeCodeParser,
  opencodeParser,
  codexParser,
  geminiCliParser,
  cursorParser,
  aiderParser,
  copilotCliParser,
  qwenCodeParser,
  kimiCliParser,
  clineParser,
  rooCodeParser,
  kiloCodeParser,
  piParser,
  droidParser,
  gooseParser,
  crushParser,
  continueParser,
  cursorAgentParser,
  copilotChatParser,
  zedParser,
  openclawParser,
  mistralVibeParser,
  grokCliParser,
  codebuffParser,
];

/** The parser of one source. */
export function parserFor(source: SourceId): Parser {
  switch (source) {
    case "claude-code":
      return claudeCodeParser;
    case "opencode":
      return opencodeParser;
    case "codex":
      return codexParser;
    case "gemini-cli":
      return geminiCliParser;
    case "cursor":
      return cursorParser;
    case "aider":
      return aiderParser;
    case "copilot-cli":
      return copilotCliParser;
    case "qwen-code":
      return qwenCodeParser;
    case "kimi-cli":
      return kimiCliParser;
    case "cline":
      return clineParser;
    case "roo-code":
      return rooCodeParser;
    case "kilo-code":
      return kiloCodeParser;
    case "pi":
      return piParser;
    case "droid":
      return droidParser;
    case "goose":
      return gooseParser;
    case "crush":
      return crushParser;
    case "continue":
      return continueParser;
    case "cursor-agent":
      return cursorAgentParser;
    case "copilot-chat":
      return copilotChatParser;
    case "zed":
      return zedParser;
    case "openclaw":
      return openclawParser;
    case "mistral-vibe":
      return mistralVibeParser;
    case "grok-cli":
      return grokCliParser;
    case "codebuff":
      return codebuffParser;
    default:
      return source satisfies never;
  }
}
