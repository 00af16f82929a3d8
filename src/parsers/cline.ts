/**
 * The Cline parser (docs/formats/cline.md): the VS Code extension `saoudrizwan.claude-dev`'s task folders
 * (`<globalStorage>/saoudrizwan.claude-dev/tasks/<task id>/ui_messages.json`) and the Cline CLI's
 * (`~/.cline/data/tasks/<task id>/`); folders in cline/source.ts. The format and its reading are shared with Roo Code
 * and Kilo Code: ./cline/ (scan, load, tools, turns, parser). Cline 2026-05 and later write new tasks through its SDK
 * into another store, not read here.
 */
import { createTaskFolderParser } from "./cline/parser.ts";
import type { Parser } from "./types.ts";

/** The Cline `Parser`. */
export const clineParser: Parser = createTaskFolderParser("cline");
