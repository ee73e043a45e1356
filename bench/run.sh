#!/usr/bin/env bash
# Overhead benchmarks: runs every program without an agent and with each profiling mode,
# N repetitions rep-major, and writes ratio tables (see README.md).
# Usage: bench/run.sh [--quick] [--jdk 17|25|all] [--modes a,b] [--programs a,b] [--reps N]
#                     [--scale S] [--max-ratio R]
# HPROF_AGENT=<path to libhprof.so> measures that build instead of build/libhprof.so.
# HPROF_AGENT_BEFORE=<path to an older libhprof.so> is what the before-* modes measure.
set -euo pipefail
cd "$(dirname "$0")"
bench=$PWD
conf_names() { grep -v '^[[:space:]]*\(#\|$\)' "$1" | cut -d'|' -f1 | tr -d ' ' | paste -sd,; }

quick=0 jdk=all reps=5 scale=1 max_ratio=40
partial=0 # a run limited in JDKs, modes or programs, or --quick
modes=$(conf_names modes.conf)
programs="$(conf_names programs.conf),heapdump"
command="bench/run.sh $*"
while (($#)); do
    case $1 in
        --quick) quick=1 reps=1 scale=0.1 partial=1 ;;
        --jdk) jdk=$2; [ "$2" = all ] || partial=1; shift ;;
        --modes) partial=1 modes=baseline$(tr ',' '\n' <<<"$2" | { grep -vx baseline || true; } | sed 's/^/,/' | tr -d '\n'); shift ;;
        --programs) programs=$2 partial=1; shift ;;
        --reps) reps=$2; shift ;;
        --scale) scale=$2; shift ;;
        --max-ratio) max_ratio=$2; shift ;;
        *) echo "usage: bench/run.sh [--quick] [--jdk 17|25|all] [--modes a,b] [--programs a,b] [--reps N]" \
                "[--scale S] [--max-ratio R]" >&2
           exit 2 ;;
    esac
    shift
done
source lib/jdk_homes.sh
select_jdks "$jdk"

./deps.sh
built=${HPROF_AGENT:-../build/libhprof.so}
before=${HPROF_AGENT_BEFORE:-}
if [ -n "$before" ] && [ ! -f "$before" ]; then
    echo "bench: HPROF_AGENT_BEFORE=$before is not a file" >&2
    exit 2
fi
if [ ! -f "$built" ]; then
    echo "bench: building the agent"
    (cd .. && cmake -S . -B build >/dev/null && cmake --build build -j2 >/dev/null) ||
        echo "bench: agent build failed; agent modes will show n/a"
fi
homes=()
for f in "${jdks[@]}"; do homes+=("${home[$f]}"); done
for f in "${jdks[@]}"; do ./prepare.sh "$scale" "$f" "${home[$f]}"; done

raw=results/raw/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$raw"
# A snapshot of the agent: others may rebuild build/libhprof.so while this run goes on.
[ ! -f "$built" ] || cp -p "$built" "$raw/libhprof.so"
agent=$bench/$raw/libhprof.so
before_agent=
if [ -n "$before" ]; then
    cp -p "$before" "$raw/libhprof-before.so"
    before_agent=$bench/$raw/libhprof-before.so
fi
IFS=, read -ra selected <<<"$programs"
matrix=() heapdump=0 warmup=()
((quick)) || warmup=(--warmup)
for p in "${selected[@]}"; do
    if [ "$p" = heapdump ]; then heapdump=1; else matrix+=("$p"); fi
done
python3 lib/meta.py "$raw" --quick "$quick" --reps "$reps" --scale "$scale" --modes "$modes" \
    --programs "$(IFS=,; echo "${matrix[*]}")" --command "$command" \
    --jdks "$(IFS=,; echo "${homes[*]}")" --agent "$built" ${before:+--before "$before"}
for f in "${jdks[@]}"; do
    # The short heap-dump benchmark first: its figures exist even if the long matrix is cut short.
    if ((heapdump)); then
        python3 lib/heapdump.py --jdk "${home[$f]}" --feature "$f" --raw "$raw" --reps "$reps" \
            --scale "$( ((quick)) && echo 0.1 || echo 1)" --agent "$agent"
    fi
    if ((${#matrix[@]})); then
        python3 lib/runmatrix.py --jdk "${home[$f]}" --feature "$f" --raw "$raw" --modes "$modes" --agent "$agent" \
            --before "$before_agent" \
            --programs "$(IFS=,; echo "${matrix[*]}")" --reps "$reps" --scale "$scale" \
            --slowdown "$max_ratio" "${warmup[@]}"
    fi
done
python3 lib/meta.py "$raw" --finish
python3 lib/report.py "$raw"
if ((partial == 0)); then
    cp "$raw/report.md" results/latest.md
    cp "$raw/report.json" results/latest.json
fi
echo "bench: results in $bench/$raw/report.md"
