/**
 * Commit messages in shell commands an agent ran (issue 43: a `git commit -m "…"` says in the author's words what a
 * session did). Reads the compact tool input the index stores (`turns.tools`: newlines folded to spaces, cut at about
 * 300 characters with "…"), so a message may be cut and its subject line is not marked: {@link commitQueryOf} takes the
 * part before the first bullet or sentence end, at most {@link maxQueryWords} words.
 * Forms read (git-commit(1)): `-m <msg>`, `-am <msg>`, `--message <msg>`, `--message=<msg>`, the message double- or
 * single-quoted or one word, and Claude Code's `-m "$(cat <<'EOF' … EOF )"` heredoc.
 */

/** Where a commit message sits in a command, and its text (unquoted, spaces collapsed, without a trailing "…"). */
export interface CommitMessageSpan {
  /** Character offsets of the message's raw value in the command, quotes and heredoc included ([start, end)). */
  start: number;
  end: number;
  text: string;
}

/** Words a query taken from a commit message keeps at most (a subject line is about 50–72 characters). */
export const maxQueryWords = 12;

const commitCommand = /\bgit\b[^|;&\n]*?\bcommit\b/;
const messageOption = /(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:=|\s+)/g;
const heredocStart = /^"?\$\(cat\s+<<-?\s*['"]?(\w+)['"]?\s*/;

/** Read a quoted value starting at `at` (the opening quote): its text and end; unterminated → to the end (a cut input). */
function readQuoted(command: string, at: number): { text: string; end: number } {
  const quote = command[at]!;
  let text = "";
  for (let index = at + 1; index < command.length; index++) {
    const character = command[index]!;
    if (character === quote) return { text, end: index + 1 };
    if (character === "\\" && quote === '"' && index + 1 < command.length) {
      text += command[++index];
      continue;
    }
    text += character;
  }
  return { text, end: command.length };
}

/**
 * The first commit message of a `git … commit` in `command`, or undefined when it runs none or gives no message
 * (`--amend --no-edit`, an editor, `-F file`).
 */
export function commitMessageOf(command: string): CommitMessageSpan | undefined {
  const commit = commitCommand.exec(command);
  if (!commit) return undefined;
  messageOption.lastIndex = commit.index + commit[0].length;
  const option = messageOption.exec(command);
  if (!option) return undefined;
  const start = option.index + option[0].length;
  const rest = command.slice(start);
  const heredoc = heredocStart.exec(rest);
  let raw: { text: string; end: number };
  if (heredoc) {
    const marker = new RegExp(`\\b${heredoc[1]}\\b`);
    const body = rest.slice(heredoc[0].length);
    const close = marker.exec(body);
    const bodyEnd = close ? close.index : body.length;
    const after = rest.slice(heredoc[0].length + bodyEnd).match(/^\w+\s*\)?"?/)?.[0].length ?? 0;
    raw = { text: body.slice(0, bodyEnd), end: start + heredoc[0].length + bodyEnd + after };
  } else if (rest.startsWith('"') || rest.startsWith("'")) {
    const quoted = readQuoted(command, start);
    raw = quoted;
  } else {
    const word = rest.match(/^\S+/)?.[0] ?? "";
    raw = { text: word, end: start + word.length };
  }
  const text = raw.text.replace(/…$/, "").replace(/\s+/g, " ").trim();
  return text === "" ? undefined : { start, end: raw.end, text };
}

/** Messages that say nothing about the work: merges, reverts of nothing, fix-ups. */
const generic = /^(merge (branch|pull request|remote)|revert "|fixup!|squash!|wip\b)/i;

/**
 * The query a commit message makes: its subject (before the first " - ", " * ", " • ", "## " or sentence end), without
 * a Conventional Commits type (`feat(api): `), at most {@link maxQueryWords} words; undefined for a message of fewer
 * than 3 words or a generic one (a merge, a fix-up).
 */
export function commitQueryOf(message: string): string | undefined {
  if (generic.test(message)) return undefined;
  const subject = message
    .split(/ [-*•] | #{2,} |(?<=[a-z0-9)]{3})\. /i)[0]!
    .replace(/^[a-z]+(\([^)]*\))?!?:\s*/i, "")
    .trim();
  const words = subject.split(/\s+/).filter(Boolean).slice(0, maxQueryWords);
  if (words.filter((word) => /\p{L}{2}/u.test(word)).length < 3) return undefined;
  return words.join(" ").replace(/[.:,;]$/, "");
}
