/**
 * The Roo Code parser (docs/formats/cline.md): the VS Code extension `rooveterinaryinc.roo-cline`'s task folders
 * (`<globalStorage>/rooveterinaryinc.roo-cline/tasks/<task id>/`; folders in roo-code/source.ts), a fork of Cline's,
 * read by the Cline family's parser (./cline/). Roo Code's `history_item.json` adds the task's folder and its parent
 * task (sub-tasks started by `new_task`).
 */
import { createTaskFolderParser } from "./cline/parser.ts";
import type { Parser } from "./types.ts";

/** The Roo Code `Parser`. */
export const rooCodeParser: Parser = createTaskFolderParser("roo-code");
