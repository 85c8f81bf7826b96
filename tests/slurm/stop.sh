#!/usr/bin/env bash
# Stop the daemons tests/slurm/start.sh started (by PID, nothing else).
state=$1
[ -f "$state/pids" ] || exit 0
while read -r pid; do
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
done < "$state/pids"
exit 0
