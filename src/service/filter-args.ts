/**
 * The `--project` and `--source` options, worded alike in every command that filters sessions (search, sessions,
 * export, pick). Each command words `--since` and `--until` itself: "active since" and "started until" differ.
 */
import { option, optional, string } from "cmd-ts";
import { sourceIds } from "../parsers/types.ts";

/** `--project`/`-p` and `--source`, as cmd-ts arguments to spread into a command's arguments. */
export const projectSourceArgs = {
  project: option({
    long: "project",
    short: "p",
    type: optional(string),
    description: "Only projects whose path or name contains this text",
  }),
  source: option({
    long: "source",
    type: optional(string),
    description: `Only this source: ${sourceIds.join(", ")}`,
  }),
};
