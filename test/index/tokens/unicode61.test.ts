import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { keywordTokens } from "../../../src/index/tokens/keyword-tokens.ts";
import { forEachUnicode61Token } from "../../../src/index/tokens/unicode61.ts";
import { fts5Tokens } from "../../helpers/fts5-tokens.ts";

const unicode61Tokens = (text: string): string[] => {
  const tokens: string[] = [];
  forEachUnicode61Token(text, (token) => tokens.push(token));
  return tokens;
};

/** Every code point from U+0080 that has a UTF-8 form, in texts of 2,048 probes each. */
function probeTexts(probe: (character: string) => string): string[] {
  const texts: string[] = [];
  let probes: string[] = [];
  for (let code = 0x80; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    probes.push(probe(String.fromCodePoint(code)));
    if (probes.length === 2048) {
      texts.push(probes.join(" "));
      probes = [];
    }
  }
  texts.push(probes.join(" "));
  return texts;
}

describe("unicode61 in TypeScript: FTS5's `unicode61 remove_diacritics 2`, token for token", () => {
  test("the tables from U+0080 up load at a text's first such character, at a token's start or inside one", () => {
    // a fresh process each: the tables are loaded once per process, by whichever text first needs them
    const module = join(import.meta.dir, "../../../src/index/tokens/unicode61.ts");
    for (const text of ["Éclair naïve 𝐀bc ﬁ", "naïve Éclair ﬁ 𝐀bc", "plain ascii then Ünïcödé"]) {
      const script = `import { forEachUnicode61Token } from ${JSON.stringify(module)};
        const tokens = []; forEachUnicode61Token(${JSON.stringify(text)}, (token) => tokens.push(token));
        console.log(JSON.stringify(tokens));`;
      const child = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
      expect(child.stderr.toString()).toBe("");
      expect(JSON.parse(child.stdout.toString())).toEqual(fts5Tokens([text], "unicode61 remove_diacritics 2")[0]!);
    }
  });

  test("every code point inside a token and at its start splits and folds as the linked SQLite's FTS5 does", () => {
    // "xcx" shows whether c continues a token and what it folds to, "cx" and "c" whether it starts one (a diacritic
    // that folds to nothing shows only alone); a table generated for another SQLite fails here (run
    // scripts/generate/unicode61-tables.ts again)
    const texts = probeTexts((c) => `x${c}x ${c}x ${c}`);
    const expected = fts5Tokens(texts, "unicode61 remove_diacritics 2");
    let differing = 0;
    for (const [i, text] of texts.entries()) {
      const tokens = unicode61Tokens(text);
      if (tokens.length !== expected[i]!.length || tokens.some((token, j) => token !== expected[i]![j])) {
        differing++;
        if (differing === 1) expect(tokens).toEqual(expected[i]!);
      }
    }
    expect(differing).toBe(0);
  }, 120_000);

  // Session text is hostile input: the tokens of attack strings must still be FTS5's, with the porter step on top.
  const attacks: Record<string, string> = {
    nul: "before\u0000after\u0000\u0000end",
    "lone surrogates": "a\ud800b \udc00c d\ud83d \ude00e f\udbff",
    "reversed pair": "x\udc00\ud800y",
    noncharacters: "a\ufffeb\uffffc\ufffdd",
    "combining marks first, inside, alone": "\u0301abc ab\u0301\u0302c \u0301 \u0301\u0301x e\u0301te\u0301",
    "astral letters that fold": "𐐀𐐁𐐂 Deseret 𐐨",
    emoji: "fix 🐳 docker👍🏽 family 👨‍👩‍👧 flags 🇫🇷",
    "format characters": "dock\u200ber \u200d\u200c zwj\u200dx bidi\u202eevil\u202c \ufeffbom \u00adsoft",
    "terminal escapes": "\u001b[31mred\u001b[0m \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007",
    html: "<script>alert('x')</script><img src=x onerror=alert(1)> &lt;b&gt;",
    sql: "'); DROP TABLE documents; -- \" OR 1=1 NEAR(a b) col:* ^start",
    "scripts and numbers": "١٢٣ ٤٥ ＡＢＣｄｅｆ ﬁle Straße İstanbul ΣΊΣΥΦΟΣ ς ǅemal Ⅻ ½ ²³",
    "unsegmented scripts": "日本語のテキストと中文混在 한국어문장 ภาษาไทยไม่มีช่องว่าง",
    "long token cut at 32,768 bytes": "a".repeat(40_000),
    "long token cut inside a character": `${"b".repeat(32_767)}жж`,
    "long multi-byte token": "ж".repeat(20_000),
    "porter cuts a character in half": "a₂ed x₂₂ing",
    "porter length bounds": `ing sing ${"x".repeat(60)}ing ${"x".repeat(61)}ing ${"é".repeat(31)}ing ${"é".repeat(30)}ings`,
    whitespace: " \t\n\r\u000b\u000c\u00a0\u1680\u2000\u2003\u2028\u2029\u202f\u205f\u3000 words ",
  };
  test.each(Object.entries(attacks))("%s: the same tokens as FTS5 with the porter step", (_name, text) => {
    expect(keywordTokens(text)).toEqual(fts5Tokens([text])[0]!);
  });

  test("an empty text and one of only separators have no tokens", () => {
    expect(keywordTokens("")).toEqual([]);
    expect(keywordTokens(" \u0000-- ¿?¡! \u0301")).toEqual([]);
  });
});
