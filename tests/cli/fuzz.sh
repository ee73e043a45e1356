#!/usr/bin/env bash
# Fuzzes the hprof reader and all subcommands with libFuzzer (+ASan/UBSan).
# Usage: tests/cli/fuzz.sh [RUNS] [extra libFuzzer flags...]   (default 200000 runs)
# New inputs go to build-fuzz/corpus (seeded from tests/cli/corpus); crashes
# are written to build-fuzz/ as crash-*; copy them into tests/cli/corpus so the
# cli_corpus unit test replays them.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/build-fuzz"
runs="${1:-200000}"
shift || true
mkdir -p "$out/corpus"
cp -n "$root"/tests/cli/corpus/* "$out/corpus/" 2>/dev/null || true
# Everything but main() and the HTTP server glue (the pages themselves are fuzzed).
cli="$root/src/cli"
srcs=$(ls "$cli"/{readers,analyses,ascii,commands,heap,serve}/*.c "$root"/src/format/*.c |
    grep -v -e '/main\.c$' -e '/cmd_serve\.c$')
# Includes are spelled from src/.
clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=all -I"$root/src" \
    $srcs "$root/tests/cli/fuzz_hprof.c" -lz -o "$out/fuzz_hprof"
cd "$out"
./fuzz_hprof -runs="$runs" -max_len=4096 -timeout=30 "$@" corpus
