/**
 * An HTML audit for the web view's tests (issue 37): parses a page or fragment with htmlparser2 (the parser
 * sanitize-html uses) and lists everything that could act on its own: an element outside the tags recall's pages and
 * renderer emit, an attribute named `on…` or `style`, a URL attribute with a scheme other than http, https or mailto,
 * an element the page frame has a fixed number of (meta, link, script, form, base) once more, a control character.
 */
import { Parser } from "htmlparser2";

/** Tags of the page frame (layout.ts), the page templates and the sanitizer's allow-list (src/ui/sanitize.ts). */
const allowedTags = new Set(
  (
    "html head meta link title script body header nav main form input label select option optgroup button " +
    "section article aside div span p br hr h1 h2 h3 h4 h5 h6 blockquote ul ol li pre code em strong del mark a " +
    "time details summary table thead tbody tr th td"
  ).split(" "),
);

/** Attributes that hold a URL a browser follows or loads. */
const urlAttributes = new Set(["href", "src", "action", "formaction", "data", "poster", "xlink:href", "background"]);

/** What one page's frame holds (layout.ts): 3 meta, 2 link, 2 script (app.js and the activity data), 1 form. */
const frameCounts: Record<string, number> = { meta: 3, link: 2, script: 2, form: 1, base: 0, title: 1 };

// biome-ignore lint/suspicious/noControlCharactersInRegex: the audit looks for them
const controlCharacters = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/**
 * The problems of `markup` (an empty list when there are none), one line each, e.g. `<meta http-equiv> element`
 * beyond the frame's count, `onerror attribute on <img>`, `href="javascript:…" on <a>`, `control character in text`.
 * @param pageAdds frame elements the page's own template adds (the usage page's filter form: `{ form: 1 }`)
 */
export function auditHtml(markup: string, pageAdds: Record<string, number> = {}): string[] {
  const problems: string[] = [];
  const counts: Record<string, number> = {};
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        counts[name] = (counts[name] ?? 0) + 1;
        if (!allowedTags.has(name)) problems.push(`<${name}> element`);
        for (const [attribute, value] of Object.entries(attributes)) {
          if (attribute.startsWith("on")) problems.push(`${attribute} attribute on <${name}>`);
          if (attribute === "style" || attribute === "srcdoc" || attribute === "http-equiv")
            problems.push(`${attribute} attribute on <${name}>`);
          if (controlCharacters.test(value)) problems.push(`control character in ${attribute} of <${name}>`);
          if (urlAttributes.has(attribute)) {
            const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
            const frameIcon = name === "link" && value === "data:,";
            if (scheme !== undefined && !["http", "https", "mailto"].includes(scheme) && !frameIcon)
              problems.push(`${attribute}="${value.slice(0, 40)}" on <${name}>`);
            if (/^\s*\/\//.test(value)) problems.push(`protocol-relative ${attribute} on <${name}>`);
          }
        }
      },
      ontext(text) {
        if (controlCharacters.test(text))
          problems.push(`control character in text: ${JSON.stringify(text.slice(0, 60))}`);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(markup);
  parser.end();
  const isPage = (counts.html ?? 0) > 0;
  if (isPage)
    for (const [tag, frame] of Object.entries(frameCounts)) {
      const most = frame + (pageAdds[tag] ?? 0);
      if ((counts[tag] ?? 0) > most) problems.push(`${counts[tag]} <${tag}> elements (the page has ${most})`);
    }
  if (!isPage)
    for (const tag of Object.keys(frameCounts)) if (counts[tag]) problems.push(`<${tag}> element in a fragment`);
  return problems;
}
