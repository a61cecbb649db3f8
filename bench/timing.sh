# Timing helpers for the bench scripts (sourced, not run).
# ms CMD ARGS...: runs the command, output discarded, and prints its wall time in us. The
# clock is bash's own $EPOCHREALTIME (no process is started to read it: `$(date +%s%N)`
# around the command added the start of two `date` processes, ~1.6 ms here, to every figure).
ms() {
  local a b
  a=${EPOCHREALTIME/[.,]/}
  "$@" > /dev/null 2>&1
  b=${EPOCHREALTIME/[.,]/}
  echo $((b - a))
}
# med: the median of the us values on stdin, printed in ms with one decimal.
med() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1000}'; }
