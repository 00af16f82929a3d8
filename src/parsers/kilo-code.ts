/**
 * The Kilo Code parser (docs/formats/cline.md): the VS Code extension `kilocode.kilo-code`'s task folders
 * (`<globalStorage>/kilocode.kilo-code/tasks/<task id>/`; folders in kilo-code/source.ts), a fork of Roo Code's, read
 * by the Cline family's parser (./cline/).
 */
import { createTaskFolderParser } from "./cline/parser.ts";
import type { Parser } from "./types.ts";

/** The Kilo Code `Parser`. */
export const kiloCodeParser: Parser = createTaskFolderParser("kilo-code");
