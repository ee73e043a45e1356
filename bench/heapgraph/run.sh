#!/usr/bin/env bash
# Heap analysis at scale: a ~1 GB `jcmd GC.heap_dump` of a real program (H2 holding an
# in-memory table, H2Heap.java), then wall time, CPU time (user + system) and peak RSS
# (/usr/bin/time -v) of
#   1. hprof dominators, first open (graph and dominators built, index written), RUNS times
#   2. hprof dominators, second open (the on-disk index mapped), RUNS times
#   3. second opens of the other heap commands (path to a class's largest instances,
#      waste, suspects, histo --retained) and hprof serve's time from start to its
#      first page answered (with its CPU time and peak RSS by then), RUNS times each
#   4. VisualVM's heap library computing the same retained sizes, once
#      (RetainedOracle: Heap.getBiggestObjectsByRetainedSize(20)), which must list
#      the same 20 largest retainers with the same sizes as hprof.
# Each line gives the median of the runs and the load average before them.
# Usage: bench/heapgraph/run.sh [ROWS] [RUNS]   (default 1600000 rows, about 1 GB; 3 runs)
# Needs a built tree (build/hprof), libh2-java and visualvm (bench/deps.sh, scripts/deps.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rows="${1:-1600000}"
runs="${2:-3}"
work="$root/bench/work/heapgraph"
java_home="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
jfluid=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
h2=/usr/share/java/h2.jar
hprof="$root/build/hprof"
rm -rf "$work" && mkdir -p "$work/classes"
"$java_home/bin/javac" -d "$work/classes" -cp "$h2:$jfluid" "$here/H2Heap.java" \
    "$root/tests/heap_graph/java/RetainedOracle.java"

# The program runs until its stdin closes; the dump is taken at that quiet point.
exec 3> >("$java_home/bin/java" -Xmx6g -cp "$work/classes:$h2" H2Heap "$rows" > "$work/ready.txt")
until grep -q READY "$work/ready.txt" 2>/dev/null; do sleep 1; done
pid=$(awk '/READY/ {print $2}' "$work/ready.txt")
"$java_home/bin/jcmd" "$pid" GC.heap_dump "$work/h2.hprof" > /dev/null
exec 3>&-
dump_mb=$(( $(stat -c %s "$work/h2.hprof") / 1000000 ))

measure() { # name, command...: one run's "wall cpu rss" (s, s, MB) on stdout
    local name="$1"
    shift
    /usr/bin/time -v "$@" > "$work/$name.out" 2> "$work/$name.time"
    awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = t[n] + (n > 1 ? 60 * t[n-1] : 0) }
        /User time/ { cpu += $2 } /System time/ { cpu += $2 }
        /Maximum resident/ { rss = $2 / 1024 }
        END { printf "%.2f %.2f %.0f\n", wall, cpu, rss }' "$work/$name.time"
}

first_page() { # name, dump: one run's "wall cpu rss" of hprof serve, start to first page
    local name="$1" dump="$2" start end pid url=""
    start=$(date +%s.%N)
    "$hprof" serve "$dump" --port 0 > "$work/$name.out" &
    pid=$!
    while [ -z "$url" ] && kill -0 "$pid" 2> /dev/null; do
        sleep 0.01
        url=$(grep -o 'http://[^ ]*' "$work/$name.out" || true)
    done
    curl -sf -o "$work/$name.html" "$url"
    end=$(date +%s.%N)
    # utime + stime in clock ticks, and the peak RSS, before the server is stopped
    read -r -a stat < "/proc/$pid/stat"
    awk -v s="$start" -v e="$end" -v t="$(getconf CLK_TCK)" -v u="${stat[13]}" -v k="${stat[14]}" \
        '/VmHWM/ { printf "%.2f %.2f %.0f\n", e - s, (u + k) / t, $2 / 1024 }' "/proc/$pid/status"
    kill "$pid"
    wait "$pid" || true
}

median_of() { # name, count, how (measure or first_page), args...: medians of wall, cpu, RSS
    local name="$1" count="$2" how="$3" load
    shift 3
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    for _ in $(seq "$count"); do
        [ "$name" = hprof-first ] && rm -f "$work/h2.hprof.index"
        "$how" "$name" "$@"
    done | python3 -c '
import statistics, sys
name, n, load = sys.argv[1:4]
runs = [list(map(float, l.split())) for l in sys.stdin]
wall, cpu, rss = (statistics.median(col) for col in zip(*runs))
print(f"{name:<18} {wall:8.2f} s wall {cpu:7.2f} s cpu {rss:7.0f} MB max RSS  (median of {n}; load {load})")
' "$name" "$count" "$load"
}

echo "dump: $work/h2.hprof, $dump_mb MB, $rows rows; $(nproc) cores"
dump="$work/h2.hprof"
echo "commit $(git -C "$root" rev-parse --short HEAD)"
median_of hprof-first "$runs" measure "$hprof" dominators "$dump" --top 20
median_of hprof-second "$runs" measure "$hprof" dominators "$dump" --top 20
median_of path-class "$runs" measure "$hprof" path "$dump" java.lang.String
median_of path-object "$runs" measure "$hprof" path "$dump" \
    "$(awk '$3 ~ /^0x/ { print $3; exit }' "$work/hprof-second.out")"
median_of waste "$runs" measure "$hprof" waste "$dump"
median_of suspects "$runs" measure "$hprof" suspects "$dump"
median_of histo-retained "$runs" measure "$hprof" histo --retained "$dump"
median_of serve-first-page "$runs" first_page "$dump"
median_of visualvm 1 measure "$java_home/bin/java" -cp "$work/classes:$jfluid" RetainedOracle \
    "$dump" 20 -

# VisualVM's 20 largest retainers must have the same retained sizes in hprof.
python3 - "$work" "$hprof" <<'PY'
import json, subprocess, sys
work, hprof = sys.argv[1:3]
theirs = [l.split() for l in open(f"{work}/visualvm.out") if l.startswith("TOP ")]
same = 0
for _, oid, retained, *_ in theirs:
    out = subprocess.run([hprof, "path", f"{work}/h2.hprof", oid, "--json"], check=True,
                         capture_output=True, text=True).stdout
    same += json.loads(out)["paths"][0]["retained"] == int(retained)
print(f"largest retainers: {same} of {len(theirs)} listed by VisualVM have its retained size in hprof")
sys.exit(0 if theirs and same == len(theirs) else 1)
PY
