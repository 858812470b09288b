#!/usr/bin/env bash
# Run CI (.ci/run on a fresh clone of HEAD) N times in a row while CPU hogs keep cores busy.
# Usage: [STEPLIGHT_PORT=4317] scripts/ci-loop.sh [N] [HOGS]   (default: 10 runs, 1 hog; the hog plus CI's own
# load fills 2 cores). Two loops at once on different ports load each other.
set -uo pipefail
n=${1:-10}; hogs_n=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
rev=$(git -C "$root" rev-parse HEAD)
hogs=()
for _ in $(seq 1 "$hogs_n"); do (while :; do :; done) & hogs+=($!); done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
pass=0
for i in $(seq "$n"); do
  d=$(mktemp -d)
  git clone -q "$root" "$d" && git -C "$d" checkout -q "$rev"
  start=$(date +%s)
  log="/tmp/steplight-ci-${STEPLIGHT_PORT:-4317}-$i.log"
  if (cd "$d" && STEPLIGHT_PORT=${STEPLIGHT_PORT:-4317} bash .ci/run) > "$log" 2>&1; then
    pass=$((pass + 1)); echo "run $i: passed in $(( $(date +%s) - start )) s"
  else
    echo "run $i: FAILED in $(( $(date +%s) - start )) s — $log"
  fi
  rm -rf "$d"
done
echo "ci-loop: $pass of $n passed at $rev with $hogs_n CPU hog(s) on $(nproc) cores"
[ "$pass" -eq "$n" ]
