/**
 * The file names Goose's scan and watch look for (../goose.ts): its database and the older JSONL session files.
 */

/** Goose's session database, in its `sessions/` folder. */
export const databaseName = "sessions.db";

/** True for an older session file (`<name>.jsonl`, goose/legacy.ts), written before the database. */
export const isLegacyFile = (name: string): boolean => name.endsWith(".jsonl");
