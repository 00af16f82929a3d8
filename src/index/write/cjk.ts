/**
 * The index side of matching inside unsegmented scripts (issue 13). FTS5 `unicode61` keeps a run of Han,
 * kana, Hangul, Thai, Lao, Khmer, Myanmar or Tibetan letters as ONE token (`调度器介入时`), so a query for a
 * word inside it (`调度器`) finds nothing in `documents_fts`. A side table `documents_cjk` (FTS5,
 * `tokenize='trigram'`, rowid = `documents.id`) holds, per document, only its {@link unsegmentedRuns},
 * separated by single spaces; documents without one have no row. So English ranking and the main
 * index are untouched and the side table stays small. It keeps its content (unlike `documents_fts`)
 * because queries shorter than 3 characters cannot use trigrams and fall back to LIKE over it
 * (search/ranking/cjk.ts). A trigger deletes its row with the document; writer.ts replaces it when the text changes;
 * forget.ts optimizes it like `documents_fts`.
 */
import type { Database } from "bun:sqlite";
import { loadDocumentTexts, type DocumentText } from "./documents.ts";
import { spaceScriptBoundaries, unsegmentedLetter } from "./script-boundary.ts";

export { unsegmentedLetter };

const tokenCharacters = /[\p{L}\p{N}]+/gu;
const combiningMarks = /\p{M}/gu;

/**
 * The runs of unsegmented-script text in `text`, as the side index stores them and as queries look them up
 * (search/ranking/cjk.ts applies the same function to query tokens, so both sides agree): NFKC, lower-case, combining
 * marks removed (unicode61 splits Thai `ปัญหา` at its vowel marks into `ป` `ญหา`, and so does the query parser:
 * without marks both become `ปญหา`), a space put between a Latin letter or digit and an unsegmented letter
 * (script-boundary.ts: `安装了kimi` is two words, issue 38); then letter/digit tokens, where consecutive tokens holding an
 * unsegmented letter join into one run with nothing between them (punctuation and spaces inside CJK/Thai text
 * are not word boundaries one can rely on) and any other token ends the run.
 *   `"当调度器介入时, call fix()"` → `["当调度器介入时"]`;  `"调度器/介入 then 重试"` → `["调度器介入", "重试"]`;
 *   `"ปัญหาการเชื่อมต่อ timeout"` → `["ปญหาการเชอมตอ"]`;  `"我本地安装了kimi-cli 帮我"` → `["我本地安装了", "帮我"]`;
 *   `"plain English"` → `[]`
 */
export function unsegmentedRuns(text: string): string[] {
  if (!unsegmentedLetter.test(text)) return [];
  const clean = spaceScriptBoundaries(text.normalize("NFKC").toLowerCase().replace(combiningMarks, ""));
  const tokens = clean.match(tokenCharacters) ?? [];
  const runs: string[] = [];
  let run = "";
  for (const token of tokens) {
    if (unsegmentedLetter.test(token)) {
      run += token;
      continue;
    }
    if (run !== "") runs.push(run);
    run = "";
  }
  if (run !== "") runs.push(run);
  return runs;
}

/** The side-index text of a document: the {@link unsegmentedRuns} of its heading, body, extra and abstract columns. */
export function unsegmentedDocumentText(text: Pick<DocumentText, "heading" | "body" | "extra" | "abstract">): string {
  return [text.heading, text.body, text.extra, text.abstract].flatMap(unsegmentedRuns).join(" ");
}

/**
 * Replace the side-index row of document `documentId` with `side`, its {@link unsegmentedDocumentText} (no row when
 * it is ""). `isNew`: the document was inserted in this transaction, so it has no row to delete. Runs inside the
 * caller's transaction.
 */
export function writeUnsegmented(db: Database, documentId: number, side: string, isNew = false): void {
  if (!isNew) db.query("DELETE FROM documents_cjk WHERE rowid = ?").run(documentId);
  if (side !== "") db.query("INSERT INTO documents_cjk(rowid, text) VALUES (?, ?)").run(documentId, side);
}

/**
 * Fill the side index for every existing document (schema migration v3 of an index written before it).
 * Only documents whose turn or session rows hold an unsegmented letter are rebuilt (a GLOB on code-point
 * ranges preselects them in SQL), so an index without such text pays one scan.
 * @returns the number of side rows written
 */
export function backfillUnsegmented(db: Database): number {
  const ranges = "[぀-ヿ㐀-䶿一-鿿豈-﫿가-힯ก-໿က-႟ក-៿ༀ-࿿]";
  const ids = db
    .query<{ id: number }, []>(
      `SELECT d.id FROM documents d JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number
       WHERE d.level = 'turn' AND (t.prompt GLOB '*${ranges}*' OR t.response GLOB '*${ranges}*' OR t.tools GLOB '*${ranges}*' OR t.files GLOB '*${ranges}*')
       UNION
       SELECT d.id FROM documents d JOIN sessions s ON s.id = d.session_rowid
       WHERE d.level = 'session' AND (coalesce(s.title, '') GLOB '*${ranges}*' OR s.project_name GLOB '*${ranges}*' OR s.files GLOB '*${ranges}*'
         OR EXISTS (SELECT 1 FROM turns t WHERE t.session_rowid = s.id AND t.prompt GLOB '*${ranges}*'))`,
    )
    .all()
    .map((row) => row.id);
  let written = 0;
  for (const [id, text] of loadDocumentTexts(db, ids)) {
    const side = unsegmentedDocumentText(text);
    if (side === "") continue;
    db.query("INSERT INTO documents_cjk(rowid, text) VALUES (?, ?)").run(id, side);
    written++;
  }
  return written;
}
