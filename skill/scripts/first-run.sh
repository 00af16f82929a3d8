#!/bin/sh
# First use of the recall skill: show the health report (sources, index, model or endpoint, Claude Code's
# cleanup period), then build the index. The agent walks the user through references/FIRST_RUN.md; when the
# user is done, this script is run again with --done to record it.
set -u
skill_dir="__SKILL_DIR__"
if [ "${1:-}" = "--done" ]; then
  date -u +%Y-%m-%dT%H:%M:%SZ > "$skill_dir/.setup-done"
  echo "recall skill: setup recorded in $skill_dir/.setup-done"
  exit 0
fi
echo "== recall doctor"
__RECALL_COMMAND__ doctor
echo
echo "== indexing your history (incremental; the first run may take a minute)"
__RECALL_COMMAND__ index
echo
echo "== next: choose local or remote embeddings with the user (references/FIRST_RUN.md),"
echo "   then run: sh $skill_dir/scripts/first-run.sh --done"
