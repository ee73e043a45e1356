#!/usr/bin/env bash
# Runs every test: a normal build (unit + integration tests on JDK 17 and 25,
# lint), an ASan+UBSan build (unit tests) and a ThreadSanitizer build (the unit
# tests labelled concurrent). Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
# visualvm: its standalone HPROF reader checks our heap dumps (tests/heap_dump);
# golang-go: tests/profiles reads hprof's pprof files back with go tool pprof
# zlib1g-dev: gzipped heap dumps; libmicrohttpd-dev: hprof serve; chromium and
# chromium-driver: the web UI test (tests/heap_graph) and flame graph pages
# (tests/profiles) drive headless Chromium
scripts/deps.sh visualvm golang-go zlib1g-dev libmicrohttpd-dev chromium chromium-driver
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
jobs="$(nproc)"

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DHPROF_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DHPROF_TSAN=ON >/dev/null
cmake --build build-tsan -j"$jobs" --target unit_table unit_error unit_cpu_samples_ring unit_heap_dump_splice unit_native_gate

status=0
(cd build && ctest --output-on-failure -j"$jobs") || status=1
(cd build-asan && ctest --output-on-failure -j"$jobs" -L unit) || status=1
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j"$jobs" -L concurrent) || status=1
exit $status
