#!/usr/bin/env bash
# Times the sampled heap=sites callback from inside the agent, where this machine's wall-time
# noise cannot hide it: builds HEAD's agent with patches/callback-cpu.patch in a temporary
# worktree, runs each real program with alloc_interval=524288 and prints, per program, the
# samples, the thread CPU time spent in the callback and its share of the process's CPU time.
# Usage: bench/callback_cost.sh [--jdk 17|25] [--reps N] [--scale S]
set -euo pipefail
cd "$(dirname "$0")"
jdk=25 reps=1 scale=1
while (($#)); do
    case $1 in
        --jdk) jdk=$2; shift ;;
        --reps) reps=$2; shift ;;
        --scale) scale=$2; shift ;;
        *) echo "usage: bench/callback_cost.sh [--jdk 17|25] [--reps N] [--scale S]" >&2; exit 2 ;;
    esac
    shift
done
source lib/jdk_homes.sh
[ -n "${home[$jdk]:-}" ] || { echo "--jdk must be 17 or 25" >&2; exit 2; }

./deps.sh
./prepare.sh "$scale" "$jdk" "${home[$jdk]}"
tree=$(mktemp -d)
trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"' EXIT
git worktree add --detach "$tree" HEAD >/dev/null
git -C "$tree" apply "$PWD/patches/callback-cpu.patch"
cmake -S "$tree" -B "$tree/build" >/dev/null
cmake --build "$tree/build" -j2 --target hprof_agent >/dev/null
python3 lib/callback_cost.py --jdk "${home[$jdk]}" --feature "$jdk" --agent "$tree/build/libhprof.so" \
    --reps "$reps" --scale "$scale"
