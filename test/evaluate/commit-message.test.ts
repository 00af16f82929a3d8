/**
 * Commit messages read from the compact tool inputs the index stores (issue 43), in the forms the real corpus holds
 * (../shared/corpus: Claude Code's heredoc, quoted messages with escaped quotes, Codex's plain `-m`, inputs cut with
 * "…") and the other forms git-commit(1) documents.
 */
import { describe, expect, test } from "bun:test";
import { commitMessageOf, commitQueryOf } from "../../src/evaluate/commit-message.ts";

const message = (command: string) => commitMessageOf(command)?.text;

describe("commit messages in commands", () => {
  test("a quoted -m, with escaped quotes, after other commands", () => {
    expect(
      message(`git add -A && git commit -m "Add base tag to fix asset paths Use <base href=\\"/tokenizer/\\">"`),
    ).toBe('Add base tag to fix asset paths Use <base href="/tokenizer/">');
    expect(message(`cd /app && git commit -m 'fix: keep the session' && git push`)).toBe("fix: keep the session");
  });

  test("Claude Code's heredoc, folded onto one line, and an input cut with …", () => {
    expect(
      message(
        `git commit -m "$(cat <<'EOF' feat: add support for tar archives (.tar, .tar.gz) Add recursive processing of…`,
      ),
    ).toBe("feat: add support for tar archives (.tar, .tar.gz) Add recursive processing of");
    expect(message(`git commit -m "$(cat <<'EOF' Fix the parser EOF )"`)).toBe("Fix the parser");
  });

  test("-am, --message=, --message, -C <dir>, and a one-word message", () => {
    expect(message(`git commit -am "Rename pelican ledger columns"`)).toBe("Rename pelican ledger columns");
    expect(message(`git commit --message="docs: explain the cache"`)).toBe("docs: explain the cache");
    expect(message(`git commit --message 'explain the cache'`)).toBe("explain the cache");
    expect(message(`git -C work/tree commit -m "round 2: add comparison"`)).toBe("round 2: add comparison");
    expect(message("git commit -m wip")).toBe("wip");
  });

  test("no message: no commit, an amend without one, a pre-commit hook file, an editor", () => {
    expect(commitMessageOf("git add . && git commit --amend --no-edit")).toBeUndefined();
    expect(commitMessageOf("sed -n '1,120p' scripts/git-hooks/pre-commit")).toBeUndefined();
    expect(commitMessageOf("git commit")).toBeUndefined();
    expect(commitMessageOf("git log -m --oneline")).toBeUndefined();
  });

  test("the span is the raw value, so cutting it leaves the rest of the command", () => {
    const command = `git add src && git commit -m "Add quokka exporter" && git push`;
    const span = commitMessageOf(command)!;
    expect(command.slice(0, span.start) + command.slice(span.end)).toBe("git add src && git commit -m  && git push");
  });
});

describe("the query a message makes", () => {
  test("its subject, without a Conventional Commits type, at most 12 words", () => {
    expect(commitQueryOf("fix: resolve CI dependency audit issues - Remove unused auth0 dependency")).toBe(
      "resolve CI dependency audit issues",
    );
    expect(commitQueryOf("feat(metrics)!: Add quokka telemetry exporter. It exports every minute")).toBe(
      "Add quokka telemetry exporter",
    );
    expect(
      commitQueryOf(
        "Initial implementation: AI-backed autonomous scenario testing agent Implemented complete MVP for scenario testing using",
      ),
    ).toBe("Initial implementation: AI-backed autonomous scenario testing agent Implemented complete MVP for scenario");
  });

  test("none for a message of fewer than 3 words, a merge or a fix-up", () => {
    expect(commitQueryOf("wip")).toBeUndefined();
    expect(commitQueryOf("chore: bump deps")).toBeUndefined();
    expect(commitQueryOf("Merge branch 'main' into feature")).toBeUndefined();
    expect(commitQueryOf("fixup! Add quokka telemetry exporter")).toBeUndefined();
    expect(commitQueryOf("chore: update codex logs")).toBe("update codex logs");
  });
});
