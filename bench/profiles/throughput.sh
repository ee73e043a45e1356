#!/usr/bin/env bash
# Throughput of hprof collapsed, pprof and flame on a large synthetic binary
# profile (gen_profile.py). Prints input MB per second of wall and of CPU
# (user + system) time; the machine is shared, so CPU time is the steadier.
# Usage: bench/profiles/throughput.sh [HPROF] [gen_profile.py options...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
hprof="${1:-$root/build/hprof}"
shift || true
work="${TMPDIR:-/tmp}/hprof-throughput"
mkdir -p "$work"
in="$work/big.hprof"
python3 "$root/bench/profiles/gen_profile.py" "$in" "$@"
size=$(stat -c %s "$in")
cat "$in" > /dev/null # page cache: every command reads the same mapped file
printf '%-10s %10s %8s %8s %10s %10s %8s\n' command input_MB wall_s cpu_s MB/s_wall MB/s_cpu RSS_MB
for cmd in collapsed pprof flame; do
    out="$work/out.$cmd"
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$hprof" "$cmd" "$in" -o "$out"
    read -r wall user sys rss < "$work/time"
    awk -v c="$cmd" -v s="$size" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss" 'BEGIN {
        printf "%-10s %10.1f %8.2f %8.2f %10.1f %10.1f %8.0f\n", c, s / 1e6, w, u + y,
               s / 1e6 / w, s / 1e6 / (u + y), r / 1024 }'
done
