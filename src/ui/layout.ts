/**
 * The frame of every page of `recall ui`: head (title, styles, the one script, light and dark colour schemes),
 * the top bar (search box, links to Search and Activity) and the main area. No inline script or style anywhere:
 * the Content-Security-Policy (server.ts) allows only the files under /assets/.
 */
import { html, type SafeHtml } from "./html.ts";

/** Which top-level page is shown (its link is marked current). */
export type PageKind = "search" | "session" | "activity";

/** A whole HTML document. */
export function pageHtml(options: { title: string; kind: PageKind; query?: string; body: SafeHtml }): string {
  const current = (kind: PageKind) => (options.kind === kind ? html` aria-current="page"` : "");
  return `<!doctype html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${options.title} · recall</title>
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
</head>
<body data-page="${options.kind}">
<header class="top">
  <a class="brand" href="/">recall</a>
  <form class="search-box" action="/" method="get" role="search">
    <input id="q" name="q" type="search" value="${options.query ?? ""}" placeholder="Search sessions (press /)" autocomplete="off" aria-label="Search">
  </form>
  <nav><a href="/"${current("search")}>Search</a> <a href="/activity"${current("activity")}>Activity</a></nav>
</header>
<main>
${options.body}
</main>
</body>
</html>`}\n`;
}
