# Timing helpers for the bench scripts (sourced, not run).
# ms CMD ARGS...: runs the command, output discarded, and prints its wall time in us.
ms() { local a b; a=$(date +%s%N); "$@" > /dev/null 2>&1; b=$(date +%s%N); echo $(( (b - a) / 1000 )); }
# med: the median of the us values on stdin, printed in ms with one decimal.
med() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1000}'; }
