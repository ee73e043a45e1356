#!/usr/bin/env bash
# Throughput of hprof collapsed, pprof and flame on a large synthetic binary
# profile (gen_profile.py): input MB per second of CPU time (user + system)
# and of wall time, medians of RUNS runs (default 5), and the largest peak
# RSS. The machine is shared, so CPU time is the steadier figure.
# Usage: [RUNS=N] bench/profiles/throughput.sh [HPROF] [gen_profile.py options...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
hprof="${1:-$root/build/hprof}"
shift || true
runs="${RUNS:-5}"
work="${TMPDIR:-/tmp}/hprof-throughput"
mkdir -p "$work"
in="$work/big.hprof"
python3 "$root/bench/profiles/gen_profile.py" "$in" "$@"
size=$(stat -c %s "$in")
cat "$in" > /dev/null # page cache: every command reads the same mapped file
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-10s %9s %5s %10s %10s %8s\n' command input_MB runs MB/s_cpu MB/s_wall RSS_MB
for cmd in collapsed pprof flame; do
    : > "$work/times"
    for _ in $(seq "$runs"); do
        /usr/bin/time -f '%e %U %S %M' -a -o "$work/times" "$hprof" "$cmd" "$in" -o "$work/out.$cmd"
    done
    cpu=$(awk '{ print $2 + $3 }' "$work/times" | median)
    wall=$(awk '{ print $1 }' "$work/times" | median)
    rss=$(awk '{ print $4 }' "$work/times" | sort -n | tail -1)
    awk -v c="$cmd" -v s="$size" -v n="$runs" -v u="$cpu" -v w="$wall" -v r="$rss" 'BEGIN {
        printf "%-10s %9.1f %5d %10.1f %10.1f %8.0f\n", c, s / 1e6, n, s / 1e6 / u, s / 1e6 / w,
               r / 1024 }'
done
