#!/usr/bin/env bash
# Fuzzes the profile readers (ascii and binary) and every profile renderer
# with libFuzzer (+ASan/UBSan).
# Usage: tests/profiles/fuzz.sh [RUNS] [extra libFuzzer flags...]   (default 200000 runs)
# New inputs go to build-fuzz-profiles/corpus (seeded from tests/profiles/corpus);
# crashes are written as crash-*; copy them into tests/profiles/corpus so the
# profiles_corpus unit test replays them.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/build-fuzz-profiles"
runs="${1:-200000}"
shift || true
mkdir -p "$out/corpus" "$out/gen/cli/render"
cp -n "$root"/tests/profiles/corpus/* "$out/corpus/" 2>/dev/null || true
protoc-c --c_out="$out/gen/cli/render" --proto_path="$root/src/cli/render" profile.proto
cli="$root/src/cli"
srcs=$(ls "$cli"/{readers,analyses,ascii,commands,heap,profile,render}/*.c "$root"/src/format/*.c |
    grep -v -e '/main\.c$' -e '/commands\.c$')
cmake -DOUT="$out/gen/cli/render/flame_assets.c" \
    -DINPUTS="hp_flame_css=$root/src/cli/render/flame.css,hp_flame_js=$root/src/cli/render/flame.js,hp_flame_controls=$root/src/cli/render/flame_controls.html" \
    -P "$root/src/cli/render/embed.cmake"
clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=all -I"$root/src" -I"$out/gen" \
    $srcs "$out/gen/cli/render/profile.pb-c.c" "$out/gen/cli/render/flame_assets.c" \
    "$root/tests/profiles/fuzz_profiles.c" "$root/tests/profiles/render_all.c" \
    -lprotobuf-c -lz -o "$out/fuzz_profiles"
cd "$out"
./fuzz_profiles -runs="$runs" -max_len=4096 -timeout=30 "$@" corpus
