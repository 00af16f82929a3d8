/**
 * `recall init zsh|bash|fish`: the shell code that binds a key to `recall pick` and puts the chosen session's resume
 * command on the command line, ready to run or edit (the way fzf's and atuin's key bindings work). The picker draws
 * on the terminal (its stderr, and /dev/tty as input), prints the command on stdout (`--print`), and exits non-zero
 * when nothing was chosen, in which case the command line is left as it was. What is on the command line when the key
 * is pressed becomes the picker's query.
 *
 * Key: Alt-R (`\er`) in all three shells; the snippets say how to choose another. The picker starts on a line of
 * its own and, once it is gone, the prompt is drawn below anything it printed (a warning about the chosen session),
 * as bash does by itself for `bind -x`: zsh and fish are told to (zle -I; a newline to the terminal).
 */

/** Shells `recall init` knows. */
export const supportedShells = ["zsh", "bash", "fish"] as const;
/** One of {@link supportedShells}. */
export type Shell = (typeof supportedShells)[number];

/**
 * The key-binding code for `shell`, calling recall as `recallCommand` (a shell word: a path is quoted by the caller).
 * Meant for `eval "$(recall init zsh)"` in ~/.zshrc, `eval "$(recall init bash)"` in ~/.bashrc, `recall init fish |
 * source` in ~/.config/fish/config.fish.
 */
export function shellInit(shell: Shell, recallCommand: string): string {
  switch (shell) {
    case "zsh":
      return `# recall: Alt-R opens \`recall pick\`; the chosen session's resume command lands on the command line.
# Another key: bindkey '^G' recall-pick-widget  (after this snippet)
recall-pick-widget() {
  local chosen
  # zle -I: the picker starts on a fresh line (not at the cursor's column), and zle redraws the prompt below whatever
  # it printed (a warning stays on its own line).
  zle -I
  chosen=$(${recallCommand} pick --print -- "$BUFFER" </dev/tty)
  local ret=$?
  if [[ $ret -eq 0 && -n $chosen ]]; then
    BUFFER=$chosen
    CURSOR=\${#BUFFER}
  fi
  return 0
}
zle -N recall-pick-widget
bindkey '\\er' recall-pick-widget
`;
    case "bash":
      return `# recall: Alt-R opens \`recall pick\`; the chosen session's resume command lands on the command line.
# Another key: bind -x '"\\C-g": __recall_pick'  (after this snippet)
__recall_pick() {
  local chosen
  chosen=$(${recallCommand} pick --print -- "$READLINE_LINE" </dev/tty) || return 0
  if [[ -n $chosen ]]; then
    READLINE_LINE=$chosen
    READLINE_POINT=\${#READLINE_LINE}
  fi
}
bind -m emacs-standard -x '"\\er": __recall_pick'
bind -m vi-insert -x '"\\er": __recall_pick'
`;
    case "fish":
      return `# recall: Alt-R opens \`recall pick\`; the chosen session's resume command lands on the command line.
# Another key: bind \\cg __recall_pick  (after this snippet)
function __recall_pick
  # A fresh line, so the picker does not start at the cursor's column; and one after it, as fish redraws the prompt a
  # row above where the picker left the cursor (a warning it printed stays on its own line).
  echo >/dev/tty
  set -l chosen (${recallCommand} pick --print -- (commandline) </dev/tty)
  set -l ret $status
  echo >/dev/tty
  if test $ret -eq 0 -a -n "$chosen"
    commandline --replace -- $chosen
  end
  commandline -f repaint
end
bind \\er __recall_pick
bind -M insert \\er __recall_pick
`;
    default:
      return shell satisfies never;
  }
}
