#!/usr/bin/env bash
# The floor of heap=all's exact route on an allocation-bound loop: WeakFloor.java (the compat
# matrix's Workload loop) hands each object it makes to a native of agents/weakfloor.c (routes call,
# jni, own, turns, tag), or keeps a java.lang.ref.WeakReference each (java). Prints the median user+sys
# CPU seconds of each route and its cost per object over the loop alone (none).
# Usage: bench/floor/run.sh [--jdk 17|25] [--reps N] [--n ITERATIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
jdk=17 reps=3 n=4000000
while (($#)); do
    case $1 in
        --jdk) jdk=$2; shift ;;
        --reps) reps=$2; shift ;;
        --n) n=$2; shift ;;
        *) echo "usage: bench/floor/run.sh [--jdk 17|25] [--reps N] [--n ITERATIONS]" >&2; exit 2 ;;
    esac
    shift
done
source lib/jdk_homes.sh
java_home=${home[$jdk]:-}
[ -n "$java_home" ] || { echo "--jdk must be 17 or 25" >&2; exit 2; }
work=work/floor/$jdk
mkdir -p "$work"
cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -I"$java_home/include" \
    -I"$java_home/include/linux" -o "$work/libweakfloor.so" agents/weakfloor.c
"$java_home/bin/javac" -d "$work" floor/WeakFloor.java

cpu() { # median user+sys seconds of $reps runs of java "$@"
    for _ in $(seq "$reps"); do
        /usr/bin/time -f '%U %S' -o "$work/time" "$java_home/bin/java" "$@" -cp "$work" WeakFloor "$n" \
            >/dev/null 2>&1
        awk '{ printf "%.2f\n", $1 + $2 }' "$work/time"
    done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

objects=$((n * 3 * 4))
base=$(cpu -Dweakfloor.mode=none)
echo "JDK $jdk, $objects objects, median of $reps, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "none: $base s"
per_object() { awk -v r="$1" -v t="$2" -v b="$base" -v o="$objects" \
    'BEGIN { printf "%s: %s s, %.1f ns an object\n", r, t, (t - b) * 1e9 / o }'; }
for route in call jni own turns tag; do
    per_object "$route" "$(cpu "-agentpath:$PWD/$work/libweakfloor.so=$route")"
done
per_object java "$(cpu -Dweakfloor.mode=java)"
