#!/usr/bin/env bash
# scontrol reconfigure on a loaded cluster (issue 19): NODES emulated nodes served by
# AGENTS sluiced processes, RUN running jobs and PEND held jobs. Two files alternate, REPS
# times each way: the old one as `sluice up` wrote it, and a new one that adds a Feature to
# every NodeName line, adds a partition over the first node group, and changes
# PriorityWeightAge and KillWait. Prints both files' differences, each reconfigure's
# answer once, the median wall time of `scontrol reconfigure` each way (ms), and the
# running jobs before and after (none may be lost).
# usage: bench/reconfigure.sh [NODES] [AGENTS] [RUN] [PEND] [REPS] [STATE_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nodes=${1:-1024}; agents=${2:-8}; run=${3:-500}; pend=${4:-10000}; reps=${5:-5}
dir=${6:-/tmp/sluice-reconf}
export PATH=$root/build/bin:$PATH
sluice down --state-dir "$dir" >/dev/null 2>&1 || true
rm -rf "$dir"
eval "$(sluice up --state-dir "$dir" --nodes "$nodes" --agents "$agents" \
          --config-line MaxArraySize=100001 | grep '^export')"
conf=$SLUICE_CONF
until [ "$(sinfo -h -t idle -o %D | awk '{s+=$1} END {print s+0}')" -ge "$nodes" ]; do sleep 1; done
cd /tmp
sbatch --array=0-$((run - 1)) -o /dev/null --wrap "sleep 3600" > /dev/null
sbatch --hold --array=0-$((pend - 1)) -o /dev/null --wrap true > /dev/null
until [ "$(squeue -h -r -t R -o %i | wc -l)" -ge "$run" ]; do sleep 1; done
cp "$conf" "$dir/old.conf"
group=$(awk -F'[= ]' '/^NodeName=/ {print $2; exit}' "$conf")
sed -e '/^NodeName=/ s/$/ Feature=ib/' "$conf" > "$dir/new.conf"
printf 'PartitionName=debug Nodes=%s MaxTime=30 State=UP\nPriorityWeightAge=1000\nKillWait=5\n' \
  "$group" >> "$dir/new.conf"
echo "== new.conf against old.conf"
diff "$dir/old.conf" "$dir/new.conf" || true
running0=$(squeue -h -r -t R -o %i | wc -l)
. "$root/bench/timing.sh"
: > "$dir/to_new"; : > "$dir/to_old"
for i in $(seq "$reps"); do
  for way in new old; do
    cp "$dir/$way.conf" "$conf.tmp" && mv "$conf.tmp" "$conf"
    [ "$i" = 1 ] && { echo "== reconfigure to $way.conf"; scontrol reconfigure; }
    [ "$i" = 1 ] || ms scontrol reconfigure >> "$dir/to_$way"
    [ "$i" = 1 ] || [ "$(scontrol reconfigure)" = "configuration unchanged" ]
  done
done
echo "nodes $nodes agents $agents running $running0 pending $pend"
echo "reconfigure_to_new_ms $(med < "$dir/to_new")"
echo "reconfigure_to_old_ms $(med < "$dir/to_old")"
echo "running_after $(squeue -h -r -t R -o %i | wc -l)"
sluice down --state-dir "$dir" > /dev/null
