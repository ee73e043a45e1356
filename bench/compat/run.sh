#!/usr/bin/env bash
# Compatibility matrix: real programs from Debian packages, module-system runs and hostile
# programs, each without an agent and under every agent mode, on JDK 17 and 25. Each cell is
# crash, hang, malformed (output fails the grammar check or `hprof verify`), error (HPROF ERROR),
# changed (stdout or exit status differs from the run without agent) or ok with its wall and CPU
# ratios (medians over --reps runs, the whole matrix repeated).
# Usage: bench/compat/run.sh [--jdk 17|25|all] [--modes a,b] [--programs a,b] [--quick]
#                            [--timeout SEC] [--max-ratio R] [--scale S] [--reps N]
# HPROF_AGENT=<path to libhprof.so> tests that build instead of build/libhprof.so.
set -euo pipefail
cd "$(dirname "$0")"
compat=$PWD
conf_names() { grep -v '^[[:space:]]*\(#\|$\)' "$1" | cut -d'|' -f1 | tr -d ' ' | paste -sd,; }
usage() {
    echo "usage: bench/compat/run.sh [--jdk 17|25|all] [--modes a,b] [--programs a,b] [--quick]" \
        "[--timeout SEC] [--max-ratio R] [--scale S] [--reps N]" >&2
    exit 2
}

jdk=all timeout=300 max_ratio=20 scale=0.05 reps=1
modes=$(conf_names modes.conf)
programs=$(conf_names programs.conf)
# --quick: one program of each kind and three modes, a harness check of a few minutes.
quick_programs=h2,rhino-mp,mod-layer,class-churn,dump2,halt
quick_modes=none,sites-exact8,dump-b,cpu-times
command="bench/compat/run.sh $*"
while (($#)); do
    case $1 in
        --jdk) jdk=$2; shift ;;
        --modes) modes=$2; shift ;;
        --programs) programs=$2; shift ;;
        --quick) programs=$quick_programs modes=$quick_modes ;;
        --timeout) timeout=$2; shift ;;
        --max-ratio) max_ratio=$2; shift ;;
        --scale) scale=$2; shift ;;
        --reps) reps=$2; shift ;;
        *) usage ;;
    esac
    shift
done
source ../lib/jdk_homes.sh
select_jdks "$jdk"

./deps.sh
(cd ../.. && cmake -S . -B build >/dev/null && cmake --build build -j2 >/dev/null)
raw=results/raw/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$raw"
# Snapshots: others may rebuild build/ while the matrix runs.
cp -p "${HPROF_AGENT:-../../build/libhprof.so}" "$raw/libhprof.so"
cp -p ../../build/hprof "$raw/hprof"
homes=()
for f in "${jdks[@]}"; do
    homes+=("${home[$f]}")
    ../prepare.sh "$scale" "$f" "${home[$f]}"
    ./prepare.sh "$f" "${home[$f]}"
done
python3 ../lib/meta.py "$raw" --quick 0 --reps "$reps" --scale "$scale" --modes "$modes" --programs "$programs" \
    --command "$command" --jdks "$(IFS=,; echo "${homes[*]}")" \
    --agent "$(realpath "${HPROF_AGENT:-../../build/libhprof.so}")"
for f in "${jdks[@]}"; do
    python3 lib/matrix.py --jdk "${home[$f]}" --feature "$f" --raw "$compat/$raw" --programs "$programs" \
        --modes "$modes" --agent "$compat/$raw/libhprof.so" --cli "$compat/$raw/hprof" --scale "$scale" \
        --timeout "$timeout" --max-ratio "$max_ratio" --reps "$reps"
done
python3 ../lib/meta.py "$raw" --finish
python3 lib/table.py "$raw"
echo "compat: table in bench/compat/$raw/matrix.md"
