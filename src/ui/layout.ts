/**
 * The frame of every page of `recall ui`: head (title, styles, the one script, light and dark colour schemes),
 * the top bar (search box, links to Search, Activity and Usage) and the main area. No inline script or style anywhere:
 * the Content-Security-Policy (server.ts) allows only the files under /assets/.
 */
import { html, type SafeHtml } from "./html.ts";

/** Which top-level page is shown (its link is marked current). */
export type PageKind = "search" | "session" | "activity" | "usage";

/**
 * A whole HTML document. `base` is the path every URL of this server starts with (`/<secret>`, server.ts; "" for
 * none); the page's script reads it from `<body data-base>`.
 */
export function pageHtml(options: {
  title: string;
  kind: PageKind;
  base: string;
  query?: string;
  body: SafeHtml;
}): string {
  const base = options.base;
  const current = (kind: PageKind) => (options.kind === kind ? html` aria-current="page"` : "");
  return `<!doctype html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${options.title} · recall</title>
<link rel="stylesheet" href="${base}/assets/app.css">
<script src="${base}/assets/app.js" defer></script>
</head>
<body data-page="${options.kind}" data-base="${base}">
<header class="top">
  <a class="brand" href="${base}/">recall</a>
  <form class="search-box" action="${base}/" method="get" role="search">
    <input id="q" name="q" type="search" value="${options.query ?? ""}" placeholder="Search sessions (press /)" autocomplete="off" aria-label="Search">
  </form>
  <nav><a href="${base}/"${current("search")}>Search</a> <a href="${base}/activity"${current("activity")}>Activity</a> <a href="${base}/usage"${current("usage")}>Usage</a></nav>
</header>
<main>
${options.body}
</main>
</body>
</html>`}\n`;
}
