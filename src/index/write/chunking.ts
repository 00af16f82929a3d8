/**
 * Chunking for embeddings (issue 4): a document's embed text is cut into chunks of at most
 * `maxTokens` tokens by the model's own tokenizer, where `maxTokens` is 80% of the model context
 * (or EMBEDDINGS_MAX_TOKENS). Session documents are split at turn boundaries (blank lines between
 * prompts); a single part longer than the budget is split inside at paragraph, then line, then
 * word boundaries, and as a last resort by characters: text is never truncated silently.
 */

/** Share of the model context a chunk may use (DESIGN.md "Documents"). */
export const contextShare = 0.8;

/** The chunk budget in tokens for a model context. */
export function chunkBudget(contextTokens: number): number {
  return Math.max(16, Math.floor(contextTokens * contextShare));
}

/**
 * Split `text` into chunks of at most `maxTokens` tokens (by `countTokens`), packing whole parts
 * (separated by blank lines) greedily in order. Returns [] for blank text.
 * Example: parts of 300, 300, 300 tokens with a 700 budget → two chunks: [300+300], [300].
 */
export function splitIntoChunks(text: string, maxTokens: number, countTokens: (text: string) => number): string[] {
  const parts = text
    .split(/\n{2,}/)
    .map((part) => part.trim())
    .filter(Boolean);
  const chunks: string[] = [];
  let current = "";
  let currentTokens = 0;
  const flush = () => {
    if (current) chunks.push(current);
    current = "";
    currentTokens = 0;
  };
  for (const part of parts) {
    const tokens = countTokens(part);
    if (tokens > maxTokens) {
      flush();
      chunks.push(...splitLongPart(part, maxTokens, countTokens));
      continue;
    }
    // +2 tokens of slack for the joining blank line.
    if (current && currentTokens + tokens + 2 > maxTokens) flush();
    current = current ? `${current}\n\n${part}` : part;
    currentTokens += tokens + (currentTokens > 0 ? 2 : 0);
  }
  flush();
  return chunks;
}

const separators = [/\n/, /(?<=[.!?])\s+/, /\s+/];

/** Split one over-long part at the coarsest separator that works, recursively; characters as the last resort. */
function splitLongPart(part: string, maxTokens: number, countTokens: (text: string) => number, level = 0): string[] {
  if (countTokens(part) <= maxTokens) return [part];
  const separator = separators[level];
  if (!separator) return splitByCharacters(part, maxTokens, countTokens);
  const pieces = part.split(separator).filter((piece) => piece.length > 0);
  if (pieces.length <= 1) return splitLongPart(part, maxTokens, countTokens, level + 1);
  const out: string[] = [];
  let current = "";
  for (const piece of pieces) {
    const candidate = current ? `${current}${level === 0 ? "\n" : " "}${piece}` : piece;
    if (countTokens(candidate) <= maxTokens) {
      current = candidate;
      continue;
    }
    if (current) out.push(current);
    if (countTokens(piece) > maxTokens) {
      out.push(...splitLongPart(piece, maxTokens, countTokens, level + 1));
      current = "";
    } else current = piece;
  }
  if (current) out.push(current);
  return out;
}

function splitByCharacters(text: string, maxTokens: number, countTokens: (text: string) => number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    let size = Math.min(rest.length, maxTokens * 4);
    while (size > 1 && countTokens(rest.slice(0, size)) > maxTokens) size = Math.floor(size * 0.8);
    out.push(rest.slice(0, size));
    rest = rest.slice(size);
  }
  return out;
}
