/**
 * The `debug` package as the binary's cmd-ts sees it (./plugin.ts): every logger is off. cmd-ts reads `enabled` before
 * building a message and calls the logger only when it is on; those two are all it uses.
 */

/** A logger that is off. */
export interface DebugLogger {
  (...args: unknown[]): void;
  enabled: false;
}

/** `createDebug(namespace)`: a logger that is always off, whatever `DEBUG` says. */
export default function createDebug(_namespace: string): DebugLogger {
  return Object.assign((..._args: unknown[]) => {}, { enabled: false as const });
}
