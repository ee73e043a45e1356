#!/usr/bin/env bash
# Builds the agent and profiles the bundled demo (demo/Demo.java) twice:
# exact allocation sites (heap=sites) and CPU samples (cpu=samples), then
# prints where each report is and its top lines. With an argument, profiles
# once with those agent options instead, e.g.
#   scripts/demo.sh heap=dump,format=b
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
mkdir -p build/demo

# profile <options> <output file> <demo chunks>
profile() {
    echo "== java -agentpath:build/libhprof.so=$1 Demo $3"
    "$JAVA_HOME/bin/java" "-agentpath:$PWD/build/libhprof.so=$1,file=$PWD/$2" \
        -cp build/demo.jar Demo "$3"
}

# Prints where a report is and the first rows of each of its sections.
show() {
    echo
    echo "Report: $1 ($(wc -c <"$1") bytes)"
    if [[ $1 != *.txt ]]; then
        build/hprof summary "$1"
        return
    fi
    for section in "SITES BEGIN" "CPU SAMPLES BEGIN" "CPU TIME (ms) BEGIN" "HEAP DUMP BEGIN" \
        "MONITOR TIME BEGIN"; do
        grep -m1 -A12 -F "$section" "$1" || true
    done
    echo "The traces cited are in the same file: grep -A6 '^TRACE <serial>:' $1"
}

if (($#)); then
    out=build/demo/custom.txt
    case ",$1," in *,format=b,*) out=build/demo/custom.hprof ;; esac
    profile "$1" "$out" 8
    show "$out"
else
    # The demo is allocation-bound, where exact heap=sites costs about 3x
    # (see README), so that run gets a smaller workload.
    profile heap=sites,depth=6 build/demo/sites.txt 2
    profile cpu=samples,depth=6 build/demo/cpu.txt 24
    show build/demo/sites.txt
    show build/demo/cpu.txt
fi
