#!/bin/sh
# Runs the recall that installed this skill (`recall skill install` wrote the command below).
exec __RECALL_COMMAND__ "$@"
