#!/usr/bin/env bash
# Run a test command N times while a CPU hog keeps every core busy: a test that passes only on a
# quiet machine fails here. Usage: scripts/stress.sh [N] [command...]   (default: 20 × npm run test:unit)
set -uo pipefail
n=${1:-20}; shift || true
cmd=("${@:-npm}"); [ $# -eq 0 ] && cmd=(npm run -s test:unit)
hogs=()
for _ in $(seq "$(nproc)"); do (while :; do :; done) & hogs+=($!); done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
pass=0; fail=0
for i in $(seq "$n"); do
  if "${cmd[@]}" > "/tmp/steplight-stress-$i.log" 2>&1; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "run $i failed: /tmp/steplight-stress-$i.log"; fi
done
echo "stress: $pass passed, $fail failed (of $n, with $(nproc) CPU hogs)"
[ "$fail" -eq 0 ]
