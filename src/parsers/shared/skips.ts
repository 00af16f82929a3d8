/**
 * Counting what a parse read but could not place in a session (issue 26, "say what was not kept"): a line that is
 * not JSON, a record of a kind the parser cannot attach to a turn, a message without the fields it needs. Every
 * parser counts into one {@link SkipReport} per session, grouped by reason, so `recall index --json`, `status` and
 * `doctor` can say what was lost, where and why (src/index/write/writer.ts stores the reasons per session).
 */
import type { ParserHooks, SkipReport } from "../types.ts";

/** A report with nothing skipped. */
export function emptySkips(): SkipReport {
  return { count: 0 };
}

/**
 * Count one record that could not be placed.
 * @param place where it is: `<path>:<line>` for a line, `<path>: message <id>` for a record
 * @param reason one lower-case phrase, the same for every record skipped for the same cause (`not JSON`)
 * Example: `noteSkip(report, "/x/s.jsonl:17", "not JSON")` → `{count: 1, first: "/x/s.jsonl:17: not JSON",
 *   reasons: {"not JSON": {count: 1, first: "/x/s.jsonl:17"}}}`.
 */
export function noteSkip(report: SkipReport, place: string, reason: string): void {
  report.count += 1;
  report.first ??= `${place}: ${reason}`;
  const reasons = (report.reasons ??= {});
  const known = reasons[reason];
  if (known) known.count += 1;
  else reasons[reason] = { count: 1, first: place };
}

/**
 * Add `from` into `into` (counts summed; the first places of `into` kept) and return `into`: a resumed parse adds
 * what it skipped in the appended bytes to what its resume state says the earlier bytes held.
 */
export function mergeSkips(into: SkipReport, from: SkipReport | undefined): SkipReport {
  if (!from || from.count === 0) return into;
  into.count += from.count;
  into.first ??= from.first;
  for (const [reason, entry] of Object.entries(from.reasons ?? {})) {
    const reasons = (into.reasons ??= {});
    const known = reasons[reason];
    if (known) known.count += entry.count;
    else reasons[reason] = { ...entry };
  }
  return into;
}

/**
 * Report a file that holds no session recall can build (ParserHooks.onRejected: the index records it with the
 * reason); without that hook, one warning line.
 * @param reason one lower-case phrase, e.g. `no sessionId`
 */
export function rejectFile(hooks: ParserHooks | undefined, path: string, reason: string): void {
  if (hooks?.onRejected) hooks.onRejected(path, reason);
  else hooks?.onWarning?.(`${path}: ${reason}; not indexed`);
}

/** A deep copy of a report (resume states keep one that later parses must not change). */
export function copySkips(report: SkipReport | undefined): SkipReport {
  return mergeSkips(emptySkips(), report);
}
