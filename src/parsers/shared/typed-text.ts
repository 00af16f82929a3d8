/**
 * What a person typed, out of a prompt as the tool stored it (issue 26): IDE extensions and hooks prepend blocks the
 * user never wrote to most first prompts (Claude Code's VS Code and JetBrains extensions: `<ide_opened_file>`,
 * `<ide_selection>`, `<ide_diagnostics>`; hooks and reminders: `<system-reminder>`, `<user-prompt-submit-hook>`;
 * seen in ../shared/corpus: 18 + 5 + 3 real first prompts start with one). The index keeps and searches the whole
 * prompt; titles and previews show the typed part.
 */

/** Wrapper tags whose whole block (opening tag to closing tag) was injected, not typed. */
export const injectedWrapperTags = [
  "ide_opened_file",
  "ide_selection",
  "ide_diagnostics",
  "system-reminder",
  "user-prompt-submit-hook",
] as const;

const wrapperBlock = new RegExp(`<(${injectedWrapperTags.join("|")})>[\\s\\S]*?(?:</\\1>|$)`, "g");

/**
 * The prompt without injected wrapper blocks (an unclosed one runs to the end), trimmed; "" when nothing else is left.
 * Examples: `<ide_opened_file>The user opened /a.ts</ide_opened_file>\nfix the bug` → `fix the bug`;
 *   `explain <system-reminder>x</system-reminder> this` → `explain  this`; `<b>bold</b> text` → unchanged.
 */
export function typedText(prompt: string): string {
  if (!prompt.includes("<")) return prompt.trim();
  return prompt.replace(wrapperBlock, "").trim();
}
