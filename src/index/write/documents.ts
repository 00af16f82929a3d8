/**
 * Documents: the searchable text derived from a session (DESIGN.md "Documents").
 * A turn document = prompt (heading) + assistant prose (body) + tool names, compact inputs and
 * files (extra). A session document = title (heading) + every prompt of the session (body) + files
 * (extra) + its summary and abstract (abstract, issue 41: what `recall summarize` and the agent wrote about it; a turn
 * document's is empty). FTS5 indexes all four columns; `embedText` is what the embedding model sees: for a turn,
 * prompt, prose, tool names and files, never tool payloads (they are most of the bytes and little meaning); for a
 * session, its title, summary and abstract. Each prompt is embedded once, in its turn (issue 12: 21% of the embedded tokens were
 * prompts embedded a second time in the session document); a session's vector score is its best turn chunk's
 * (search/ranking/vector.ts), which on the eval lost 0.009 recall@5 of the vector leg alone and nothing in hybrid.
 * Each field is searched and embedded up to {@link searchableChars} characters (issue 37): one pasted 50 MB log made
 * every search that matched it take seconds and a gigabyte; the whole text stays in `turns` for level 3.
 * The searched columns (heading, body, extra) have a space where Latin letters or digits meet Chinese, Japanese, Korean
 * or Thai letters (issue 38: `我本地安装了kimi-cli` is found by `kimi-cli`; script-boundary.ts); the embedded text
 * keeps what was written.
 */
import type { Database } from "bun:sqlite";
import type { AbstractPart, Session, ToolCall, Turn } from "../../parsers/index.ts";
import { spaceScriptBoundaries } from "./script-boundary.ts";

/** The text of one document, ready for the `documents` table. */
export interface DocumentText {
  /** Searched columns, with {@link spaceScriptBoundaries} applied. */
  heading: string;
  body: string;
  extra: string;
  /** The session's summary and abstract parts, a blank line apart ("" for a turn and a session without). */
  abstract: string;
  /** Text handed to the embedding model (chunked later to fit its context). */
  embedText: string;
}

/**
 * Split camelCase and PascalCase runs so their parts are searchable words:
 * `JSSoundRecorder` → `JS Sound Recorder`, `getUserById` → `get User By Id`. Returns "" when nothing splits.
 */
export function splitCamelCase(text: string): string {
  const parts: string[] = [];
  for (const word of text.match(/[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z][A-Za-z0-9]*/g) ?? []) {
    parts.push(word.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2"));
  }
  return parts.join(" ");
}

/**
 * Characters of one field of a document (a prompt, a reply, the tool lines and files of a turn) that keyword search
 * indexes and the embedding model sees (issue 37). 200,000 characters is about 50,000 tokens, a quarter of a
 * 200k-token context window: past it a field is a paste (a log, a HAR file, a dump), not words a person typed. A
 * search that matches a 50 MB prompt cut here costs what a normal one costs (scripts/bench/huge-text.ts), and the
 * eval's recall does not move (no field of its corpus is this long). Nothing is lost: the turn keeps its whole text for
 * `recall show` and read_turns, which say how much of it is not searchable ({@link unsearchableChars}).
 */
export const searchableChars = 200_000;

/**
 * The searchable part of `text`: its first {@link searchableChars} characters (one fewer when the cut would split a
 * surrogate pair), or `text` itself when it is no longer. Example: a 50,000,000-character prompt → its first 200,000.
 */
export function searchablePart(text: string): string {
  if (text.length <= searchableChars) return text;
  const code = text.charCodeAt(searchableChars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? searchableChars - 1 : searchableChars);
}

/** Characters of `text` past its {@link searchablePart}: 0 for a text of at most {@link searchableChars}. */
export const unsearchableChars = (text: string): number => text.length - searchablePart(text).length;

const toolLine = (call: Pick<ToolCall, "name" | "input">): string =>
  call.input ? `${call.name} ${call.input}` : call.name;

/** Build the document of one turn: each field cut to its {@link searchablePart}. */
export function buildTurnDocument(turn: Pick<Turn, "prompt" | "response" | "toolCalls" | "files">): DocumentText {
  const toolNames = [...new Set(turn.toolCalls.map((call) => call.name))];
  const extra = searchablePart(
    [...turn.toolCalls.map(toolLine), ...turn.files, splitCamelCase(turn.files.join(" "))].filter(Boolean).join("\n"),
  );
  const prompt = searchablePart(turn.prompt);
  const response = searchablePart(turn.response);
  const embedParts = [prompt, response];
  if (toolNames.length > 0) embedParts.push(`Tools: ${toolNames.join(", ")}`);
  if (turn.files.length > 0) embedParts.push(`Files: ${turn.files.join(", ")}`);
  return {
    heading: spaceScriptBoundaries(prompt),
    body: spaceScriptBoundaries(response),
    extra: spaceScriptBoundaries(extra),
    abstract: "",
    embedText: embedParts.filter(Boolean).join("\n\n"),
  };
}

/**
 * The abstract column of a session document: its summary (from `recall summarize`, null when none), then its abstract
 * parts in order, a blank line apart, cut to its {@link searchablePart}. Example: summary "Fixed CI." and one
 * compaction "1. Primary request…" → "Fixed CI.\n\n1. Primary request…".
 */
export function abstractText(summary: string | null, abstract: readonly AbstractPart[] | undefined): string {
  return searchablePart([summary ?? "", ...(abstract ?? []).map((part) => part.text)].filter(Boolean).join("\n\n"));
}

/**
 * Build the session document from its title, all prompts in turn order, each prompt cut to its
 * {@link searchablePart} (so is the title, and the project and files line), and its summary and abstract
 * ({@link abstractText}). The embedded text is the title, then the summary and abstract.
 * @param prompts every turn's prompt, turn 1 first
 * @param files every file touched in the session, unique
 * @param summary the summary `recall summarize` made of it, or null
 */
export function buildSessionDocument(
  session: Pick<Session, "title" | "projectName" | "abstract">,
  prompts: readonly string[],
  files: readonly string[],
  summary: string | null = null,
): DocumentText {
  const title = searchablePart(session.title ?? "");
  const body = prompts.map(searchablePart).join("\n\n");
  const names = [session.projectName, ...files].join(" ");
  const extra = searchablePart([session.projectName, ...files, splitCamelCase(names)].filter(Boolean).join("\n"));
  const abstract = abstractText(summary, session.abstract);
  return {
    heading: spaceScriptBoundaries(title),
    body: spaceScriptBoundaries(body),
    extra: spaceScriptBoundaries(extra),
    abstract: spaceScriptBoundaries(abstract),
    embedText: [title, abstract].filter(Boolean).join("\n\n"),
  };
}

/**
 * Hash of a document's searched columns and of its embedded text (Bun.hash wyhash, hex). An empty abstract column
 * leaves the hash as it was before the column existed (schema v13), so documents without one keep their rows.
 */
export function hashDocument(text: DocumentText): { textHash: string; embedHash: string } {
  const abstract = text.abstract ? `\u0000${text.abstract}` : "";
  return {
    textHash: Bun.hash(`${text.heading}\u0000${text.body}\u0000${text.extra}${abstract}`).toString(16),
    embedHash: Bun.hash(text.embedText).toString(16),
  };
}

/**
 * Rebuild the text of stored documents from the rows they derive from (turns, sessions): the FTS
 * table is contentless, so this is the one place document text comes from after indexing. Prompts and replies are
 * read only up to {@link searchableChars} characters (SQLite's substr counts code points, at least as many).
 * @returns a map from document id to its text; ids that do not exist are absent
 */
export function loadDocumentTexts(db: Database, documentIds: readonly number[]): Map<number, DocumentText> {
  const texts = new Map<number, DocumentText>();
  for (let start = 0; start < documentIds.length; start += 500) {
    const ids = documentIds.slice(start, start + 500);
    const marks = ids.map(() => "?").join(",");
    const turnRows = db
      .query<{ id: number; prompt: string; response: string; tools: string; files: string }, number[]>(
        `SELECT d.id, substr(t.prompt, 1, ${searchableChars}) AS prompt, substr(t.response, 1, ${searchableChars}) AS response, t.tools, t.files FROM documents d JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number
         WHERE d.level = 'turn' AND d.id IN (${marks})`,
      )
      .all(...ids);
    for (const row of turnRows) {
      texts.set(
        row.id,
        buildTurnDocument({
          prompt: row.prompt,
          response: row.response,
          toolCalls: JSON.parse(row.tools) as ToolCall[],
          files: JSON.parse(row.files) as string[],
        }),
      );
    }
    // every id a turn's document (a search's turn results, and most of its session results): the session documents'
    // two statements are not even prepared (a cold search pays ~0.1 ms a statement)
    if (turnRows.length === ids.length) continue;
    const sessionRows = db
      .query<
        {
          id: number;
          session_rowid: number;
          title: string | null;
          project_name: string;
          files: string;
          abstract: string | null;
          summary: string | null;
        },
        number[]
      >(
        `SELECT d.id, d.session_rowid, s.title, s.project_name, s.files, s.abstract, m.text AS summary FROM documents d
         JOIN sessions s ON s.id = d.session_rowid LEFT JOIN summaries m ON m.session_rowid = s.id
         WHERE d.level = 'session' AND d.id IN (${marks})`,
      )
      .all(...ids);
    const prompts = db.query<{ prompt: string }, [number]>(
      `SELECT substr(prompt, 1, ${searchableChars}) AS prompt FROM turns WHERE session_rowid = ? AND number > 0 ORDER BY number`,
    );
    for (const row of sessionRows) {
      const sessionPrompts = prompts.all(row.session_rowid).map((turn) => turn.prompt);
      texts.set(
        row.id,
        buildSessionDocument(
          { title: row.title, projectName: row.project_name, abstract: storedAbstract(row.abstract) },
          sessionPrompts,
          JSON.parse(row.files) as string[],
          row.summary,
        ),
      );
    }
  }
  return texts;
}

/** The abstract of a `sessions.abstract` value (JSON of `AbstractPart[]`, or NULL): empty for NULL. */
export function storedAbstract(value: string | null): AbstractPart[] {
  return value === null ? [] : (JSON.parse(value) as AbstractPart[]);
}
