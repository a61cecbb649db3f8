#!/usr/bin/env bash
# The real commands against a local cluster holding 100,000 pending jobs (issue 16's
# query targets): ten held arrays of 10,000 tasks as root, 100 held jobs of user nobody.
# Prints the median of REPS runs of each command (ms) and the controller's resident
# memory before and after the submissions. usage: bench/query_100k.sh [REPS] [STATE_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
reps=${1:-11}; dir=${2:-/tmp/sluice-100k}
export PATH=$root/build/bin:$PATH
"$root/build/bin/sluice" down --state-dir "$dir" >/dev/null 2>&1 || true
rm -rf "$dir"
eval "$("$root/build/bin/sluice" up --state-dir "$dir" --config-line MaxArraySize=10001 | grep '^export')"
ctld=$(pgrep -f "sluicectld.*$dir" | head -1)
rss() { awk '/VmRSS/ {print $2}' "/proc/$ctld/status"; }
rss0=$(rss)
for a in $(seq 10); do sbatch --hold --array=0-9999 -o /dev/null --wrap true > /dev/null; done
cd /tmp
for i in $(seq 100); do runuser -u nobody -- env SLUICE_CONF="$SLUICE_CONF" PATH="$PATH" sbatch --hold -o /dev/null --wrap true > /dev/null; done
rss1=$(rss)
n=$(squeue -h -r -o %i | wc -l)
echo "pending_jobs $n"
echo "ctld_rss_kb_before $rss0"
echo "ctld_rss_kb_after $rss1"
awk -v a="$rss0" -v b="$rss1" -v n="$n" 'BEGIN {printf "ctld_kb_per_pending_job %.2f\n", (b - a) / n}'
task=$(squeue -h -r -o %i -t PD | sed -n 55555p)  # an array task (J_T)
id=$(squeue -h -u nobody -o %i | sed -n 50p)         # a plain job
. "$root/bench/timing.sh"
for cmd in "squeue -h -j $id" "squeue -h -j $task" "squeue -h -u nobody" "squeue -h -t R" \
           "squeue" "squeue -r" "scontrol show job $id" "scontrol show job $task"; do
  : > /tmp/q100k
  for i in $(seq "$reps"); do ms sh -c "$cmd" >> /tmp/q100k; done
  printf '%s\t%s ms\n' "$cmd" "$(med < /tmp/q100k)"
done
"$root/build/bin/sluice" down --state-dir "$dir" > /dev/null
