/**
 * The web view's static files, bundled into the binary as text (import attribute `type: "text"`): the page script,
 * the style sheet, highlight.js's GitHub themes (light and dark) and ECharts. Nothing is fetched from elsewhere.
 * TypeScript does not see the script files (they are for the browser, outside this program), hence the ignores.
 */
// @ts-expect-error a browser script imported as text
import appScript from "./assets/app.js" with { type: "text" };
// @ts-expect-error a browser script imported as text
import echartsScript from "echarts/dist/echarts.min.js" with { type: "text" };
import appStyle from "./assets/app.css" with { type: "text" };
import highlightLight from "highlight.js/styles/github.css" with { type: "text" };
import highlightDark from "highlight.js/styles/github-dark.css" with { type: "text" };

/** One served file: its body and content type. */
export interface Asset {
  body: string;
  contentType: string;
}

/**
 * The files under `/assets/`, by name. The dark code theme applies under `prefers-color-scheme: dark`.
 * ECharts 6 (Apache-2.0) draws the activity calendar; highlight.js's themes are BSD-3-Clause.
 */
export const assets: ReadonlyMap<string, Asset> = new Map([
  ["app.js", { body: appScript as string, contentType: "text/javascript; charset=utf-8" }],
  ["echarts.min.js", { body: echartsScript as string, contentType: "text/javascript; charset=utf-8" }],
  [
    "app.css",
    {
      body: `${highlightLight}\n@media (prefers-color-scheme: dark) {\n${highlightDark}\n}\n${appStyle}`,
      contentType: "text/css; charset=utf-8",
    },
  ],
]);
