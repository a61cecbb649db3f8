#!/usr/bin/env bash
# The controller's HTTP answers (Prometheus /metrics, the dashboard's state), sluicerestd's
# nodes and jobs, sinfo and squeue on an emulated cluster (sluice up --agents), first idle,
# then with RUNNING 1-node jobs and held pending ones; the median of 11 runs each
# (5 for the jobs listing).
# Usage: bench/http_at_scale.sh [NODES=4096] [AGENTS=8] [RUNNING_ARRAYS=2] [HELD_ARRAYS=10]
# (arrays of 1,000 tasks). Needs a Release build in ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-4096} agents=${2:-8} running=${3:-2} held=${4:-10}
bin=$PWD/build/bin
state=$(mktemp -d /tmp/sluice-http-XXXXXX)
trap '"$bin/sluice" down --state-dir "$state/c" >/dev/null 2>&1; rm -rf "$state"' EXIT
out=$("$bin/sluice" up --nodes "$nodes" --agents "$agents" --cpus-per-node 8 --state-dir "$state/c" 2>&1)
metrics=$(grep -o 'http://[0-9.:]*/metrics' <<<"$out")
ctl=${metrics%/metrics}
rest=$(grep -o 'http://[0-9.:]*/slurm/v0.0.38/' <<<"$out")
export SLUICE_CONF=$state/c/sluice.conf
token=$("$bin/scontrol" token | cut -d= -f2)
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() {  # N URL [curl args]: median seconds and the size of the last answer
  local n=$1 url=$2; shift 2
  local t; t=$(for _ in $(seq "$n"); do curl -sf -o "$state/body" -w '%{time_total}\n' "$@" "$url"; done | median)
  echo "$t s, $(wc -c <"$state/body") bytes"
}
command_s() { for _ in $(seq 11); do /usr/bin/time -f %e "$@" >/dev/null 2>>"$state/t"; done; tail -11 "$state/t" | median; }
measure() {
  echo "== $1 (load $(cut -d' ' -f1 /proc/loadavg)), controller RSS $(ps -o rss= -p "$(cat "$state/c/run/sluicectld.pid")") KB"
  echo "/metrics: $(timed 11 "$ctl/metrics")"
  echo "/dashboard/state: $(timed 11 "$ctl/dashboard/state" -H "X-SLURM-USER-TOKEN: $token")"
  echo "REST nodes: $(timed 11 "${rest}nodes" -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $token")"
  echo "REST jobs: $(timed 5 "${rest}jobs" -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $token")"
  echo "sinfo: $(command_s "$bin/sinfo") s"
  echo "squeue -u root -t R: $(command_s "$bin/squeue" -u root -t R) s"
}
measure "$nodes nodes idle"
cd "$state"
for _ in $(seq "$running"); do "$bin/sbatch" -Q --array=0-999 -o /dev/null --wrap "sleep 3600"; done
for _ in $(seq "$held"); do "$bin/sbatch" -Q --hold --array=0-999 -o /dev/null --wrap true; done
sleep 30
measure "$nodes nodes, $("$bin/squeue" -h -t R | wc -l) running, $((held * 1000)) held pending"
