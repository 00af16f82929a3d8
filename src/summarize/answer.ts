/**
 * What every backend does with a model's answer before it becomes a summary (issue 41): strip reasoning
 * (`<think>…</think>`, which Qwen3 and DeepSeek-R1 style models emit), a leading "Summary:" label, markdown
 * (headings, bullets, bold, inline code marks) and extra whitespace, so the summary is plain sentences; and reject
 * an answer that is empty, absurdly long or the prompt echoed back.
 */
import { SummaryFailure, type SummaryPrompt } from "./types.ts";

/** The longest summary accepted, in characters: 2–3 sentences are 200–600; past this the model ignored the brief. */
export const maxSummaryCharacters = 1_500;

/** An answer whose first this-many characters occur verbatim in the prompt is an echo, not a summary. */
const echoWindow = 120;

/** Removes reasoning blocks; an unclosed `<think>` swallows the rest (the model ran out of tokens while thinking). */
function stripReasoning(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/gi, " ").replace(/<think>[\s\S]*$/i, " ");
}

/** One markdown line as plain text; a bullet or numbered item becomes a sentence ending in a full stop. */
function plainLine(line: string): string {
  let text = line.trim().replace(/^#{1,6}\s+/, "");
  const isItem = /^([-*+•]|\d+[.)])\s+/.test(text);
  text = text
    .replace(/^([-*+•]|\d+[.)])\s+/, "")
    .replace(/\*\*(.+?)\*\*|__(.+?)__/g, "$1$2")
    .replace(/`([^`]+)`/g, "$1")
    .trim();
  if (isItem && text !== "" && !/[.!?:;]$/.test(text)) text += ".";
  return text;
}

const collapse = (text: string): string => text.replace(/\s+/g, " ").trim();

/**
 * Returns the answer as plain sentences on one line.
 * Examples: `"<think>hm</think>Summary: Fixed the build."` → `"Fixed the build."`;
 *   `"- Asked to fix CI\n- Pinned bun"` → `"Asked to fix CI. Pinned bun."`; `"**Done.**"` → `"Done."`
 * @param raw the model's text as received
 * @param prompt what was sent, to recognise an echo
 * @throws SummaryFailure(bad_answer) when nothing is left, the text is over 1,500 characters, or its first 120
 *   characters (whitespace-collapsed) occur verbatim in the prompt
 */
export function cleanSummaryAnswer(raw: string, prompt: SummaryPrompt): string {
  const lines = stripReasoning(raw)
    .split(/\r?\n/)
    .map(plainLine)
    .filter((line) => line !== "" && !/^(summary|tl;dr)\s*:?$/i.test(line));
  const text = collapse(lines.join(" ")).replace(/^(summary|tl;dr)\s*[:\-–—]\s*/i, "");
  if (text === "") throw new SummaryFailure("bad_answer", "the model's answer was empty");
  if (text.length > maxSummaryCharacters)
    throw new SummaryFailure(
      "bad_answer",
      `the model's answer was ${text.length} characters, over the ${maxSummaryCharacters} a summary may have`,
    );
  const head = text.slice(0, echoWindow);
  if (head.length >= 40 && collapse(`${prompt.system}\n${prompt.user}`).includes(head))
    throw new SummaryFailure("bad_answer", "the model echoed the prompt instead of summarizing it");
  return text;
}
