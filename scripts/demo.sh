#!/usr/bin/env bash
# Builds the agent and profiles the bundled demo: CPU samples and allocation
# sites, written to build/demo/java.hprof.txt; prints the top of each report.
# Extra arguments replace the agent options, e.g. scripts/demo.sh heap=dump,format=b
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

options="${1:-cpu=samples,heap=sites,depth=6}"
mkdir -p build/demo
out=build/demo/java.hprof.txt
case ",$options," in *,format=b,*) out=build/demo/java.hprof ;; esac
"$JAVA_HOME/bin/java" "-agentpath:$PWD/build/libhprof.so=$options,file=$PWD/$out" \
    -cp build/demo.jar Demo

echo
echo "Profile written to $out ($(wc -c <"$out") bytes), options: $options"
if [[ $out == *.txt ]]; then
    for section in "SITES BEGIN" "CPU SAMPLES BEGIN" "CPU TIME (ms) BEGIN" "HEAP DUMP BEGIN"; do
        grep -m1 -A12 -F "$section" "$out" || true
    done
    echo "Traces are in the same file: grep -A6 '^TRACE <serial>:' $out"
else
    build/hprof summary "$out" 2>/dev/null || true
fi
