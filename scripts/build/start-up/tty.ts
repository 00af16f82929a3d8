/**
 * `node:tty` as chalk's supports-color sees it in the binary (./plugin.ts): `isatty` answered by recall's own terminal
 * test, which loads `node:tty` only for a character device that is not /dev/null.
 */
import { isTerminal } from "../../../src/render/terminal.ts";

/** True when `fd` is a terminal (supports-color asks for 1 and 2 only; any other fd is not one here). */
export function isatty(fd: number): boolean {
  return (fd === 1 || fd === 2) && isTerminal(fd);
}

/** The module's default export, as supports-color imports it (`import tty from 'node:tty'`). */
export default { isatty };
