#!/usr/bin/env bash
# Two squeue builds against one local cluster holding 100,000 pending jobs (ten held
# arrays of 10,000 tasks), alternating A, B, A, B, ... within each round: the median of
# REPS runs of each command, per build. A is OTHER_BIN/squeue (e.g. a worktree of an
# earlier commit built with `ninja -C build squeue`), B this tree's build/bin/squeue; the
# cluster (controller, agents) is this tree's.
# usage: bench/squeue_ab.sh OTHER_BIN [REPS] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
other=${1:?usage: bench/squeue_ab.sh OTHER_BIN [REPS] [ROUNDS]}
reps=${2:-5}; rounds=${3:-3}; dir=/tmp/sluice-squeue-ab
export PATH=$root/build/bin:$PATH
"$root/build/bin/sluice" down --state-dir "$dir" >/dev/null 2>&1 || true
rm -rf "$dir"
eval "$("$root/build/bin/sluice" up --state-dir "$dir" --config-line MaxArraySize=10001 | grep '^export')"
for a in $(seq 10); do sbatch --hold --array=0-9999 -o /dev/null --wrap true > /dev/null; done
echo "pending_jobs $(squeue -h -r -o %i | wc -l)"
. "$root/bench/timing.sh"
for args in "-r" "" "-r -o %i_%j_%T"; do
  for round in $(seq "$rounds"); do
    : > /tmp/squeue_ab.a; : > /tmp/squeue_ab.b
    for i in $(seq "$reps"); do
      ms "$other/squeue" $args >> /tmp/squeue_ab.a
      ms "$root/build/bin/squeue" $args >> /tmp/squeue_ab.b
    done
    a=$(med < /tmp/squeue_ab.a); b=$(med < /tmp/squeue_ab.b)
    printf 'squeue %s\tround %s\tA %s ms\tB %s ms\tB/A %s\n' "$args" "$round" "$a" "$b" \
      "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", b / a}')"
  done
done
"$root/build/bin/sluice" down --state-dir "$dir" > /dev/null
