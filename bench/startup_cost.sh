#!/usr/bin/env bash
# Where a short program's CPU goes without an agent, without CDS, and under
# the exact modes (bench/results/startup-cost.md): perf call-graph samples of
# each run, split by thread and stack (lib/startup_split.py), as ms per run.
#   bench/startup_cost.sh [--reps N] [--jdk 17|25|all] [-- JAVA_ARGS...]
# Default program: CUP on JFlex's Java grammar (bench/compat's cup).
# HPROF_AGENT=/abs/libhprof.so measures another build; JDK17_HOME,
# JDK25_HOME as for bench/run.sh. Needs perf (linux-perf).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/jdk_homes.sh"
reps=3
jdks=(17 25)
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --jdk) select_jdks "$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--reps N] [--jdk 17|25|all] [-- JAVA_ARGS...]" >&2; exit 2 ;;
    esac
done
agent="${HPROF_AGENT:-$here/../build/libhprof.so}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ $# -eq 0 ]; then
    set -- -jar /usr/share/java/cup.jar -destdir "$work" /usr/share/doc/jflex/examples/java/java12.cup
fi
configs=("none" "-Xshare:off" "heap=sites,depth=8" "heap=all")

echo "agent $(sha1sum "$agent" | cut -c1-12), $reps runs per column, load at start $(cut -d' ' -f1-3 /proc/loadavg)"
for jdk in "${jdks[@]}"; do
    java="${home[$jdk]}/bin/java"
    cols=() cpu=()
    for c in "${configs[@]}"; do
        case $c in
        none) opt=() ;;
        -X*) opt=("$c") ;;
        *) opt=("-agentpath:$agent=$c,file=$work/out.txt") ;;
        esac
        : > "$work/samples.txt"
        total=0
        for _ in $(seq "$reps"); do
            perf record -q -F 999 --call-graph dwarf,8192 -o "$work/perf.data" \
                /usr/bin/time -f "%U %S" -o "$work/time.txt" "$java" -XX:+UnlockDiagnosticVMOptions \
                -XX:+DumpPerfMapAtExit "${opt[@]}" "$@" >/dev/null 2>&1
            perf script --no-inline -i "$work/perf.data" -F comm,ip,sym >> "$work/samples.txt" 2>/dev/null
            total=$(awk -v t="$total" '{print t + $1 + $2}' "$work/time.txt")
        done
        python3 "$here/lib/startup_split.py" "$reps" < "$work/samples.txt" > "$work/split-$jdk-${#cols[@]}.tsv"
        cols+=("$jdk $c")
        cpu+=("$(awk -v t="$total" -v r="$reps" 'BEGIN {printf "%.2f", t / r}')")
    done
    printf '\n| ms of CPU per run (JDK %s) |' "$jdk"
    printf ' %s |' "${cols[@]}"
    printf '\n|---|'
    printf -- '---|%.0s' "${cols[@]}"
    echo
    paste "$work"/split-"$jdk"-*.tsv | awk -F'\t' '{printf "| %s |", $1; for (i = 2; i <= NF; i += 2) printf " %s |", $i; print ""}'
    printf '| user+sys (time), s |'
    printf ' %s |' "${cpu[@]}"
    echo
done
echo
echo "load at end $(cut -d' ' -f1-3 /proc/loadavg)"
