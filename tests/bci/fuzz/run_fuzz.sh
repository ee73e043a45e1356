#!/bin/sh
# Builds the libFuzzer target with clang (ASan+UBSan) and fuzzes the rewriter.
#   tests/bci/fuzz/run_fuzz.sh [RUNS] [extra libFuzzer args...]
# New interesting inputs are merged into corpus/; crashes land in crashes/
# (copy each one to regressions/ so the replay test keeps checking it).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/../../../src/bci"
runs="${1:-200000}"
[ $# -gt 0 ] && shift
work="${TMPDIR:-/tmp}/bci-fuzz"
mkdir -p "$work/new" "$here/crashes"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -I"$src/.." "$here/fuzz_bci.c" "$src"/*.c -o "$work/fuzz_bci"
status=0
"$work/fuzz_bci" -runs="$runs" -max_len=65536 -timeout=30 -rss_limit_mb=2048 \
    -artifact_prefix="$here/crashes/" -print_final_stats=1 "$@" \
    "$work/new" "$here/corpus" "$here/regressions" || status=$?
# Keep the committed corpus small: merge only inputs that add coverage.
"$work/fuzz_bci" -merge=1 "$here/corpus" "$work/new" >/dev/null 2>&1 || true
exit $status
