/**
 * Bench (issue 12, "embed meaning once"): the share of transcript tokens that recall embeds, on the real corpus
 * (../shared/corpus). Transcript tokens = every prompt, answer, tool input and full tool output of every session,
 * as `recall show` re-parses them (level 3). Embedded tokens = the text of the chunks the embedding phase sends: turn
 * documents (prompt, prose, tool names, files) and session documents (their title only since issue 12). For
 * comparison it also counts what the session documents embedded before (title + every prompt again). Tokens are
 * counted with a real BGE WordPiece tokenizer (a generated model with the bge-small vocabulary, scripts/gguf), the
 * same tokenizer for both sides. Prints a table and one JSON row per measure (`bun run bench embed-share` appends them
 * to scripts/bench/results/).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbedder } from "../../src/embed/index.ts";
import { chunkStatus, databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { listSessions, readSessions } from "../../src/search/index.ts";
import { allCorpusRoots, hasCorpus } from "../../test/helpers/corpus.ts";
import { getTestModelPath } from "../../test/helpers/models.ts";
import { commit, machine } from "./lib.ts";

if (!hasCorpus) {
  process.stderr.write("embed-share: ../shared/corpus is missing; skipped\n");
  process.exit(0);
}
const home = mkdtempSync(join(tmpdir(), "recall-embed-share-"));
try {
  const embedder = await openEmbedder({
    env: { RECALL_OFFLINE: "1" },
    home,
    modelFlag: getTestModelPath({ vocab: "bge", embd: 32, heads: 2, ff: 64, ctx: 512 }),
  });
  await runIndex({ recallHome: home, roots: allCorpusRoots(), openEmbedder: async () => embedder });
  const db = openIndex(databasePath(home), { readonly: true });
  const count = (text: string) => (text ? embedder.countTokens(text) : 0);
  let transcript = 0;
  for (const { read } of readSessions(db, listSessions(db, {}, 100_000), { redact: false })) {
    for (const turn of read.result.turns) {
      transcript += count(turn.prompt) + count(turn.response);
      for (const call of turn.toolCalls) transcript += count(call.input) + count(call.output ?? "");
    }
  }
  const embedded = { turn: 0, session: 0 };
  for (const row of db
    .query<{ text: string; level: "turn" | "session" }, [number]>(
      "SELECT c.text, d.level FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.status = ?",
    )
    .iterate(chunkStatus.embedded))
    embedded[row.level] += count(row.text);
  // What session documents embedded before issue 12: the title and every prompt of the session, again.
  let oldSession = 0;
  for (const row of db
    .query<{ title: string | null; prompts: string }, []>(
      "SELECT s.title, group_concat(t.prompt, char(10) || char(10)) AS prompts FROM sessions s JOIN turns t ON t.session_rowid = s.id GROUP BY s.id",
    )
    .iterate())
    oldSession += count([row.title ?? "", row.prompts].filter(Boolean).join("\n\n"));
  db.close();
  await embedder.dispose();
  const now = embedded.turn + embedded.session;
  const before = embedded.turn + oldSession;
  const rows = [
    { name: "transcript tokens (prompts, answers, tool inputs and outputs)", tokens: transcript, share: 1 },
    { name: "embedded now (turn chunks + session titles)", tokens: now, share: now / transcript },
    {
      name: "embedded before issue 12 (session documents repeated every prompt)",
      tokens: before,
      share: before / transcript,
    },
    {
      name: "prompts embedded twice before, share of the old embedded tokens",
      tokens: before - now,
      share: (before - now) / before,
    },
  ];
  console.log("| measure | tokens | share |\n|---|---|---|");
  for (const row of rows) console.log(`| ${row.name} | ${row.tokens} | ${(100 * row.share).toFixed(1)}% |`);
  for (const row of rows)
    console.log(
      JSON.stringify({
        name: `embed-share: ${row.name}`,
        n: row.tokens,
        p50_ms: null,
        p95_ms: null,
        share: Number(row.share.toFixed(4)),
        machine,
        commit,
      }),
    );
} finally {
  rmSync(home, { recursive: true, force: true });
}
