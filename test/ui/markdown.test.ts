/**
 * The web view's Markdown and code fragments (issue 37): a code span, a fenced block, a link or an image from a session
 * never becomes live markup, control characters are shown as `\xNN`, and what the renderer builds itself (highlighted
 * code, tables, task lists, safe links) survives the allow-list.
 */
import { describe, expect, test } from "bun:test";
import { codeHtml, markdownHtml } from "../../src/ui/markdown.ts";
import { sanitizedHtml } from "../../src/ui/sanitize.ts";

describe("markdownHtml: session text stays text", () => {
  test("markup inside a code span is escaped (marked 18 hands it over raw)", () => {
    const out = markdownHtml(
      'see `<meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/">` and `<img src=x onerror=alert(1)>`',
    ).markup;
    expect(out).not.toContain("<meta");
    expect(out).not.toContain("<img");
    expect(out).toContain("<code>&lt;meta http-equiv=");
    expect(out).toContain("<code>&lt;img src=x onerror=alert(1)&gt;</code>");
  });

  test("links keep only http(s), mailto and anchors", () => {
    const links = [
      "[a](javascript:alert(1))",
      "[a](JaVaScRiPt:alert(1))",
      "[a](javascript&#58;alert(1))",
      "[a](<javascript:alert(1)>)",
      "[a](//evil.example/)",
      "[a](vbscript:msgbox)",
      "[a][r]\n\n[r]: javascript:alert(1)",
      "<javascript:alert(1)>",
      "![a](data:text/html;base64,PHNjcmlwdD4=)",
      "![a](javascript:alert(1))",
    ];
    for (const link of links) expect(markdownHtml(link).markup).not.toContain("<a");
    expect(markdownHtml("[a](https://example.com/x)").markup).toContain('href="https://example.com/x"');
    expect(markdownHtml("[a](#turn-2)").markup).toContain('href="#turn-2"');
    expect(markdownHtml("<mailto:me@example.com>").markup).toContain('href="mailto:me@example.com"');
  });

  test("a file path or relative link is its text, not a link into the web view (issue 38, item 11)", () => {
    // Agents cite code as `[x.go:307](/Users/…#L307)`: a file on the user's disk, which as a link resolved against the
    // web view and opened its 404 page.
    for (const link of [
      "[x.go:307](/Users/me/src/x.go#L307)",
      "[x.go](x.go)",
      "[up](../README.md)",
      "[here](./src/app.ts#L3)",
      "[home](~/notes.md)",
      "[f](file:///etc/hosts)",
      "![shot](/Users/me/shot.png)",
    ]) {
      const out = markdownHtml(link).markup;
      expect(out).not.toContain("<a");
      expect(out).not.toContain("href");
    }
    expect(markdownHtml("[x.go:307](/Users/me/src/x.go#L307)").markup).toBe("<p>x.go:307</p>\n");
  });

  test("terminal control characters, raw or as entities, are shown as \\xNN", () => {
    const out = markdownHtml("red \u001b[31m bell \u0007 csi \u009b and &#x1b;]0;title&#7; `\u001b[2J`").markup;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
    expect(out).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/);
    expect(out).toContain("\\x1b[31m");
    expect(out).toContain("\\x9b");
    expect(out).toContain("<code>\\x1b[2J</code>");
    const code = codeHtml('echo "\u001b]0;pwned\u0007"', "bash").markup;
    expect(code).toContain("\\x1b]0;pwned\\x07");
  });

  test("what the renderer builds survives: highlighted code, tables, task lists", () => {
    const code = markdownHtml("```ts\nclass A extends B {}\n```").markup;
    expect(code).toContain('<code class="hljs language-ts">');
    expect(code).toContain('<span class="hljs-title class_">A</span>');
    expect(markdownHtml("| a | b |\n|:-|-:|\n| 1 | 2 |").markup).toContain('<th align="left">a</th>');
    expect(markdownHtml("- [x] done").markup).toMatch(/<input checked[^>]* type="checkbox"/);
  });
});

describe("sanitizedHtml: the allow-list", () => {
  test("tags, attributes and URLs outside it do not survive", () => {
    const out = sanitizedHtml(
      '<base href="http://evil.example/"><form action="http://evil.example/"><input type="text"></form>' +
        '<meta http-equiv="refresh" content="0"><link rel="stylesheet" href="http://evil.example/x.css">' +
        '<style>body{background:url(http://evil.example/)}</style><iframe srcdoc="&lt;script&gt;"></iframe>' +
        '<svg onload="alert(1)"></svg><span class="hljs-string evil" style="background:url(x)" onclick="x">s</span>' +
        '<a href="javascript:alert(1)" onmouseover="x">a</a><a href="data:text/html,x">d</a>',
    ).markup;
    for (const tag of ["base", "form", "meta", "link", "style", "iframe", "svg", 'input type="text"'])
      expect(out).not.toContain(`<${tag}`);
    expect(out).not.toMatch(/\son\w+=/);
    expect(out).not.toContain("style=");
    expect(out).toContain('<span class="hljs-string">s</span>');
    expect(out).not.toContain("href");
  });
});
