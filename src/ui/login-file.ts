/**
 * The file `recall ui` opens in the browser instead of its login URL (issue 37): a command line is readable by every
 * local user (`ps`, /proc/<pid>/cmdline), so the URL with the token never goes into `xdg-open`'s or `open`'s arguments.
 * The browser is given the path of a small HTML file, readable by the user alone (0600 in recall's 0700 data folder),
 * that redirects to the login URL, as Jupyter does (its `jpserver-<pid>-open.html`). The file is removed when the
 * server stops.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPrivateFile, makePrivateDirs } from "../index/index.ts";
import { escapeHtml } from "./html.ts";

/** The redirect page for `loginUrl` (an `http://127.0.0.1:<port>/?token=…` URL), with a link for a browser that waits. */
export function loginFileHtml(loginUrl: string): string {
  const url = escapeHtml(loginUrl);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=${url}">
<title>recall ui</title>
</head>
<body><p>Opening recall's web view: <a href="${url}">continue</a>.</p></body>
</html>
`;
}

/**
 * Write the redirect page for `loginUrl` as `<folder>/ui-open-<pid>.html`, the folder made 0700 when missing and the
 * file 0600 whatever the umask.
 * @returns the file's path
 * @throws Error from fs when the folder or the file cannot be written (EACCES, EEXIST from a previous run of this pid)
 */
export function writeLoginFile(folder: string, loginUrl: string): string {
  makePrivateDirs(folder);
  const path = join(folder, `ui-open-${process.pid}.html`);
  rmSync(path, { force: true }); // left by an earlier process with this pid that did not stop cleanly
  createPrivateFile(path);
  writeFileSync(path, loginFileHtml(loginUrl));
  return path;
}
