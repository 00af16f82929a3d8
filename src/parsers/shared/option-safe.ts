/**
 * A path argument as words after which no shell or program reads it as an option: `-x` → `--`, `-x`; any other path
 * → itself. Used where a resume command passes a recorded project folder (Cursor's `cursor <folder>`) and where
 * search/reading/hydrate.ts quotes a `cd <folder>`.
 */
export const optionSafe = (path: string): string[] => (path.startsWith("-") ? ["--", path] : [path]);
