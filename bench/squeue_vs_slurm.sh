#!/usr/bin/env bash
# Alternating squeue timings against three clusters with 2,000 held jobs each: real
# Slurm 22.05 (../shared/slurm-anchor/setup.sh; its commands in /usr/bin), Sluice built
# from a baseline commit (its build/bin copied to /tmp/before-bin, `sluice up --state-dir
# /tmp/slb`) and Sluice from this tree (`build/bin/sluice up --state-dir /tmp/sla`).
# /tmp/last_{slurm,before,after} hold the id of the last job submitted to each.
# Prints the median of REPS runs of each command per round and system (ms).
# usage: bench/squeue_vs_slurm.sh [ROUNDS] [REPS]
rounds=${1:-3}; reps=${2:-15}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/timing.sh"
run_slurm()  { env -u SLUICE_CONF LAST=$(cat /tmp/last_slurm) PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c "$1"; }
run_before() { env LAST=$(cat /tmp/last_before) SLUICE_CONF=/tmp/slb/sluice.conf PATH=/tmp/before-bin:/usr/bin:/bin sh -c "$1"; }
run_after()  { env LAST=$(cat /tmp/last_after) SLUICE_CONF=/tmp/sla/sluice.conf PATH=$root/build/bin:/usr/bin:/bin sh -c "$1"; }
for cmd in 'squeue -h | wc -l' 'squeue' 'squeue -h -j $LAST' 'squeue -h -t R' ; do
  for r in $(seq "$rounds"); do
    for sys in slurm before after; do
      : > /tmp/sq_$sys
      for i in $(seq "$reps"); do ms run_$sys "$cmd" >> /tmp/sq_$sys; done
      printf '%s\tround %s\t%s\t%s ms\n' "$cmd" "$r" "$sys" "$(med < /tmp/sq_$sys)"
    done
  done
done
