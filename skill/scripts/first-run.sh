#!/bin/sh
# First use of the recall skill, in steps an agent's shell tool can run (no terminal, a time limit per command).
# Nothing is downloaded before the user chose (references/FIRST_RUN.md):
#   first-run.sh                  the keyword index (no model, no download; keyword search works when it ends),
#                                 the health report, then the question to ask the user
#   first-run.sh --embed [MODEL]  after the user chose: MODEL (a preset from `recall model list`, or a .gguf path) is
#                                 saved as the local model, or, without it, the configured one is used (the default
#                                 preset, or the remote endpoint in EMBEDDINGS_URL); then the download and the
#                                 embedding run in the background and this returns at once
#   first-run.sh --status         how far the background embedding is (poll it; a few lines each time)
#   first-run.sh --done           record that setup is done (SKILL.md checks for .setup-done)
set -u
skill_dir="__SKILL_DIR__"
script="$skill_dir/scripts/first-run.sh"
log="$skill_dir/.embed.log"
pid_file="$skill_dir/.embed.pid"
exit_file="$skill_dir/.embed.exit"

recall() {
  __RECALL_COMMAND__ "$@"
}

running_pid() {
  [ -f "$pid_file" ] || return 1
  pid="$(cat "$pid_file" 2>/dev/null)"
  [ -n "$pid" ] && [ ! -f "$exit_file" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

case "${1:-}" in
  --done)
    date -u +%Y-%m-%dT%H:%M:%SZ > "$skill_dir/.setup-done"
    echo "recall skill: setup recorded in $skill_dir/.setup-done"
    exit 0
    ;;
  --embed-worker)
    # The background job started by --embed: one `recall index` (downloads the model if needed, then embeds).
    echo "$$" > "$pid_file"
    recall index > "$log" 2>&1
    echo "$?" > "$exit_file"
    exit 0
    ;;
  --embed)
    if pid="$(running_pid)"; then
      echo "recall skill: embedding is already running (pid $pid); check it with: sh $script --status"
      exit 0
    fi
    if [ -n "${2:-}" ]; then
      recall model use "$2" || exit $?
    fi
    rm -f "$exit_file" "$log"
    # A session of its own (setsid, where there is one) and no hang-up: the job outlives this shell command.
    if command -v setsid >/dev/null 2>&1; then
      setsid sh "$script" --embed-worker < /dev/null > /dev/null 2>&1 &
    else
      nohup sh "$script" --embed-worker < /dev/null > /dev/null 2>&1 &
    fi
    echo "$!" > "$pid_file"
    echo "recall skill: downloading the model if needed and embedding your history in the background (log: $log)."
    echo "Keyword search works meanwhile. Check progress with: sh $script --status"
    exit 0
    ;;
  --status)
    if pid="$(running_pid)"; then
      echo "embedding: running (pid $pid)"
      recall status 2>/dev/null | grep '^embeddings:' || true
      tail -n 3 "$log" 2>/dev/null
      exit 0
    fi
    if [ -f "$exit_file" ]; then
      code="$(cat "$exit_file")"
      if [ "$code" = "0" ]; then echo "embedding: finished"; else echo "embedding: failed (exit $code); see TROUBLESHOOTING.md"; fi
      tail -n 5 "$log" 2>/dev/null
      recall status 2>/dev/null | grep '^embeddings:' || true
      [ "$code" = "0" ] && echo "next: sh $script --done"
      exit 0
    fi
    echo "embedding: not started (run: sh $script --embed [MODEL])"
    exit 0
    ;;
  "")
    ;;
  *)
    echo "usage: sh $script [--embed [MODEL] | --status | --done]" >&2
    exit 2
    ;;
esac

echo "== keyword index (no model, nothing downloaded; keyword search works when this ends)"
recall index --keyword-only 2>&1
echo
echo "== recall doctor"
recall doctor 2>&1
echo
echo "== ask the user how recall should search by meaning (nothing is downloaded until they choose)"
recall model list
cat <<EOF

  1. A local model (private; offline after one download): the default above, or another preset from the list
     (a smaller one embeds faster on a CPU). Then run:  sh $script --embed [PRESET]
  2. A remote endpoint (any OpenAI-compatible /v1/embeddings: llama-server, Ollama, vLLM, OpenAI). Session text is
     sent to it. Write EMBEDDINGS_URL (and EMBEDDINGS_API_KEY if needed) in the settings file (references/FIRST_RUN.md),
     then run:  sh $script --embed
  3. Keyword search only for now (embeddings can be added any time):  sh $script --done
EOF
